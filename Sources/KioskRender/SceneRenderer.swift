internal import CCairo
import KioskCore

/// Draws scenes into a `Frame`, repainting only what changed since the last scene.
///
/// Each damaged rectangle is refilled with the background and every item that reaches into it
/// is composited again, from sprites rendered once (bubbles with their digit or arrow, particles,
/// finger markers, buttons, texts). A frame where nothing changed draws nothing and returns no
/// damage, so the display backend copies nothing either.
public final class SceneRenderer {
    /// The picture so far; replaced when a scene of another size arrives.
    public private(set) var frame: Frame
    private var cr: OpaquePointer
    private var tracker = DamageTracker()
    let cache: SpriteCache
    /// Items covering more pixels than this (4 MB of sprite) are drawn with paths, uncached.
    static let largestSprite = 1 << 20
    /// Items with only the background under them are copied from sprites flattened onto it
    /// (off only for the test that checks it changes no pixel; the basket, whose sprite on the
    /// background is drawn straight from its paths, always is).
    var flattensBareItems = true
    /// The language of the scene being drawn, which shapes its texts and buttons.
    private var language = "en"
    /// Translucent panel colours over a background, blended once into the opaque colour.
    private var panelColors: [PanelOverBackground: RGBColor] = [:]

    /// Pictures scenes name in `.image` items (the operator's logo); a name without one draws nothing.
    private var pictures: [String: Picture] = [:]

    /// The sprite budget given to `init`; nil: `spriteBudget(for:)` of the frame's size.
    private let fixedSpriteBudget: Int?

    /// - Parameter spriteBudgetBytes: memory for cached sprites before the least recently used
    ///   are dropped; by default `spriteBudget(for:)` of the screen, whatever size it turns to.
    public init(size: PixelSize, spriteBudgetBytes: Int? = nil) {
        frame = Frame(size: size)
        cr = Self.context(for: frame)
        fixedSpriteBudget = spriteBudgetBytes
        cache = SpriteCache(byteBudget: spriteBudgetBytes ?? Self.spriteBudget(for: size))
    }

    /// Three quarters of the bytes of a frame of `size`, at least 2 MB.
    ///
    /// Sprites are sized in millimetres and bubbles never overlap, so what one screen shows
    /// cannot outgrow the screen: a full redraw of a default round at 1920x1080 draws from
    /// 1.3 MB of sprites (their flattened pixels included), a sixth of its 8.3 MB frame, and a
    /// screen of 400 bubbles (twice what `[game] bubbles` allows) from 4.8 MB, 58% of it.
    /// Three quarters of a frame keeps even that screen's sprites with room to spare, so a
    /// bubble on screen that no frame redrew for a while is still cached when one does; what
    /// goes is what left the screen: popped bubbles (a new one's diameter is random), old
    /// scores. At least 2 MB: a small panel's texts and buttons are about a large one's size.
    public static func spriteBudget(for size: PixelSize) -> Int {
        max(2 << 20, PixelBuffer.byteCount(size: size) / 4 * 3)
    }

    deinit { cairo_destroy(cr) }

    /// Told once per character for the whole process when no installed font has it, with a
    /// line naming the character and the font that stood in (the runtime logs it).
    public var onMissingGlyph: (String) -> Void {
        get { cache.typesetter.onMissingGlyph }
        set { cache.typesetter.onMissingGlyph = newValue }
    }

    /// Sprites currently cached, and their memory.
    public var spriteCount: Int { cache.count }
    public var spriteBytes: Int { cache.byteCount }
    /// The most memory cached sprites may take, but for those of the frame being drawn.
    public var spriteBudgetBytes: Int { cache.byteBudget }
    /// Memory of the sprites the last frame drawn used.
    public var spriteBytesLastFrame: Int { cache.lastFrameBytes }
    /// Sprites dropped since the start to stay within the budget.
    public var spritesDropped: Int { cache.evictions }
    /// Sprites rendered since the start: a steady animation renders few or none per frame.
    public var spritesRendered: Int { cache.misses }

    /// Gives `.image` items named `name` their picture (nil: none), and redraws.
    public func setPicture(_ picture: Picture?, named name: String) {
        pictures[name] = picture
        tracker.invalidate()
    }

    /// Makes the next `render` repaint the whole screen (the frame's contents were lost or
    /// replaced, say after a VT switch).
    public func invalidate() { tracker.invalidate() }

