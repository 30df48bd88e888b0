internal import CCairo
internal import CPixman
import KioskCore

/// A `PixelBuffer` with a cairo image surface over it: what the renderer draws into.
///
/// Drawing happens here, never in display memory (which is slow to read back); a display
/// copies the damaged rectangles out of `buffer`.
public final class Frame {
    /// The pixels; displays see only this.
    public let buffer: PixelBuffer
    let surface: OpaquePointer
    /// The same memory for pixman (the renderer's sprite copies and fills).
    let image: OpaquePointer

    /// A frame of `size`, filled with black.
    public init(size: PixelSize) {
        let w = max(size.width, 1)
        let stride = Int(cairo_format_stride_for_width(CAIRO_FORMAT_RGB24, Int32(w)))
        buffer = PixelBuffer(size: size, stride: stride)
        surface = Self.surface(over: buffer)
        guard let image = Pixman.image(over: surface) else { fatalError("pixman_image_create_bits failed: out of memory") }
        self.image = image
    }

    deinit {
        pixman_image_unref(image)
        // Finish first: a cairo context that still holds the surface then fails softly
        // instead of writing into freed memory.
        cairo_surface_finish(surface)
        cairo_surface_destroy(surface)
    }

    /// A cairo surface drawing straight into `buffer`'s memory (which must outlive it).
    static func surface(over buffer: PixelBuffer) -> OpaquePointer {
        cairo_image_surface_create_for_data(
            buffer.pixels.assumingMemoryBound(to: UInt8.self), CAIRO_FORMAT_RGB24,
            Int32(buffer.width), Int32(buffer.height), Int32(buffer.stride))
    }

    public var width: Int { buffer.width }
    public var height: Int { buffer.height }
    public var stride: Int { buffer.stride }
    public var pixels: UnsafeMutableRawPointer { buffer.pixels }
    public var size: PixelSize { buffer.size }
    public var byteCount: Int { buffer.byteCount }
    public var bounds: PixelRect { buffer.bounds }

    /// The pixel at (x, y) as `0x00RRGGBB`.
    public subscript(x: Int, y: Int) -> UInt32 { buffer[x, y] }

    /// Fills the whole frame with one opaque colour.
    public func fill(_ color: RGBColor) {
        buffer.fill(color)
        cairo_surface_mark_dirty(surface)
    }

    /// Copies `rect` into memory of the same layout, at the same position.
    public func copy(_ rect: PixelRect, to destination: UnsafeMutableRawPointer, destinationStride: Int) {
        buffer.copy(rect, to: destination, destinationStride: destinationStride)
    }

    /// Copies the whole frame into a buffer with the same stride (the memcpy yardstick).
    public func copyAll(to destination: UnsafeMutableRawPointer) { buffer.copyAll(to: destination) }
}
