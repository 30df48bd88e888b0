internal import CCairo
internal import CPixman
import KioskCore

/// A pre-rendered ARGB32 (premultiplied) picture of one shape, owned by the sprite cache.
///
/// It knows, row by row, where its shape lies and where it is opaque, so that on the bare
/// background it can be copied rather than blended: its opaque pixels straight, the others
/// (edges, glyphs, a glow) from `flattened(onto:)`, those pixels composited onto the
/// background once, which is all a flattened copy needs beyond the sprite itself.
final class Sprite {
    let surface: OpaquePointer
    /// The same pixels for pixman (nil only if it had no memory: then the sprite is not drawn).
    let image: OpaquePointer?
    let width: Int
    let height: Int
    /// Where the shape's anchor (a centre, a corner or a baseline origin) lies in the sprite.
    let anchor: Vector2
    /// For text: the advance width, to align the sprite left, centred or right.
    let advance: Double
    /// The pixels (nil only if cairo had no memory for them) and the bytes from a row to the next.
    let pixels: UnsafeMutableRawPointer?
    let stride: Int
    /// Where each row's shape lies and where it is opaque.
    let rows: [RowSpan]
    /// The pixels a copy onto the last background asked for takes from elsewhere than the
    /// sprite (one background at a time: a scene has one).
    private(set) var flat: Flattened?

    /// Its memory as the cache's budget counts it: the pixels (ARGB32 rows have no padding)
    /// and its flattened pixels.
    var byteCount: Int { width * height * 4 + (flat?.byteCount ?? 0) }

    /// Renders `draw` into a new transparent surface whose origin is moved to `anchor`.
    init(width: Int, height: Int, anchor: Vector2, advance: Double = 0, draw: (OpaquePointer) -> Void) {
        self.width = max(width, 1)
        self.height = max(height, 1)
        self.anchor = anchor
        self.advance = advance
        surface = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, Int32(self.width), Int32(self.height))
        if let cr = cairo_create(surface) {
            cairo_translate(cr, anchor.x, anchor.y)
            draw(cr)
            cairo_destroy(cr)
        }
        image = Pixman.image(over: surface)  // flushes cairo's drawing into the pixels
        pixels = cairo_image_surface_get_data(surface).map { UnsafeMutableRawPointer($0) }
        stride = Int(cairo_image_surface_get_stride(surface))
        rows = Self.rows(pixels, width: self.width, height: self.height, stride: stride)
    }

    deinit {
        if let image { pixman_image_unref(image) }
        cairo_surface_destroy(surface)
    }

    /// One row of a sprite, as offsets into the row: its shape lies in `start..<end` (pixels
    /// outside are zero, so compositing the sprite changes nothing there; 0..<0 for an empty
    /// row), and `opaqueStart..<opaqueEnd`, its longest run of opaque pixels, within it
    /// (empty at `end` when it has none).
    struct RowSpan: Equatable {
        var start: Int32
        var end: Int32
        var opaqueStart: Int32
        var opaqueEnd: Int32

        /// The row's pixels `flattened(onto:)` holds: those of the shape outside the opaque run.
        var flatCount: Int { Int(end - start) - Int(opaqueEnd - opaqueStart) }
    }

    private static func rows(_ pixels: UnsafeMutableRawPointer?, width: Int, height: Int, stride: Int) -> [RowSpan] {
        let empty = RowSpan(start: 0, end: 0, opaqueStart: 0, opaqueEnd: 0)
        guard let pixels else { return [RowSpan](repeating: empty, count: height) }
        return (0..<height).map { y in
            let row = (pixels + y * stride).assumingMemoryBound(to: UInt32.self)
            var start = 0
            while start < width, row[start] == 0 { start += 1 }
            guard start < width else { return empty }
            var end = width
            while row[end - 1] == 0 { end -= 1 }
            var best = (start: end, end: end), x = start
            while x < end {
                guard row[x] >> 24 == 0xFF else { x += 1; continue }
                let runStart = x
                while x < end, row[x] >> 24 == 0xFF { x += 1 }
                if x - runStart > best.end - best.start { best = (runStart, x) }
            }
            return RowSpan(start: Int32(start), end: Int32(end), opaqueStart: Int32(best.start), opaqueEnd: Int32(best.end))
        }
    }

    /// The sprite composited onto the opaque `background`, for the pixels of its shape outside
    /// the opaque runs (an opaque pixel composited onto anything is itself); made on first use
    /// and kept for that background.
    func flattened(onto background: RGBColor) -> Flattened {
        if let flat, flat.background == background { return flat }
        let made = Flattened(self, onto: background)
        flat = made
        return made
    }

    /// The pixels of a sprite's shape, outside its opaque runs, composited onto a background:
    /// exactly the pixels of compositing the sprite onto that background in the frame, which
    /// a copy onto the bare background takes together with the sprite's opaque pixels.
    struct Flattened {
        let background: RGBColor
        /// Row after row, each row's pixels left of its opaque run, then those right of it.
        let pixels: [UInt32]
        /// Where each row's pixels start in `pixels`.
        let rowStarts: [Int32]

        var byteCount: Int { pixels.count * 4 + rowStarts.count * 4 }

        /// The sprite composited onto `background` in a scratch surface of its size (as the
        /// renderer would composite it onto the frame), of which only these pixels are kept.
        init(_ sprite: Sprite, onto background: RGBColor) {
            self.background = background
            var starts: [Int32] = []
            starts.reserveCapacity(sprite.height)
            var count = 0
            for row in sprite.rows {
                starts.append(Int32(count))
                count += row.flatCount
            }
            rowStarts = starts
            var kept = [UInt32](repeating: Pixman.pixel(background), count: count)
            let scratch = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, Int32(sprite.width), Int32(sprite.height))
            defer { cairo_surface_destroy(scratch) }
            if let cr = cairo_create(scratch) {
                cairo_set_operator(cr, CAIRO_OPERATOR_SOURCE)
                Painter.setColor(cr, background.withAlpha(1))
                cairo_paint(cr)
                cairo_set_operator(cr, CAIRO_OPERATOR_OVER)
                cairo_set_source_surface(cr, sprite.surface, 0, 0)
                cairo_paint(cr)
                cairo_destroy(cr)
            }
            cairo_surface_flush(scratch)
            if let data = cairo_image_surface_get_data(scratch) {
                let stride = Int(cairo_image_surface_get_stride(scratch))
                for (y, row) in sprite.rows.enumerated() {
                    let line = UnsafeRawPointer(data + y * stride).assumingMemoryBound(to: UInt32.self)
                    var i = Int(starts[y])
                    for x in Int(row.start)..<Int(row.opaqueStart) { kept[i] = line[x]; i += 1 }
                    for x in Int(row.opaqueEnd)..<Int(row.end) { kept[i] = line[x]; i += 1 }
                }
            }
            pixels = kept
        }
    }
}
