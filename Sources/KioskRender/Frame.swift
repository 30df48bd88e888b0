import CCairo
import KioskCore

/// An XRGB8888 picture in ordinary memory, the layout of a DRM dumb buffer, with a cairo
/// image surface over it.
///
/// Drawing happens here, never in display memory (which is slow to read back); a display
/// backend copies the damaged rectangles out with `copy(_:to:destinationStride:)`.
public final class Frame {
    public let width: Int
    public let height: Int
    /// Bytes from one row to the next (cairo's stride for the width, a multiple of 4).
    public let stride: Int
    /// The pixels, `stride * height` bytes, each row `width` little-endian `0x00RRGGBB` words.
    public let pixels: UnsafeMutableRawPointer
    let surface: OpaquePointer

    /// A frame of `size`, filled with black.
    public init(size: PixelSize) {
        width = max(size.width, 1)
        height = max(size.height, 1)
        stride = Int(cairo_format_stride_for_width(CAIRO_FORMAT_RGB24, Int32(width)))
        // Cache-line alignment helps the SIMD fills and copies in pixman and memcpy.
        pixels = UnsafeMutableRawPointer.allocate(byteCount: stride * height, alignment: 64)
        pixels.initializeMemory(as: UInt8.self, repeating: 0, count: stride * height)
        surface = cairo_image_surface_create_for_data(
            pixels.assumingMemoryBound(to: UInt8.self), CAIRO_FORMAT_RGB24,
            Int32(width), Int32(height), Int32(stride))
    }

    deinit {
        // Finish first: a cairo context that still holds the surface then fails softly
        // instead of writing into freed memory.
        cairo_surface_finish(surface)
        cairo_surface_destroy(surface)
        pixels.deallocate()
    }

    public var size: PixelSize { PixelSize(width: width, height: height) }
    public var byteCount: Int { stride * height }
    public var bounds: PixelRect { PixelRect(x: 0, y: 0, width: width, height: height) }

    /// The pixel at (x, y) as `0x00RRGGBB` (the unused top byte masked off).
    public subscript(x: Int, y: Int) -> UInt32 {
        precondition(x >= 0 && x < width && y >= 0 && y < height, "pixel (\(x), \(y)) outside \(size)")
        return pixels.load(fromByteOffset: y * stride + x * 4, as: UInt32.self) & 0x00FF_FFFF
    }

    /// Fills the whole frame with one opaque colour.
    public func fill(_ color: RGBColor) {
        let value = color.xrgb
        for y in 0..<height {
            (pixels + y * stride).initializeMemory(as: UInt32.self, repeating: value, count: width)
        }
        cairo_surface_mark_dirty(surface)
    }

    /// Copies `rect` (clipped to the frame) into a buffer of the same pixel format, at the same
    /// position: what a display backend does with each damage rectangle.
    public func copy(_ rect: PixelRect, to destination: UnsafeMutableRawPointer, destinationStride: Int) {
        guard let r = rect.intersection(bounds) else { return }
        let rowBytes = r.width * 4
        for y in r.y..<r.maxY {
            let offset = r.x * 4
            (destination + y * destinationStride + offset)
                .copyMemory(from: pixels + y * stride + offset, byteCount: rowBytes)
        }
    }

    /// Copies the whole frame into a buffer with the same stride (the memcpy yardstick).
    public func copyAll(to destination: UnsafeMutableRawPointer) {
        destination.copyMemory(from: pixels, byteCount: byteCount)
    }
}

/// Why a PNG could not be written or read.
public struct PNGError: Error, CustomStringConvertible {
    public var path: String
    public var reason: String
    public var description: String { "\(path): \(reason)" }
}

/// PNG files for golden images and screenshots, through cairo's own PNG support.
public enum PNGWriter {
    /// Writes the frame as an RGB PNG.
    public static func writePNG(_ frame: Frame, to path: String) throws(PNGError) {
        cairo_surface_flush(frame.surface)
        // The pixels may have been written directly (a display copying damage into a frame).
        cairo_surface_mark_dirty(frame.surface)
        let status = cairo_surface_write_to_png(frame.surface, path)
        guard status == CAIRO_STATUS_SUCCESS else {
            throw PNGError(path: path, reason: String(cString: cairo_status_to_string(status)))
        }
    }

    /// Reads a PNG into a new frame; transparent pixels come out over black.
    public static func loadPNG(_ path: String) throws(PNGError) -> Frame {
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
