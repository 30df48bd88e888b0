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
    /// The language of its texts, a BCP 47 tag ("en", "de", "ar", "zh-cn"): the renderer shapes
    /// them for it (fallback fonts, letter forms) and caches their sprites per language.
    public var language: String

    public init(size: PixelSize, pxPerMM: Double, background: RGBColor = .kioskBackground, items: [SceneItem] = [],
                language: String = "en") {
        self.size = size
        self.pxPerMM = pxPerMM
        self.background = background
        self.items = items
        self.language = language
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
    /// A picture the renderer was given by name (the operator's logo), scaled into a rectangle.
    case image(ImageShape)

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
        case .image(let s): s.bounds
        }
    }
}
