internal import CCairo
import KioskCore

/// Scales the game's picture onto a mirrored screen (`MirrorFit`), through cairo (pixman's
/// bilinear filter), one damaged rectangle at a time.
public enum MirrorScaler {
    /// Paints `rects` of `picture` (game coordinates) into `destination`, an XRGB8888 buffer of
    /// `fit.target` with rows `destinationStride` bytes apart. The bars outside `fit.placed` are
    /// not touched: a fresh scanout buffer is black there.
    public static func paint(_ picture: PixelBuffer, _ rects: [PixelRect], fit: MirrorFit,
                             into destination: UnsafeMutableRawPointer, destinationStride: Int) {
        let targets = rects.compactMap(fit.targetRect(of:))
        guard !targets.isEmpty, fit.scale > 0 else { return }
        let source = cairo_image_surface_create_for_data(
            picture.pixels.assumingMemoryBound(to: UInt8.self), CAIRO_FORMAT_RGB24,
            Int32(picture.width), Int32(picture.height), Int32(picture.stride))
        let target = cairo_image_surface_create_for_data(
            destination.assumingMemoryBound(to: UInt8.self), CAIRO_FORMAT_RGB24,
            Int32(fit.target.width), Int32(fit.target.height), Int32(destinationStride))
        let cr = cairo_create(target)
        defer {
            cairo_destroy(cr)
            cairo_surface_finish(target)
            cairo_surface_destroy(target)
            cairo_surface_destroy(source)
        }
        for rect in targets {
            cairo_rectangle(cr, Double(rect.x), Double(rect.y), Double(rect.width), Double(rect.height))
        }
        cairo_clip(cr)
        cairo_translate(cr, Double(fit.placed.x), Double(fit.placed.y))
        cairo_scale(cr, fit.scale, fit.scale)
        cairo_set_source_surface(cr, source, 0, 0)
        // Bilinear: GOOD would switch to a convolution filter when shrinking, far slower per frame.
        cairo_pattern_set_filter(cairo_get_source(cr), CAIRO_FILTER_BILINEAR)
        // The edges sample the picture's own border, not black beyond it.
        cairo_pattern_set_extend(cairo_get_source(cr), CAIRO_EXTEND_PAD)
        cairo_set_operator(cr, CAIRO_OPERATOR_SOURCE)
        cairo_paint(cr)
    }
}
