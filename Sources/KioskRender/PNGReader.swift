internal import CCairo
import KioskCore

/// Reads PNG files (golden images, screenshots in tests) through cairo's own PNG support.
public enum PNGReader {
    /// Reads a PNG into a new frame; transparent pixels come out over black.
    public static func readPNG(_ path: String) throws(PNGError) -> Frame {
        guard let image = cairo_image_surface_create_from_png(path) else {
            throw PNGError(path: path, reason: "cairo returned no surface")
        }
        defer { cairo_surface_destroy(image) }
        let status = cairo_surface_status(image)
        guard status == CAIRO_STATUS_SUCCESS else {
            throw PNGError(path: path, reason: String(cString: cairo_status_to_string(status)))
        }
        let size = PixelSize(width: Int(cairo_image_surface_get_width(image)),
                             height: Int(cairo_image_surface_get_height(image)))
        let frame = Frame(size: size)
        guard let cr = cairo_create(frame.surface) else { return frame }
        cairo_set_source_surface(cr, image, 0, 0)
        cairo_paint(cr)
        cairo_destroy(cr)
        cairo_surface_flush(frame.surface)
        return frame
    }
}
