/// The operator's own look on the start screen (`[branding]`): a name, a line under it, a
/// logo, and the colours. Empty texts keep the game's own wording; the colours' defaults are
/// the game's look.
public struct BrandingSettings: Equatable, Sendable {
    /// Instead of "Bubble Pop" (in every language); empty: the catalogue's title.
    public var title = ""
    /// Instead of the line of how to play under the title; empty: that line.
    public var subtitle = ""
    /// Absolute path of a PNG shown above the title; empty: none.
    public var logo = ""
    /// `#RRGGBB` colours: the screen, buttons and the top bar, and text.
    public var background = BrandColor.text(.kioskBackground)
    public var accent = BrandColor.text(.accent)
    public var text = BrandColor.text(.white)

    public init() {}

    public var backgroundColor: RGBColor { BrandColor.parse(background) ?? .kioskBackground }
    public var accentColor: RGBColor { BrandColor.parse(accent) ?? .accent }
    public var textColor: RGBColor { BrandColor.parse(text) ?? .white }

    /// The problem with `value` as a logo path (not absolute, not a .png name), or nil.
    @Sendable public static func logoProblem(_ value: String) -> String? {
        if value.isEmpty { return nil }
        return value.hasPrefix("/") && value.lowercased().hasSuffix(".png") ? nil : logoExpectation
    }
    public static let logoExpectation = "an absolute path to a .png file, or nothing"

    /// Where a logo of `size` goes: scaled (never up by more than 2) to fit the band from `top`
    /// to `bottom`, at most `maxWidth` wide, centred on `centreX`; nil when under 8 px tall.
    public static func logoRect(_ size: PixelSize, centreX: Double, top: Double, bottom: Double, maxWidth: Double) -> Rect? {
        guard size.width > 0, size.height > 0, bottom > top, maxWidth > 0 else { return nil }
        let scale = min((bottom - top) / Double(size.height), maxWidth / Double(size.width), 2)
        let w = (Double(size.width) * scale).rounded(), h = (Double(size.height) * scale).rounded()
        guard h >= 8, w >= 1 else { return nil }
        // Sitting on the band's bottom, next to the title.
        return Rect(x: (centreX - w / 2).rounded(), y: (bottom - h).rounded(), width: w, height: h)
    }
}

/// Colours written as `#RRGGBB` in the config file.
public enum BrandColor {
    public static let expectation = "a colour as #RRGGBB"

    /// `#1a2b3c` (either case) as a colour; nil for anything else.
    public static func parse(_ text: String) -> RGBColor? {
        let digits = Array(text.utf8)
        guard digits.count == 7, digits[0] == UInt8(ascii: "#") else { return nil }
        var value: UInt32 = 0
        for d in digits.dropFirst() {
            let nibble: UInt8
            switch d {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): nibble = d - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): nibble = d - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): nibble = d - UInt8(ascii: "A") + 10
            default: return nil
            }
            value = value << 4 | UInt32(nibble)
        }
        return RGBColor(hex: value)
    }

    /// nil when `text` is a colour, else what is expected.
    @Sendable public static func problem(_ text: String) -> String? { parse(text) == nil ? expectation : nil }

    /// `color` as `#RRGGBB` (upper case).
    public static func text(_ color: RGBColor) -> String { "#" + NumberText.hex(color.xrgb, digits: 6, uppercase: true) }
}
