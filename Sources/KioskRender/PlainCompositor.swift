internal import CCairo
import KioskCore

/// The second yardstick of `bubble-kiosk bench`: what a C programmer would write first. Every
/// frame, the background painted whole, then each of the scene's bubbles composited from its
/// cached sprite with plain cairo calls (`cairo_set_source_surface`, `cairo_paint`), at its
/// whole-pixel position, no clipping, no damage tracking; nothing else of the scene.
///
/// It shares a `SceneRenderer`'s frame and sprites (so it costs no memory of its own and
/// composites the very same pictures); `prepare` renders any sprite missing, outside the timing.
public final class PlainCompositor {
    private let renderer: SceneRenderer
    private let frame: Frame
    private let cr: OpaquePointer

    /// Draws into `renderer`'s frame (over its picture) from its sprite cache.
    public init(sharing renderer: SceneRenderer) {
        self.renderer = renderer
        frame = renderer.frame
        guard let cr = cairo_create(frame.surface) else { fatalError("cairo_create failed: out of memory") }
        self.cr = cr
    }

    deinit { cairo_destroy(cr) }

    /// Makes sure every bubble of `scene` has its sprite.
    public func prepare(_ scene: Scene) {
        for item in scene.items {
            if case .bubble(let b) = item.shape { _ = renderer.cache.sprite(SpriteCache.key(b)) }
        }
    }

    /// The background, then the bubbles; a bubble fading out is painted with its opacity.
    public func render(_ scene: Scene) {
        Painter.setColor(cr, scene.background.withAlpha(1))
        cairo_paint(cr)
        for item in scene.items {
            guard case .bubble(let b) = item.shape, b.opacity > 0, b.scale > 0 else { continue }
            let sprite = renderer.cache.sprite(SpriteCache.key(b))
            cairo_set_source_surface(cr, sprite.surface, (b.center.x - sprite.anchor.x).rounded(),
                                     (b.center.y - sprite.anchor.y).rounded())
            if b.opacity >= 1 { cairo_paint(cr) } else { cairo_paint_with_alpha(cr, b.opacity) }
        }
        cairo_surface_flush(frame.surface)
    }
}
