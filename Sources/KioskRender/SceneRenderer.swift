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

    /// - Parameter spriteBudgetBytes: memory for cached sprites before old ones are dropped.
    public init(size: PixelSize, spriteBudgetBytes: Int = 12 << 20) {
        frame = Frame(size: size)
        cr = Self.context(for: frame)
        cache = SpriteCache(byteBudget: spriteBudgetBytes)
    }

    deinit { cairo_destroy(cr) }

    /// Sprites currently cached, and their memory.
    public var spriteCount: Int { cache.count }
    public var spriteBytes: Int { cache.byteCount }
    /// Sprites rendered since the start: a steady animation renders few or none per frame.
    public var spritesRendered: Int { cache.misses }

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
            tracker.invalidate()
        }
        let damage = tracker.damage(for: scene)
        guard !damage.isEmpty else { return [] }
        for rect in damage {
            repaint(rect, of: scene, bounds: tracker.bounds)
        }
        cairo_surface_flush(frame.surface)
        cache.endFrame()
        return damage
    }

    private static func context(for frame: Frame) -> OpaquePointer {
        guard let cr = cairo_create(frame.surface) else {
            fatalError("cairo_create failed: out of memory")
        }
        Painter.configureText(cr)
        return cr
    }

    /// Background, then every item reaching into `rect`, each kept inside its own bounds so an
    /// item never leaves pixels behind that the damage tracker does not know about.
    private func repaint(_ rect: PixelRect, of scene: Scene, bounds: [PixelRect]) {
        cairo_set_operator(cr, CAIRO_OPERATOR_SOURCE)
        Painter.setColor(cr, scene.background.withAlpha(1))
        fillRect(rect)
        cairo_set_operator(cr, CAIRO_OPERATOR_OVER)
        // Test the precomputed bounds first: most items miss a small rectangle, and reading
        // an item's shape costs a copy of its payload.
        for (i, itemBounds) in bounds.enumerated() {
            guard let clip = itemBounds.intersection(rect) else { continue }
            let shape = scene.items[i].shape
            if itemBounds.area > Self.largestSprite, !shape.isPanel {
                drawWithPaths(shape, within: clip)
            } else if case .goal(let g) = shape {
                // On the bare background (where the game puts it) its sprite carries the
                // background too, so it is the very pixels its paths would draw.
                let bare = !bounds[..<i].contains { $0.intersects(itemBounds) }
                drawGoal(g, within: clip, background: bare ? scene.background : nil)
            } else {
                draw(shape, within: clip)
            }
        }
    }

    private func drawWithPaths(_ shape: SceneShape, within clip: PixelRect) {
        cairo_save(cr)
        cairo_rectangle(cr, Double(clip.x), Double(clip.y), Double(clip.width), Double(clip.height))
        cairo_clip(cr)
        Painter.shape(cr, shape)
        cairo_restore(cr)
    }

    private func draw(_ shape: SceneShape, within clip: PixelRect) {
        switch shape {
        case .bubble(let b):
            guard b.opacity > 0, b.scale > 0 else { return }
            if let s = b.shadow {
                // A lifted drag bubble: its soft shadow with paths (a gradient fill), under the sprite.
                cairo_save(cr)
                cairo_rectangle(cr, Double(clip.x), Double(clip.y), Double(clip.width), Double(clip.height))
                cairo_clip(cr)
                Painter.shadow(cr, center: s.center, radius: s.radius, blur: s.blur, opacity: s.opacity)
                cairo_restore(cr)
            }
            let sprite = cache.sprite(SpriteCache.key(b))
            let scale = b.drawnScale
            if scale == 1 {
                blit(sprite, anchoredAt: b.center, clip: clip, opacity: b.opacity)
            } else {
                blitScaled(sprite, centre: b.center, scale: scale, clip: clip, opacity: b.opacity)
            }
        case .particle(let p):
            guard p.opacity > 0 else { return }
            blit(cache.sprite(SpriteCache.key(p)), anchoredAt: p.center, clip: clip, opacity: p.opacity)
        case .finger(let f):
            blit(cache.sprite(SpriteCache.key(f)), anchoredAt: f.center, clip: clip, opacity: 1)
        case .button(let b):
            blit(cache.sprite(SpriteCache.key(b)), anchoredAt: Vector2(b.rect.x, b.rect.y), clip: clip, opacity: 1)
        case .text(let t):
            let sprite = cache.sprite(SpriteCache.key(t))
            let shift: Double = switch t.alignment {
            case .left: 0
            case .center: sprite.advance / 2
            case .right: sprite.advance
            }
            blit(sprite, anchoredAt: Vector2(t.position.x - shift, t.position.y), clip: clip, opacity: 1)
        case .panel(let p):
            drawPanel(p, clip: clip)
        case .goal(let g):
            drawGoal(g, within: clip, background: nil)
        case .polyline, .cells:
            // Different every time (a trail, a heatmap): paths, no sprite.
            drawWithPaths(shape, within: clip)
        }
    }

    /// The basket is repainted whenever a bubble or a finger passes over it: a sprite, like
    /// the bubbles, not its paths and clipped weave every time.
    private func drawGoal(_ g: GoalShape, within clip: PixelRect, background: RGBColor?) {
        guard let (key, anchor) = SpriteCache.key(g, background: background) else {
            return drawWithPaths(.goal(g), within: clip)
        }
        blit(cache.sprite(key), anchoredAt: anchor, clip: clip, opacity: 1)
    }

    private func fillRect(_ r: PixelRect) {
        cairo_rectangle(cr, Double(r.x), Double(r.y), Double(r.width), Double(r.height))
        cairo_fill(cr)
    }

    /// Composites a sprite at whole-pixel offsets, so pixman copies rows without resampling.
    private func blit(_ sprite: Sprite, anchoredAt point: Vector2, clip: PixelRect, opacity: Double) {
        let x0 = Int((point.x - sprite.anchor.x).rounded())
        let y0 = Int((point.y - sprite.anchor.y).rounded())
        let box = PixelRect(x: x0, y: y0, width: sprite.width, height: sprite.height)
        guard let r = box.intersection(clip) else { return }
        cairo_set_source_surface(cr, sprite.surface, Double(x0), Double(y0))
        if opacity >= 1 {
            fillRect(r)
        } else {
            cairo_save(cr)
            cairo_rectangle(cr, Double(r.x), Double(r.y), Double(r.width), Double(r.height))
            cairo_clip(cr)
            cairo_paint_with_alpha(cr, opacity)
            cairo_restore(cr)
        }
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

    private func drawPanel(_ p: PanelShape, clip: PixelRect) {
        let pixelAligned = p.cornerRadius <= 0 && p.rect == Rect(x: p.rect.x.rounded(), y: p.rect.y.rounded(),
                                                                  width: p.rect.width.rounded(), height: p.rect.height.rounded())
        if pixelAligned {
            // The common case (bars, overlays): a plain box fill, no path rasterising.
            Painter.setColor(cr, p.color)
            fillRect(clip)
            return
        }
        cairo_save(cr)
        cairo_rectangle(cr, Double(clip.x), Double(clip.y), Double(clip.width), Double(clip.height))
        cairo_clip(cr)
        Painter.panel(cr, p)
        cairo_restore(cr)
    }
}

extension SceneShape {
    /// Panels are plain fills, never sprites.
    fileprivate var isPanel: Bool {
        if case .panel = self { return true }
        return false
    }
}