    /// Brings the frame up to date with `scene` and returns the rectangles that changed,
    /// clipped to the screen: [] when nothing did (and then no pixel was touched).
    @discardableResult
    public func render(_ scene: Scene) -> [PixelRect] {
        guard scene.size.width > 0, scene.size.height > 0 else { return [] }
        if scene.size != frame.size {
            cairo_destroy(cr)
            frame = Frame(size: scene.size)
            cr = Self.context(for: frame)
            cache.byteBudget = fixedSpriteBudget ?? Self.spriteBudget(for: scene.size)
            tracker.invalidate()
        }
        if scene.language != language {
            // Every text is shaped anew: equal items no longer draw the same pixels.
            language = scene.language
            tracker.invalidate()
        }
        let damage = tracker.damage(for: scene)
        guard !damage.isEmpty else { return [] }
        var stack: Stack?  // worked out once a frame, when first needed
        for rect in damage {
            repaint(rect, of: scene, bounds: tracker.bounds, stack: &stack)
        }
        // Pixman wrote behind cairo's back: whatever cairo keeps of the surface is stale.
        cairo_surface_mark_dirty(frame.surface)
        cache.endFrame()
        return damage
    }

    private static func context(for frame: Frame) -> OpaquePointer {
        guard let cr = cairo_create(frame.surface) else {
            fatalError("cairo_create failed: out of memory")
        }
        return cr
    }

    /// Background, then every item reaching into `rect`, each kept inside its own bounds so an
    /// item never leaves pixels behind that the damage tracker does not know about.
    ///
    /// Items with nothing but the background under them are copied opaque (their sprite
    /// flattened onto the background, a bar's blended colour) rather than blended.
    private func repaint(_ rect: PixelRect, of scene: Scene, bounds: [PixelRect], stack: inout Stack?) {
        let background = scene.background.withAlpha(1)
        frame.fill(rect, with: background)
        // Test the precomputed bounds first: most items miss a small rectangle, and reading
        // an item's shape costs a copy of its payload.
        for (i, itemBounds) in bounds.enumerated() {
            guard let clip = itemBounds.intersection(rect) else { continue }
            let shape = scene.items[i].shape
            if itemBounds.area > Self.largestSprite, !shape.isPanel {
                drawWithPaths(shape, within: clip)
                continue
            }
            var onBackground: RGBColor?
            if shape.isGoal || (flattensBareItems && shape.canBeFlattened) {
                if stack == nil { stack = Stack(bounds) }
                if isBare(i, of: scene, bounds: bounds, stack: &stack!) { onBackground = background }
            }
            if onBackground != nil, let placed = placedSprite(shape, onBackground: onBackground), placed.replacing {
                blit(placed, within: clip)
            } else if onBackground != nil, case .panel(let p) = shape, p.isPixelAligned, p.color.a < 1 {
                frame.fill(clip, with: panelColor(p.color, over: background))
            } else {
                draw(shape, within: clip)
            }
        }
    }

    /// Whether item `i` has nothing but the background under what it covers: nothing below
    /// reaches into its box, or what does lies beside its sprite's rows (bubbles never
    /// overlap, but their boxes do at the corners when they are packed close).
    private func isBare(_ i: Int, of scene: Scene, bounds: [PixelRect], stack: inout Stack) -> Bool {
        switch stack.bare[i] {
        case .yes: return true
        case .no: return false
        case .unknown: break
        }
        var bare = true
        let below = stack.overlaps.below(i)
        if !below.isEmpty {
            // Copied whole (the basket, a bar) or drawn otherwise: its box is what it covers,
            // and that box has something in it.
            let upper = coverage(of: scene.items[i].shape, bounds: bounds[i])
            bare = upper.sprite != nil
                && !below.contains { upper.meets(coverage(of: scene.items[$0].shape, bounds: bounds[$0])) }
        }
        stack.bare[i] = bare ? .yes : .no
        return bare
    }

