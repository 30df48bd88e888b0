/// What a bubble shows in its middle.
public enum BubbleContent: Hashable, Sendable {
    case none
    /// Taps still needed, drawn as a white digit.
    case taps(Int)
    /// Swipe direction in degrees (screen coordinates, y down, 0 pointing right).
    case arrow(degrees: Double)
    /// A drag bubble's grip: a small basket handle over three ridges.
    case grip
}

/// A glossy bubble: gradient fill, border, content; `scale` and `opacity` animate a pop.
/// `lift` (0 resting, 1 held) raises a drag bubble: a soft shadow drops away below it and the
/// bubble grows a little, like the seed's view lifted by a pan.
public struct BubbleShape: Equatable, Sendable {
    public var center: Vector2
    public var diameter: Double
    public var color: RGBColor
    public var content: BubbleContent
    public var scale: Double
    public var opacity: Double
    public var lift: Double

    public init(center: Vector2, diameter: Double, color: RGBColor, content: BubbleContent = .none,
                scale: Double = 1, opacity: Double = 1, lift: Double = 0) {
        self.center = center
        self.diameter = diameter
        self.color = color
        self.content = content
        self.scale = scale
        self.opacity = opacity
        self.lift = lift
    }

    /// How much a fully lifted bubble grows.
    public static let liftScale = 0.08

    /// The scale it is drawn at: its own, times the lift's growth.
    public var drawnScale: Double { scale * (1 + Self.liftScale * min(max(lift, 0), 1)) }

    /// The lifted bubble's shadow: a disc under it, dropping further, growing and blurring as it
    /// rises (the seed's shadow goes from offset 3, radius 2 to offset 20, radius 6).
    public var shadow: (center: Vector2, radius: Double, blur: Double, opacity: Double)? {
        let l = min(max(lift, 0), 1)
        guard l > 0, opacity > 0, scale > 0 else { return nil }
        let r = diameter / 2 * scale
        return (center + Vector2(0.06 * r * l, 0.36 * r * l), r * (1 + 0.08 * l), r * (0.1 + 0.3 * l), 0.7 * l * opacity)
    }

    public var bounds: PixelRect {
        // The cached sprite is up to diameter + 3 px wide and is snapped to whole pixels.
        let own = PixelRect(around: center, halfExtent: (diameter + 4) * max(drawnScale, 0) / 2 + 1)
        guard let s = shadow else { return own }
        return own.union(PixelRect(around: s.center, halfExtent: s.radius + s.blur + 2))
    }
}

/// The goal of drag bubbles: a basket with a rim, against an edge of the play area.
/// `active` while a carried bubble is over it.
public struct GoalShape: Equatable, Sendable {
    public var rect: Rect
    public var active: Bool

    public init(rect: Rect, active: Bool = false) {
        self.rect = rect
        self.active = active
    }

    public var bounds: PixelRect { PixelRect(enclosing: rect).outset(by: 2) }
}

/// One spark of a pop's spray.
public struct ParticleShape: Equatable, Sendable {
    public var center: Vector2
    public var radius: Double
    public var color: RGBColor
    public var opacity: Double

    public init(center: Vector2, radius: Double, color: RGBColor, opacity: Double = 1) {
        self.center = center
        self.radius = radius
        self.color = color
        self.opacity = opacity
    }

    public var bounds: PixelRect { PixelRect(around: center, halfExtent: radius + 2) }
}

/// The marker under a finger; `ghost` marks the simulated fingers of the demo mode.
public struct FingerShape: Equatable, Sendable {
    public var center: Vector2
    public var radius: Double
    public var ghost: Bool

    public init(center: Vector2, radius: Double, ghost: Bool = false) {
        self.center = center
        self.radius = radius
        self.ghost = ghost
    }

    public var bounds: PixelRect { PixelRect(around: center, halfExtent: radius + 2) }
}

/// A capsule button with a centred title.
public struct ButtonShape: Equatable, Sendable {
    public var rect: Rect
    public var title: String
    public var color: RGBColor
    /// Drawn darker while a finger holds it.
    public var pressed: Bool

    public init(rect: Rect, title: String, color: RGBColor = .accent, pressed: Bool = false) {
        self.rect = rect
        self.title = title
        self.color = color
        self.pressed = pressed
    }

    public var bounds: PixelRect { PixelRect(enclosing: rect).outset(by: 1) }
}

/// Horizontal placement of a text relative to its anchor.
public enum TextAlignment: Hashable, Sendable {
    case left, center, right
}

/// A line of text; `position` is on the baseline, at the left, middle or right end per `alignment`.
public struct TextShape: Equatable, Sendable {
    public var position: Vector2
    public var string: String
    /// Font size (the em) in pixels.
    public var sizePx: Double
    public var color: RGBColor
    public var alignment: TextAlignment
    public var bold: Bool

    public init(position: Vector2, string: String, sizePx: Double, color: RGBColor = .white,
                alignment: TextAlignment = .left, bold: Bool = true) {
        self.position = position
        self.string = string
        self.sizePx = sizePx
        self.color = color
        self.alignment = alignment
        self.bold = bold
    }

    /// Widest the string can plausibly be: the core cannot measure glyphs, so this errs large
    /// (0.85 em a character, DejaVu Sans Bold digits are 0.7 em; 1.05 em for the full-width
    /// characters of Chinese, Japanese and Korean, which are 1 em). The renderer clips text to it.
    public var estimatedWidth: Double {
        let ems = string.unicodeScalars.reduce(0.0) { $0 + (Self.isWide($1) ? 1.05 : 0.85) }
        return ems * sizePx + sizePx * 0.5
    }

    /// East Asian wide and full-width characters (Unicode's East_Asian_Width W and F, by block):
    /// Hangul jamo, CJK radicals to Yi, Hangul syllables, compatibility ideographs and forms,
    /// full-width forms, and the ideographs of the supplementary planes.
    static func isWide(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x1100...0x115F, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF,
             0xA000...0xA4CF, 0xA960...0xA97F, 0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE30...0xFE4F,
             0xFF00...0xFF60, 0xFFE0...0xFFE6, 0x1F300...0x1F64F, 0x20000...0x3FFFD:
            true
        default:
            false
        }
    }

    public var bounds: PixelRect {
        let w = estimatedWidth
        let left: Double = switch alignment {
        case .left: position.x - sizePx * 0.25
        case .center: position.x - w / 2
        case .right: position.x - w + sizePx * 0.25
        }
        // DejaVu's ascent is 0.93 em and its descent 0.24 em.
        return PixelRect(enclosing: Rect(x: left, y: position.y - sizePx * 1.05, width: w, height: sizePx * 1.4))
    }
}

/// A filled rectangle, translucent for a heads-up bar or a dimming overlay.
public struct PanelShape: Equatable, Sendable {
    public var rect: Rect
    public var color: RGBColor
    public var cornerRadius: Double

    public init(rect: Rect, color: RGBColor, cornerRadius: Double = 0) {
        self.rect = rect
        self.color = color
        self.cornerRadius = cornerRadius
    }

    public var bounds: PixelRect { PixelRect(enclosing: rect) }
}

/// A picture the renderer holds by `name`, scaled to fill `rect` (which keeps its proportions).
public struct ImageShape: Equatable, Sendable {
    public var rect: Rect
    public var name: String

    /// The operator's logo (`[branding] logo`).
    public static let logo = "logo"

    public init(rect: Rect, name: String) {
        self.rect = rect
        self.name = name
    }

    public var bounds: PixelRect { PixelRect(enclosing: rect).outset(by: 1) }
}
