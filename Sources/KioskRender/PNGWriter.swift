internal import CCairo
import KioskCore

/// Why a PNG could not be written or read.
public struct PNGError: Error, CustomStringConvertible {
    public var path: String
    public var reason: String
    public var description: String { "\(path): \(reason)" }
}

/// Encodes PNGs in memory (screenshots, golden images, `--png`, the heatmap) with cairo's PNG
/// stream writer. The commands and the runtime hand the bytes to the one output-file writer
/// (KioskPlatform's `OutputFile`), which checks what is at the path first; cairo's own file
/// writer would open any path, a FIFO or a device included.
public enum PNGWriter {
    /// The frame as RGB PNG bytes.
    public static func pngBytes(_ frame: Frame) throws(PNGError) -> [UInt8] {
        cairo_surface_flush(frame.surface)
        return try pngBytes(frame.buffer)
    }

    /// A pixel buffer (a display's snapshot, say) as RGB PNG bytes.
    public static func pngBytes(_ buffer: PixelBuffer) throws(PNGError) -> [UInt8] {
        let surface = Frame.surface(over: buffer)
        defer { cairo_surface_destroy(surface) }
        let sink = PNGSink()
        let status = withExtendedLifetime(sink) {
            cairo_surface_write_to_png_stream(surface, { closure, data, length in
                guard let closure, let data else { return CAIRO_STATUS_WRITE_ERROR }
                let sink = Unmanaged<PNGSink>.fromOpaque(closure).takeUnretainedValue()
                sink.bytes.append(contentsOf: UnsafeBufferPointer(start: data, count: Int(length)))
                return CAIRO_STATUS_SUCCESS
            }, Unmanaged.passUnretained(sink).toOpaque())
        }
        guard status == CAIRO_STATUS_SUCCESS else {
            throw PNGError(path: "PNG", reason: String(cString: cairo_status_to_string(status)))
        }
        return sink.bytes
    }
}

/// Collects what cairo's PNG stream writer hands out.
private final class PNGSink {
    var bytes: [UInt8] = []
}