    /// The pixels an item can change: its sprite's rows where it is drawn from one sprite at
    /// its place, else its whole box (`bounds`).
    private func coverage(of shape: SceneShape, bounds: PixelRect) -> Coverage {
        switch shape {
        case .bubble(let b) where b.shadow.map({ $0.opacity > 0 }) ?? false:
            return Coverage(box: bounds, sprite: nil)  // the shadow reaches out of the sprite
        case .bubble, .particle, .finger, .button, .text:
            guard bounds.area <= Self.largestSprite, let placed = placedSprite(shape, onBackground: nil) else { break }
            return Coverage(box: placed.box, sprite: placed.sprite)
        case .goal, .panel, .polyline, .cells, .image:
            break
        }
        return Coverage(box: bounds, sprite: nil)
    }

    private func drawWithPaths(_ shape: SceneShape, within clip: PixelRect) {
        cairo_save(cr)
        cairo_rectangle(cr, Double(clip.x), Double(clip.y), Double(clip.width), Double(clip.height))
        cairo_clip(cr)
        Painter.shape(cr, shape, typesetter: cache.typesetter, language: language)
        cairo_restore(cr)
    }

    /// An item over other items (or one that cannot be copied opaque).
    private func draw(_ shape: SceneShape, within clip: PixelRect) {
        switch shape {
        case .bubble(let b):
            guard b.opacity > 0, b.scale > 0 else { return }
            if let s = b.shadow, s.opacity > 0 {
                // A lifted drag bubble: its soft shadow from a sprite, under the bubble's.
                let shadow = cache.sprite(SpriteCache.shadowKey(radius: s.radius, blur: s.blur))
                blit(PlacedSprite(shadow, anchoredAt: s.center, opacity: min(s.opacity, 1), replacing: false), within: clip)
            }
            let scale = b.drawnScale
            if scale != 1 {
                blitScaled(cache.sprite(SpriteCache.key(b)), centre: b.center, scale: scale, clip: clip, opacity: b.opacity)
                return
            }
        case .panel(let p):
            return drawPanel(p, clip: clip)
        case .polyline, .cells:
            // Different every time (a trail, a heatmap): paths, no sprite.
            return drawWithPaths(shape, within: clip)
        case .image(let i):
            return drawPicture(i, within: clip)
        case .particle, .finger, .button, .text, .goal:
            break
        }
        if let placed = placedSprite(shape, onBackground: nil) {
            blit(placed, within: clip)
        } else if case .goal = shape {
            drawWithPaths(shape, within: clip)  // a rect that is not finite: paths cope
        }
    }

    /// The sprite a shape is drawn from and where; on the bare background (`onBackground`) at
    /// full opacity, with its pixels flattened onto it, copied rather than blended. The basket's
    /// sprite over the background is drawn from its paths straight onto it, so it is the very
    /// pixels its paths would draw there. Nil for shapes without one at this size.
    private func placedSprite(_ shape: SceneShape, onBackground background: RGBColor?) -> PlacedSprite? {
        // The sprite, and its pixels flattened onto the bare background when it goes there whole.
        func chosen(_ key: SpriteKey, opacity: Double) -> (sprite: Sprite, flat: Sprite.Flattened?) {
            if let background, opacity >= 1 { return cache.flattened(key, onto: background) }
            return (cache.sprite(key), nil)
        }
        func placed(_ key: SpriteKey, _ point: Vector2, opacity: Double = 1) -> PlacedSprite? {
            guard opacity > 0 else { return nil }
            let c = chosen(key, opacity: opacity)
            return PlacedSprite(c.sprite, anchoredAt: point, opacity: c.flat == nil ? opacity : 1, flat: c.flat)
        }
        switch shape {
        case .bubble(let b):
            guard b.scale > 0, b.drawnScale == 1 else { return nil }
            return placed(SpriteCache.key(b), b.center, opacity: b.opacity)
        case .particle(let p):
            return placed(SpriteCache.key(p), p.center, opacity: p.opacity)
        case .finger(let f):
            return placed(SpriteCache.key(f), f.center)
        case .button(let b):
            return placed(SpriteCache.key(b, language: language), Vector2(b.rect.x, b.rect.y))
        case .text(let t):
            let c = chosen(SpriteCache.key(t, language: language), opacity: 1)
            let shift: Double = switch t.alignment {
            case .left: 0
            case .center: c.sprite.advance / 2
            case .right: c.sprite.advance
            }
            return PlacedSprite(c.sprite, anchoredAt: Vector2(t.position.x - shift, t.position.y), opacity: 1, flat: c.flat)
        case .goal(let g):
            guard let (key, anchor) = SpriteCache.key(g, background: background) else { return nil }
            return PlacedSprite(cache.sprite(key), anchoredAt: anchor, opacity: 1, replacing: background != nil)
        case .panel, .polyline, .cells, .image:
            return nil
        }
    }

