internal import CCairo
import KioskCore

/// Why a PNG could not be written or read.
public struct PNGError: Error, CustomStringConvertible {
    public var path: String
    public var reason: String
    public var description: String { "\(path): \(reason)" }
}

/// Writes PNG files (screenshots, golden images, `--png`) through cairo's own PNG support.
public enum PNGWriter {
    /// Writes the frame as an RGB PNG.
    public static func writePNG(_ frame: Frame, to path: String) throws(PNGError) {
        cairo_surface_flush(frame.surface)
        try writePNG(frame.buffer, to: path)
    }

    /// Writes a pixel buffer (a display's snapshot, say) as an RGB PNG.
    public static func writePNG(_ buffer: PixelBuffer, to path: String) throws(PNGError) {
        let surface = Frame.surface(over: buffer)
        defer { cairo_surface_destroy(surface) }
        let status = cairo_surface_write_to_png(surface, path)
        guard status == CAIRO_STATUS_SUCCESS else {
            throw PNGError(path: path, reason: String(cString: cairo_status_to_string(status)))
        }
    }
}
