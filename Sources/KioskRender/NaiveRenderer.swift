import CCairo
import KioskCore

/// The yardstick renderer: every frame, the whole screen, every shape drawn with cairo paths.
///
/// It is what a first version usually looks like, kept to measure the sprite renderer against
/// in `bubble-kiosk bench` and to check in tests that both draw the same picture.
public final class NaiveRenderer {
    public let frame: Frame
    private let cr: OpaquePointer

    /// Draws into its own frame.
    public convenience init(size: PixelSize) {
        self.init(frame: Frame(size: size))
    }

    /// Draws into `frame` (the benchmark reuses one frame to keep memory down).
    public init(frame: Frame) {
        self.frame = frame
        guard let cr = cairo_create(frame.surface) else { fatalError("cairo_create failed: out of memory") }
        self.cr = cr
        Painter.configureText(cr)
    }

    deinit { cairo_destroy(cr) }

    /// Redraws everything; scenes of another size than the frame are drawn clipped.
    public func render(_ scene: Scene) {
        Painter.setColor(cr, scene.background.withAlpha(1))
        cairo_paint(cr)
        for item in scene.items {
            draw(item.shape)
        }
        cairo_surface_flush(frame.surface)
    }

    private func draw(_ shape: SceneShape) {
        cairo_save(cr)
        defer { cairo_restore(cr) }
        switch shape {
        case .bubble(let b):
            guard b.opacity > 0, b.scale > 0 else { return }
            if b.opacity < 1 {
                // Else the group below is a whole-screen surface: 8 MB at 1080p, every frame.
                let r = b.bounds
                cairo_rectangle(cr, Double(r.x), Double(r.y), Double(r.width), Double(r.height))
                cairo_clip(cr)
            }
            cairo_translate(cr, b.center.x, b.center.y)
            cairo_scale(cr, b.scale, b.scale)
            withOpacity(b.opacity) {
                Painter.bubble(cr, diameter: b.diameter, color: b.color, content: b.content)
            }
        case .particle(let p):
            guard p.opacity > 0 else { return }
            cairo_translate(cr, p.center.x, p.center.y)
            Painter.particle(cr, radius: p.radius, color: p.color.withAlpha(p.color.a * p.opacity))
        case .finger(let f):
            cairo_translate(cr, f.center.x, f.center.y)
            Painter.finger(cr, radius: f.radius, ghost: f.ghost)
        case .button(let b):
            cairo_translate(cr, b.rect.x, b.rect.y)
            Painter.button(cr, width: b.rect.width, height: b.rect.height, title: b.title,
                           color: b.color, pressed: b.pressed)
        case .text(let t):
            Painter.selectFont(cr, size: t.sizePx, bold: t.bold)
            let advance = Painter.textExtents(cr, t.string).x_advance
            let shift: Double = switch t.alignment {
            case .left: 0
            case .center: advance / 2
            case .right: advance
            }
            cairo_translate(cr, t.position.x - shift, t.position.y)
            Painter.text(cr, t.string, size: t.sizePx, color: t.color, bold: t.bold)
        case .panel(let p):
            Painter.panel(cr, p)
        }
    }

    /// Draws `body` at `opacity` as a whole (through a group), so overlapping parts do not
    /// show through each other.
    private func withOpacity(_ opacity: Double, _ body: () -> Void) {
        guard opacity < 1 else { return body() }
        cairo_push_group(cr)
        body()
        cairo_pop_group_to_source(cr)
        cairo_paint_with_alpha(cr, opacity)
    }
}