    /// A picture scaled to its rectangle's whole pixels, blended over what is under it.
    private func drawPicture(_ shape: ImageShape, within clip: PixelRect) {
        let r = shape.rect
        guard let picture = pictures[shape.name], r.x.isFinite, r.y.isFinite,
              r.width >= 1, r.height >= 1, r.width <= 8192, r.height <= 8192 else { return }
        let surface = picture.scaled(to: PixelSize(width: Int(r.width.rounded()), height: Int(r.height.rounded())))
        cairo_save(cr)
        cairo_rectangle(cr, Double(clip.x), Double(clip.y), Double(clip.width), Double(clip.height))
        cairo_clip(cr)
        cairo_set_source_surface(cr, surface, r.x.rounded(), r.y.rounded())
        cairo_paint(cr)
        cairo_restore(cr)
    }

    private func fillRect(_ r: PixelRect) {
        cairo_rectangle(cr, Double(r.x), Double(r.y), Double(r.width), Double(r.height))
        cairo_fill(cr)
    }

    /// Composites a placed sprite, at whole-pixel offsets so pixman copies rows without resampling.
    private func blit(_ placed: PlacedSprite, within clip: PixelRect) {
        guard let r = placed.box.intersection(clip), let image = placed.sprite.image else { return }
        if let flat = placed.flat {
            frame.copy(placed.sprite, flattened: flat, origin: (placed.box.x, placed.box.y), within: r)
            return
        }
        Pixman.composite(image, origin: (placed.box.x, placed.box.y), onto: frame.image, rect: r,
                         opacity: placed.opacity, replacing: placed.replacing)
    }

    /// Composites a sprite scaled about its anchor: only popping bubbles, for a few frames.
    private func blitScaled(_ sprite: Sprite, centre: Vector2, scale: Double, clip: PixelRect, opacity: Double) {
        guard let pattern = cairo_pattern_create_for_surface(sprite.surface) else { return }
        defer { cairo_pattern_destroy(pattern) }
        // Maps frame pixels to sprite pixels: the inverse of "scale about the anchor".
        var m = cairo_matrix_t()
        cairo_matrix_init(&m, 1 / scale, 0, 0, 1 / scale,
                          sprite.anchor.x - centre.x / scale, sprite.anchor.y - centre.y / scale)
        cairo_pattern_set_matrix(pattern, &m)
        cairo_pattern_set_filter(pattern, CAIRO_FILTER_BILINEAR)
        cairo_save(cr)
        cairo_rectangle(cr, Double(clip.x), Double(clip.y), Double(clip.width), Double(clip.height))
        cairo_clip(cr)
        cairo_set_source(cr, pattern)
        cairo_paint_with_alpha(cr, min(opacity, 1))
        cairo_restore(cr)
    }

    /// A panel, but a translucent one on the bare background (filled in `repaint`).
    private func drawPanel(_ p: PanelShape, clip: PixelRect) {
        if p.isPixelAligned {
            // The common case (bars, overlays): a plain box fill, no path rasterising.
            if p.color.a >= 1 {
                frame.fill(clip, with: p.color)
            } else {
                Painter.setColor(cr, p.color)
                fillRect(clip)
            }
            return
        }
        cairo_save(cr)
        cairo_rectangle(cr, Double(clip.x), Double(clip.y), Double(clip.width), Double(clip.height))
        cairo_clip(cr)
        Painter.panel(cr, p)
        cairo_restore(cr)
    }

    /// `color` blended over `background` by cairo itself, on one pixel of the frame's format,
    /// so the fill is exactly what blending it over the background gives.
    private func panelColor(_ color: RGBColor, over background: RGBColor) -> RGBColor {
        let pair = PanelOverBackground(color: color, background: background)
        if let known = panelColors[pair] { return known }
        let blended = Self.blend(color, over: background)
        if panelColors.count > 64 { panelColors.removeAll() }  // overlays come and go; keep it small
        panelColors[pair] = blended
        return blended
    }
}

