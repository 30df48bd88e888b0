internal import CCairo
internal import CLinux
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
        buffer = PixelMemory.blackBuffer(size: size, stride: stride)
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
        fill(bounds, with: color)
        cairo_surface_mark_dirty(surface)
    }

    /// Fills `rect` (clipped to the frame) with the opaque `color`: the very pixels cairo would
    /// write. The caller tells cairo (`cairo_surface_mark_dirty`) once it is done.
    func fill(_ rect: PixelRect, with color: RGBColor) {
        guard let r = rect.intersection(bounds) else { return }
        #if arch(x86_64)
        if r.x == 0, r.width == width, stride == width * 4 {
            // Whole rows that follow on in memory: one wmemset, which glibc does with `rep stosd`
            // when it is large, writing cache lines without reading them first (14% faster
            // than pixman's fill for a 1920x1080 frame here). Not on ARM, where glibc's
            // wmemset is a plain loop and pixman's fill uses NEON.
            CLinux_fill32((pixels + r.y * stride).assumingMemoryBound(to: UInt32.self), Pixman.pixel(color),
                          r.width * r.height)
            return
        }
        #endif
        Pixman.fill(image, r, color: color)
    }

    /// Puts `sprite`, its top-left pixel on `origin`, onto the bare background inside `rect`
    /// (within the sprite's box) by copying: the opaque run of each row from the sprite, the
    /// rest of its shape from `flat`, the sprite flattened onto this background. The very pixels
    /// compositing it would give; those beside its shape are left alone, background already.
    func copy(_ sprite: Sprite, flattened flat: Sprite.Flattened, origin: (x: Int, y: Int), within rect: PixelRect) {
        guard let source = sprite.pixels, let r = rect.intersection(bounds) else { return }
        // The clip in the sprite's columns.
        let left = r.x - origin.x, right = r.maxX - origin.x
        sprite.rows.withUnsafeBufferPointer { rows in
            flat.pixels.withUnsafeBufferPointer { flatPixels in
                flat.rowStarts.withUnsafeBufferPointer { rowStarts in
                    for y in r.y..<r.maxY {
                        let spriteY = y - origin.y
                        let row = rows[spriteY]
                        let start = Int(row.start), opaqueStart = Int(row.opaqueStart), opaqueEnd = Int(row.opaqueEnd)
                        let lo = max(start, left), hi = min(Int(row.end), right)
                        guard lo < hi else { continue }
                        // Both indexed by the sprite's columns.
                        let destination = (pixels + y * stride + origin.x * 4).assumingMemoryBound(to: UInt32.self)
                        let opaque = (source + spriteY * sprite.stride).assumingMemoryBound(to: UInt32.self)
                        // Left of the opaque run, from the flattened pixels.
                        let rowStart = Int(rowStarts[spriteY])
                        var x = lo
                        while x < min(hi, opaqueStart) {
                            destination[x] = flatPixels[rowStart + x - start]
                            x += 1
                        }
                        let middleStart = max(lo, opaqueStart), middleEnd = min(hi, opaqueEnd)
                        if middleStart < middleEnd {
                            (destination + middleStart).update(from: opaque + middleStart, count: middleEnd - middleStart)
                        }
                        // Right of the run, after the row's pixels left of it.
                        let rightStart = rowStart + (opaqueStart - start) - opaqueEnd
                        x = max(lo, opaqueEnd)
                        while x < hi {
                            destination[x] = flatPixels[rightStart + x]
                            x += 1
                        }
                    }
                }
            }
        }
    }

    /// Copies `rect` into memory of the same layout, at the same position.
    public func copy(_ rect: PixelRect, to destination: UnsafeMutableRawPointer, destinationStride: Int) {
        buffer.copy(rect, to: destination, destinationStride: destinationStride)
    }

    /// Copies the whole frame into a buffer with the same stride (the memcpy yardstick).
    public func copyAll(to destination: UnsafeMutableRawPointer) { buffer.copyAll(to: destination) }
}
