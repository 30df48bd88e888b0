/// A point or vector in screen pixels: x to the right, y down.
public typealias Vector2 = SIMD2<Double>

extension SIMD2 where Scalar == Double {
    /// Euclidean length.
    public var length: Double { (x * x + y * y).squareRoot() }

    /// Distance to another point.
    public func distance(to other: Vector2) -> Double { (other - self).length }

    /// Direction in degrees, screen coordinates (y down), 0 pointing right, in (-180, 180].
    public var angleDegrees: Double { Angle.degrees(atan2: y, x) }
}

/// A screen or play-field size in pixels.
public struct PixelSize: Equatable, Sendable, CustomStringConvertible {
    public var width: Int
    public var height: Int

    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }

    /// The largest width or height accepted: what DRM drivers allow for a framebuffer. Bigger
    /// sizes are typos, and a frame of them would take gigabytes.
    public static let maximumSide = 8192

    /// Parses `WxH` as used on the command line (`1280x800`), each side 1 to `maximumSide`.
    public init?(parsing text: String) {
        let parts = text.split(separator: "x", omittingEmptySubsequences: false)
        guard parts.count == 2, let w = Int(parts[0]), let h = Int(parts[1]),
              w > 0, h > 0, w <= Self.maximumSide, h <= Self.maximumSide else { return nil }
        self.init(width: w, height: h)
    }

    public var description: String { "\(width)x\(height)" }
}

/// An axis-aligned rectangle in pixels.
public struct Rect: Equatable, Sendable {
    public var x: Double
    public var y: Double
    public var width: Double
    public var height: Double

    public init(x: Double, y: Double, width: Double, height: Double) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    public var maxX: Double { x + width }
    public var center: Vector2 { Vector2(x + width / 2, y + height / 2) }
    public var maxY: Double { y + height }

    public func contains(_ p: Vector2) -> Bool {
        p.x >= x && p.x <= maxX && p.y >= y && p.y <= maxY
    }

    /// The same rectangle moved by `v`.
    public func shifted(by v: Vector2) -> Rect {
        Rect(x: x + v.x, y: y + v.y, width: width, height: height)
    }
}
