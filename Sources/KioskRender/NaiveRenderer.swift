internal import CCairo
import KioskCore

/// The yardstick renderer: every frame, the whole screen, every shape drawn with cairo paths.
///
/// It is what a first version usually looks like, kept to measure the sprite renderer against
/// in `bubble-kiosk bench` and to check in tests that both draw the same picture.
public final class NaiveRenderer {
    public let frame: Frame
    private let cr: OpaquePointer
    private let typesetter = Typesetter()

    /// Draws into its own frame.
    public convenience init(size: PixelSize) {
        self.init(frame: Frame(size: size))
    }

    /// Draws into `frame` (the benchmark reuses one frame to keep memory down).
    public init(frame: Frame) {
        self.frame = frame
        guard let cr = cairo_create(frame.surface) else { fatalError("cairo_create failed: out of memory") }
        self.cr = cr
    }

    deinit { cairo_destroy(cr) }

    /// Redraws everything; scenes of another size than the frame are drawn clipped.
    public func render(_ scene: Scene) {
        Painter.setColor(cr, scene.background.withAlpha(1))
        cairo_paint(cr)
        for item in scene.items {
            Painter.shape(cr, item.shape, typesetter: typesetter, language: scene.language)
        }
        cairo_surface_flush(frame.surface)
    }
}
