/// What one frame shows, as plain values: the renderer paints `items` in order over `background`.
///
/// The game builds a new scene every frame; the renderer compares it with the last one by item id
/// (`DamageTracker`) and repaints only what changed, so rebuilding the whole scene is cheap.
public struct Scene: Equatable, Sendable {
    public var size: PixelSize
    /// Screen density; every size in the scene was scaled from millimetres with it.
    public var pxPerMM: Double
    /// Opaque fill under everything (alpha is ignored).
    public var background: RGBColor
    /// Painted first to last: later items cover earlier ones.
    public var items: [SceneItem]

    public init(size: PixelSize, pxPerMM: Double, background: RGBColor = .kioskBackground, items: [SceneItem] = []) {
        self.size = size
        self.pxPerMM = pxPerMM
        self.background = background
        self.items = items
    }

    /// `mm` millimetres in pixels on this screen.
    public func px(mm: Double) -> Double { mm * pxPerMM }

    /// The whole screen.
    public var screenRect: PixelRect { PixelRect(x: 0, y: 0, width: size.width, height: size.height) }
}

/// Identifies an item from frame to frame, so damage tracking can tell "moved" from "new".
public enum SceneItemID: Hashable, Sendable {
    case bubble(Int)
    /// Particle `index` of the spray numbered `spray`.
    case particle(spray: Int, index: Int)
    /// The marker under a finger, by touch slot and input device (`DemoPlayer.device` for
    /// ghosts): both in the id, so no slot number of one device can reach another's.
    case finger(_ slot: Int, device: Int = 0)
    /// Anything else (HUD texts, buttons, panels), by a name the game chooses.
    case ui(String)
}

/// One thing on screen: a stable id plus what to draw.
public struct SceneItem: Equatable, Sendable {
    public var id: SceneItemID
    public var shape: SceneShape

    public init(id: SceneItemID, shape: SceneShape) {
        self.id = id
        self.shape = shape
    }

    /// Every pixel the item may touch, antialiasing and snapping included.
    public var bounds: PixelRect { shape.bounds }
}

/// The kinds of things the renderer can draw.
public enum SceneShape: Equatable, Sendable {
    case bubble(BubbleShape)
    case particle(ParticleShape)
    case finger(FingerShape)
    case button(ButtonShape)
    case text(TextShape)
    case panel(PanelShape)
    /// The basket drag bubbles are dropped into.
    case goal(GoalShape)
    /// Lines through points (the touch-test screen's trails, grid and arrows).
    case polyline(PolylineShape)
    /// A heatmap's cells.
    case cells(CellGridShape)

    /// Conservative pixel bounds; the renderer never draws an item outside them.
    public var bounds: PixelRect {
        switch self {
        case .bubble(let s): s.bounds
        case .particle(let s): s.bounds
        case .finger(let s): s.bounds
        case .button(let s): s.bounds
        case .text(let s): s.bounds
        case .panel(let s): s.bounds
        case .goal(let s): s.bounds
        case .polyline(let s): s.bounds
        case .cells(let s): s.bounds
        }
    }
}

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
    /// (0.85 em a character; DejaVu Sans Bold digits are 0.7 em). The renderer clips text to it.
    public var estimatedWidth: Double {
        Double(string.unicodeScalars.count) * sizePx * 0.85 + sizePx * 0.5
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

/// An axis-aligned rectangle of whole pixels: x in `x..<maxX`, y in `y..<maxY`.
public struct PixelRect: Hashable, Sendable, CustomStringConvertible {
    public var x: Int
    public var y: Int
    public var width: Int
    public var height: Int

    public init(x: Int, y: Int, width: Int, height: Int) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    /// The smallest pixel rectangle covering `rect` (rounded outwards).
    public init(enclosing rect: Rect) {
        // Saturating: a shape far off screen (or a NaN that slipped through) must not trap.
        func edge(_ v: Double) -> Int { v.isNaN ? 0 : Int(min(max(v, -1e9), 1e9)) }
        let x0 = edge(rect.x.rounded(.down)), y0 = edge(rect.y.rounded(.down))
        let x1 = edge(rect.maxX.rounded(.up)), y1 = edge(rect.maxY.rounded(.up))
        self.init(x: x0, y: y0, width: max(0, x1 - x0), height: max(0, y1 - y0))
    }

    /// The square covering `center ± halfExtent`, rounded outwards.
    public init(around center: Vector2, halfExtent h: Double) {
        self.init(enclosing: Rect(x: center.x - h, y: center.y - h, width: 2 * h, height: 2 * h))
    }

    public var maxX: Int { x + width }
    public var maxY: Int { y + height }
    public var area: Int { width * height }
    public var isEmpty: Bool { width <= 0 || height <= 0 }

    public func intersects(_ o: PixelRect) -> Bool {
        x < o.maxX && o.x < maxX && y < o.maxY && o.y < maxY && !isEmpty && !o.isEmpty
    }

    /// The common part, or nil when they do not overlap.
    public func intersection(_ o: PixelRect) -> PixelRect? {
        let x0 = max(x, o.x), y0 = max(y, o.y), x1 = min(maxX, o.maxX), y1 = min(maxY, o.maxY)
        guard x1 > x0, y1 > y0 else { return nil }
        return PixelRect(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
    }

    /// The bounding box of both.
    public func union(_ o: PixelRect) -> PixelRect {
        if isEmpty { return o }
        if o.isEmpty { return self }
        let x0 = min(x, o.x), y0 = min(y, o.y)
        return PixelRect(x: x0, y: y0, width: max(maxX, o.maxX) - x0, height: max(maxY, o.maxY) - y0)
    }

    public func contains(_ o: PixelRect) -> Bool {
        o.x >= x && o.y >= y && o.maxX <= maxX && o.maxY <= maxY
    }

    public func outset(by d: Int) -> PixelRect {
        PixelRect(x: x - d, y: y - d, width: width + 2 * d, height: height + 2 * d)
    }

    public var description: String { "\(width)x\(height)+\(x)+\(y)" }
}
