/// Maps touch positions from the panel's own orientation to the game's: a calibration matrix
/// (libinput's convention) and then the display's rotation.
///
/// The decoder maps device axes onto the panel's native pixel size; this turns those pixels
/// into the coordinates the game lays out in, so touch always follows the picture, whatever way
/// the screen is mounted.
///
/// Rotation is clockwise: at 90 the game's top edge runs down the panel's right side, and a
/// 1280x800 panel shows an 800x1280 game.
public struct TouchTransform: Equatable, Sendable {
    /// The panel's size in its own orientation (the display mode).
    public let native: PixelSize
    /// 0, 90, 180 or 270.
    public let rotation: Int
    /// `[a, b, c, d, e, f]`: x' = a·x + b·y + c, y' = d·x + e·y + f, in coordinates normalized to
    /// 0...1 of the panel, as in libinput's `LIBINPUT_CALIBRATION_MATRIX`.
    public let calibration: [Double]
    /// The panel size the touch input maps its axes onto: the display's size when the input was
    /// made. It differs from `native` after a monitor of another size replaced the first.
    public let input: PixelSize

    public static let identityMatrix: [Double] = [1, 0, 0, 0, 1, 0]

    public init(native: PixelSize, rotation: Int = 0, calibration: [Double] = TouchTransform.identityMatrix,
                input: PixelSize? = nil) {
        self.native = native
        self.input = input ?? native
        self.rotation = ScreenRotation(degreesOrNone: rotation).degrees
        // The config already refuses such matrices; this keeps hand-built ones safe too.
        self.calibration = Self.calibrationProblem(calibration) == nil ? calibration : Self.identityMatrix
    }

    /// Below this the matrix squeezes the screen onto (almost) a line: a 10x shrink on both axes.
    public static let minimumDeterminant = 0.01

    /// Why a calibration matrix cannot be used, or nil when it can: it needs six finite
    /// numbers, must not squeeze the panel onto (almost) a line or a point, and must map
    /// some of the panel onto the panel.
    public static func calibrationProblem(_ m: [Double]) -> String? {
        guard m.count == 6, m.allSatisfy(\.isFinite) else { return "expected 6 finite numbers" }
        let determinant = m[0] * m[4] - m[1] * m[3]
        guard abs(determinant) >= minimumDeterminant else {
            return "the matrix maps the screen onto a line or a point (a*e - b*d is below \(minimumDeterminant))"
        }
        // The unit square's image is a parallelogram; by the separating axis theorem it misses
        // the unit square exactly when the corners of one lie beyond an edge of the other.
        // Touching along an edge counts as missing: every touch would clamp onto that edge.
        let corners = [(0.0, 0.0), (1.0, 0.0), (0.0, 1.0), (1.0, 1.0)]
        let image = corners.map { (m[0] * $0.0 + m[1] * $0.1 + m[2], m[3] * $0.0 + m[4] * $0.1 + m[5]) }
        // Axes: x, y, and the normals of the parallelogram's edges (images of the square's edges).
        let axes = [(1.0, 0.0), (0.0, 1.0), (-m[3], m[0]), (-m[4], m[1])]
        for axis in axes {
            let a = corners.map { $0.0 * axis.0 + $0.1 * axis.1 }
            let b = image.map { $0.0 * axis.0 + $0.1 * axis.1 }
            if a.max()! <= b.min()! || b.max()! <= a.min()! {
                return "the matrix maps the whole screen off the screen"
            }
        }
        return nil
    }

    /// The size the game lays out for.
    public var logical: PixelSize { turn.logicalSize(panel: native) }

    public var isIdentity: Bool { rotation == 0 && calibration == Self.identityMatrix && input == native }

    /// The rotation as the one map between panel and game coordinates.
    public var turn: ScreenRotation { ScreenRotation(degreesOrNone: rotation) }

    /// A panel pixel position to a game position.
    public func apply(_ p: Vector2) -> Vector2 {
        let c = calibration
        let nx = p.x / Double(input.width), ny = p.y / Double(input.height)
        let calibrated = Vector2(c[0] * nx + c[1] * ny + c[2], c[3] * nx + c[4] * ny + c[5])
        let r = turn.gamePoint(ofPanel: calibrated, width: 1, height: 1)
        let size = logical
        // A calibration can push a touch past the edge; the game only knows the screen.
        return Vector2(min(max(r.x, 0), 1) * Double(size.width), min(max(r.y, 0), 1) * Double(size.height))
    }

    /// The inverse of `apply` for rotation alone: where on the panel a game position is shown.
    /// (Tests and the VM test use it to aim taps at bubbles.)
    public func panelPosition(ofGame p: Vector2) -> Vector2 {
        let size = logical
        let n = turn.panelPoint(ofGame: Vector2(p.x / Double(size.width), p.y / Double(size.height)), width: 1, height: 1)
        return Vector2(n.x * Double(input.width), n.y * Double(input.height))
    }

    /// A whole frame.
    public func apply(_ frame: TouchFrame) -> TouchFrame {
        guard !isIdentity else { return frame }
        var f = frame
        for i in f.contacts.indices { f.contacts[i].position = apply(f.contacts[i].position) }
        return f
    }
}
