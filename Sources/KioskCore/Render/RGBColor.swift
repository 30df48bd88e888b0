/// A colour with straight (not premultiplied) alpha; channels in 0...1.
public struct RGBColor: Hashable, Sendable {
    public var r: Double
    public var g: Double
    public var b: Double
    public var a: Double

    public init(r: Double, g: Double, b: Double, a: Double = 1) {
        self.r = r
        self.g = g
        self.b = b
        self.a = a
    }

    /// From `0xRRGGBB`.
    public init(hex: UInt32, alpha: Double = 1) {
        self.init(r: Double((hex >> 16) & 0xFF) / 255, g: Double((hex >> 8) & 0xFF) / 255,
                  b: Double(hex & 0xFF) / 255, a: alpha)
    }

    /// Linear blend: `amount` 0 is self, 1 is `other`.
    public func mixed(with other: RGBColor, amount t: Double) -> RGBColor {
        RGBColor(r: r + (other.r - r) * t, g: g + (other.g - g) * t, b: b + (other.b - b) * t, a: a + (other.a - a) * t)
    }

    public func withAlpha(_ alpha: Double) -> RGBColor { RGBColor(r: r, g: g, b: b, a: alpha) }

    /// As a frame pixel (`0x00RRGGBB`), alpha dropped.
    public var xrgb: UInt32 {
        func byte(_ v: Double) -> UInt32 { UInt32((min(max(v, 0), 1) * 255).rounded()) }
        return byte(r) << 16 | byte(g) << 8 | byte(b)
    }

    public static let white = RGBColor(r: 1, g: 1, b: 1)
    public static let black = RGBColor(r: 0, g: 0, b: 0)
    /// Deep navy: bright bubbles stand out on it and it is easy on the eyes in a dim room.
    public static let kioskBackground = RGBColor(hex: 0x14_1F_33)
    /// Buttons (the blue of a prominent system button).
    public static let accent = RGBColor(hex: 0x0A_84_FF)

    /// Bubble colours, bright enough to carry white digits.
    public static let bubblePalette: [RGBColor] = [
        RGBColor(hex: 0x0A_84_FF), // blue
        RGBColor(hex: 0xFF_37_5F), // pink
        RGBColor(hex: 0xFF_9F_0A), // orange
        RGBColor(hex: 0x30_B8_4E), // green
        RGBColor(hex: 0xBF_5A_F2), // purple
        RGBColor(hex: 0x1F_B5_CF), // teal
        RGBColor(hex: 0xFF_45_3A), // red
        RGBColor(hex: 0x5E_5C_E6), // indigo
    ]

    /// Palette colour `index`, wrapping around (negative indices too).
    public static func bubble(_ index: Int) -> RGBColor {
        let n = bubblePalette.count
        return bubblePalette[((index % n) + n) % n]
    }
}
