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

    public static let identityMatrix: [Double] = [1, 0, 0, 0, 1, 0]

    public init(native: PixelSize, rotation: Int = 0, calibration: [Double] = TouchTransform.identityMatrix) {
        self.native = native
        self.rotation = [0, 90, 180, 270].contains(rotation) ? rotation : 0
        self.calibration = calibration.count == 6 ? calibration : Self.identityMatrix
    }

    /// The size the game lays out for.
    public var logical: PixelSize { turn.logicalSize(panel: native) }

    public var isIdentity: Bool { rotation == 0 && calibration == Self.identityMatrix }

    /// The rotation as the one map between panel and game coordinates.
    public var turn: ScreenRotation { ScreenRotation(degrees: rotation) ?? .none }

    /// A panel pixel position to a game position.
    public func apply(_ p: Vector2) -> Vector2 {
        let c = calibration
        let nx = p.x / Double(native.width), ny = p.y / Double(native.height)
        let calibrated = Vector2(c[0] * nx + c[1] * ny + c[2], c[3] * nx + c[4] * ny + c[5])
        let r = turn.gamePoint(ofPanel: calibrated, width: 1, height: 1)
        let size = logical
        return Vector2(r.x * Double(size.width), r.y * Double(size.height))
    }

    /// The inverse of `apply` for rotation alone: where on the panel a game position is shown.
    /// (Tests and the VM test use it to aim taps at bubbles.)
    public func panelPosition(ofGame p: Vector2) -> Vector2 {
        let size = logical
        let n = turn.panelPoint(ofGame: Vector2(p.x / Double(size.width), p.y / Double(size.height)), width: 1, height: 1)
        return Vector2(n.x * Double(native.width), n.y * Double(native.height))
    }

    /// A whole frame.
    public func apply(_ frame: TouchFrame) -> TouchFrame {
        guard !isIdentity else { return frame }
        var f = frame
        for i in f.contacts.indices { f.contacts[i].position = apply(f.contacts[i].position) }
        return f
    }
}
