/// An XRGB8888 picture in ordinary memory: what the renderer draws into and displays copy from.
///
/// Rows are `stride` bytes apart, each pixel a little-endian `0x00RRGGBB` word: the layout of a
/// DRM dumb buffer, of an fbdev framebuffer at 32 bits and of a cairo RGB24 surface, so every
/// layer can share the same memory without converting.
public final class PixelBuffer {
    public let width: Int
    public let height: Int
    /// Bytes from one row to the next (a multiple of 4, at least `width * 4`).
    public let stride: Int
    /// The pixels, `stride * height` bytes.
    public let pixels: UnsafeMutableRawPointer

    /// Gives adopted memory back; nil for memory the buffer allocated itself.
    private let release: ((UnsafeMutableRawPointer, Int) -> Void)?

    /// A black buffer of `size` (at least 1x1); `stride` defaults to `width * 4` and is rounded
    /// up to a multiple of 4.
    public init(size: PixelSize, stride: Int? = nil) {
        (width, height, self.stride) = Self.layout(size, stride)
        // Cache-line alignment helps the SIMD fills and copies in pixman and memcpy.
        pixels = UnsafeMutableRawPointer.allocate(byteCount: self.stride * height, alignment: 64)
        pixels.initializeMemory(as: UInt8.self, repeating: 0, count: self.stride * height)
        release = nil
    }

    /// A black buffer over memory the caller has allocated, `byteCount(size:stride:)` bytes
    /// already zero (fresh pages from the system, which need no clearing); `release` gives it
    /// back when the buffer goes.
    public init(size: PixelSize, stride: Int? = nil, zeroedPixels: UnsafeMutableRawPointer,
                release: @escaping (UnsafeMutableRawPointer, Int) -> Void) {
        (width, height, self.stride) = Self.layout(size, stride)
        pixels = zeroedPixels
        self.release = release
    }

    /// The bytes a buffer of `size` and `stride` takes (both as the initialisers round them).
    public static func byteCount(size: PixelSize, stride: Int? = nil) -> Int {
        let l = layout(size, stride)
        return l.stride * l.height
    }

    private static func layout(_ size: PixelSize, _ stride: Int?) -> (width: Int, height: Int, stride: Int) {
        let width = max(size.width, 1), height = max(size.height, 1)
        let minimum = width * 4
        return (width, height, (max(stride ?? minimum, minimum) + 3) / 4 * 4)
    }

    deinit {
        if let release { release(pixels, byteCount) } else { pixels.deallocate() }
    }

    public var size: PixelSize { PixelSize(width: width, height: height) }
    public var byteCount: Int { stride * height }
    public var bounds: PixelRect { PixelRect(x: 0, y: 0, width: width, height: height) }

    /// The pixel at (x, y) as `0x00RRGGBB` (the unused top byte masked off).
    public subscript(x: Int, y: Int) -> UInt32 {
        precondition(x >= 0 && x < width && y >= 0 && y < height, "pixel (\(x), \(y)) outside \(size)")
        return pixels.load(fromByteOffset: y * stride + x * 4, as: UInt32.self) & 0x00FF_FFFF
    }

    /// Copies `rect` (clipped to the buffer) into memory of the same layout at the same position:
    /// what a display does with each damaged rectangle when the picture is not turned.
    public func copy(_ rect: PixelRect, to destination: UnsafeMutableRawPointer, destinationStride: Int) {
        ScreenRotation.none.copy(rect, from: pixels, sourceStride: stride, logical: size,
                                 to: destination, destinationStride: destinationStride)
    }

    /// Copies the rows of `source` (same size, any stride) into this buffer.
    public func copyRows(from source: UnsafeRawPointer, sourceStride: Int) {
        for y in 0..<height {
            (pixels + y * stride).copyMemory(from: source + y * sourceStride, byteCount: width * 4)
        }
    }

    /// Copies the whole buffer into memory with the same stride (the memcpy yardstick).
    public func copyAll(to destination: UnsafeMutableRawPointer) {
        destination.copyMemory(from: pixels, byteCount: byteCount)
    }
}