extension SceneRenderer {
    /// One pixel of the frame's format filled with `background`, `color` painted over it,
    /// read back as an opaque colour (an 8-bit channel value v survives v/255 exactly).
    fileprivate static func blend(_ color: RGBColor, over background: RGBColor) -> RGBColor {
        let pixel = Frame(size: PixelSize(width: 1, height: 1))
        if let cr = cairo_create(pixel.surface) {
            cairo_set_operator(cr, CAIRO_OPERATOR_SOURCE)
            Painter.setColor(cr, background.withAlpha(1))
            cairo_paint(cr)
            cairo_set_operator(cr, CAIRO_OPERATOR_OVER)
            Painter.setColor(cr, color)
            cairo_paint(cr)
            cairo_destroy(cr)
        }
        cairo_surface_flush(pixel.surface)
        let xrgb = pixel[0, 0]
        func channel(_ shift: UInt32) -> Double { Double((xrgb >> shift) & 0xFF) / 255 }
        return RGBColor(r: channel(16), g: channel(8), b: channel(0))
    }
}

/// The scene's items stacked in drawing order, for telling which lie on the bare background.
private struct Stack {
    enum Bare { case unknown, yes, no }

    let overlaps: StackOverlaps
    /// Worked out for an item when it is first drawn in the frame.
    var bare: [Bare]

    init(_ bounds: [PixelRect]) {
        let overlaps = StackOverlaps(bounds)
        self.overlaps = overlaps
        bare = bounds.indices.map { overlaps.nothingBelow($0) ? .yes : .unknown }
    }
}

/// The pixels an item can change: its sprite's row spans at `box`, or all of `box`.
private struct Coverage {
    let box: PixelRect
    let sprite: Sprite?

    /// Whether some pixel lies in both.
    func meets(_ other: Coverage) -> Bool {
        guard let shared = box.intersection(other.box) else { return false }
        if sprite == nil, other.sprite == nil { return true }
        for y in shared.y..<shared.maxY {
            let a = span(y), b = other.span(y)
            if max(a.lowerBound, b.lowerBound) < min(a.upperBound, b.upperBound) { return true }
        }
        return false
    }

    /// Frame columns covered in frame row `y` (within the box).
    private func span(_ y: Int) -> Range<Int> {
        guard let sprite else { return box.x..<box.maxX }
        let s = sprite.rows[y - box.y]
        return box.x + Int(s.start)..<box.x + Int(s.end)
    }
}

/// A sprite at its whole-pixel place in the frame, and how it goes on.
private struct PlacedSprite {
    let sprite: Sprite
    let box: PixelRect
    let opacity: Double
    /// Copied over what is there rather than blended: an opaque sprite (the basket over the
    /// background), or one with `flat`, its pixels flattened onto the bare background.
    let replacing: Bool
    let flat: Sprite.Flattened?

    init(_ sprite: Sprite, anchoredAt point: Vector2, opacity: Double, replacing: Bool = false,
         flat: Sprite.Flattened? = nil) {
        self.sprite = sprite
        box = PixelRect(x: Int((point.x - sprite.anchor.x).rounded()), y: Int((point.y - sprite.anchor.y).rounded()),
                        width: sprite.width, height: sprite.height)
        self.opacity = opacity
        self.replacing = replacing || flat != nil
        self.flat = flat
    }
}

private struct PanelOverBackground: Hashable {
    let color: RGBColor
    let background: RGBColor
}

extension PanelShape {
    /// Square corners on whole pixels: a plain box fill, no path rasterising.
    fileprivate var isPixelAligned: Bool {
        cornerRadius <= 0 && rect == Rect(x: rect.x.rounded(), y: rect.y.rounded(),
                                          width: rect.width.rounded(), height: rect.height.rounded())
    }
}

extension SceneShape {
    /// Panels are plain fills, never sprites.
    fileprivate var isPanel: Bool {
        if case .panel = self { return true }
        return false
    }

    fileprivate var isGoal: Bool {
        if case .goal = self { return true }
        return false
    }

    /// Drawn over nothing but the background, it can be drawn without blending: a sprite at
    /// full opacity, a panel, the basket. Not a bubble with a shadow (drawn under its sprite),
    /// a scaled or fading one, nor paths.
    fileprivate var canBeFlattened: Bool {
        switch self {
        case .bubble(let b): b.shadow == nil && b.opacity >= 1 && b.drawnScale == 1
        case .particle(let p): p.opacity >= 1
        case .finger, .button, .text, .panel, .goal: true
        case .polyline, .cells, .image: false
        }
    }
}
