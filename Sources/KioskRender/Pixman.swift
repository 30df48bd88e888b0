internal import CCairo
internal import CPixman
import KioskCore

/// Straight pixman calls for what the renderer does most: copy or blend a sprite's rows onto the
/// frame and fill boxes with one colour. Cairo makes the very same pixman call, after some
/// thousands of instructions of path, clip and pattern handling per item, which on a screen of
/// bubbles and sparks cost more than their pixels. The images share the cairo surfaces' memory.
enum Pixman {
    /// An image over an image surface's pixels (ARGB32 or RGB24, the formats the renderer makes);
    /// nil for another format or when pixman has no memory for the header.
    static func image(over surface: OpaquePointer) -> OpaquePointer? {
        cairo_surface_flush(surface)
        let format: pixman_format_code_t
        switch cairo_image_surface_get_format(surface) {
        case CAIRO_FORMAT_ARGB32: format = PIXMAN_a8r8g8b8
        case CAIRO_FORMAT_RGB24: format = PIXMAN_x8r8g8b8
        default: return nil
        }
        guard let data = cairo_image_surface_get_data(surface) else { return nil }
        return pixman_image_create_bits(format, cairo_image_surface_get_width(surface),
                                        cairo_image_surface_get_height(surface),
                                        UnsafeMutableRawPointer(data).assumingMemoryBound(to: UInt32.self),
                                        cairo_image_surface_get_stride(surface))
    }

    /// Cairo's conversion of a channel (to 16 bits, rounded), so a fill here is the very pixel
    /// cairo would write for the same colour.
    private static func channel(_ v: Double) -> UInt16 {
        UInt16(min(max(v, 0), 1) * 65535 + 0.5)
    }

    /// The x8r8g8b8 pixel pixman writes for the opaque `color` (the top byte set).
    static func pixel(_ color: RGBColor) -> UInt32 {
        0xFF00_0000 | UInt32(channel(color.r) >> 8) << 16 | UInt32(channel(color.g) >> 8) << 8 | UInt32(channel(color.b) >> 8)
    }

    /// Fills `box` of `image` with the opaque `color` (its alpha is ignored).
    static func fill(_ image: OpaquePointer, _ box: PixelRect, color: RGBColor) {
        var solid = pixman_color_t(red: channel(color.r), green: channel(color.g), blue: channel(color.b), alpha: 0xFFFF)
        var box = pixman_box32_t(x1: Int32(clamping: box.x), y1: Int32(clamping: box.y),
                                 x2: Int32(clamping: box.maxX), y2: Int32(clamping: box.maxY))
        _ = pixman_image_fill_boxes(PIXMAN_OP_SRC, image, &solid, 1, &box)
    }

    /// Puts the part of `source` whose top-left pixel lands on `origin` that falls in `rect`
    /// (already clipped to both) onto `destination`: blended (`OVER`) at `opacity`, or copied
    /// over what is there (`replacing`: the source is opaque).
    static func composite(_ source: OpaquePointer, origin: (x: Int, y: Int), onto destination: OpaquePointer,
                          rect r: PixelRect, opacity: Double, replacing: Bool) {
        var mask: OpaquePointer?
        if !replacing, opacity < 1 {
            // What cairo_paint_with_alpha hands pixman: a solid alpha of the same 16 bits.
            var alpha = pixman_color_t(red: 0, green: 0, blue: 0, alpha: channel(opacity))
            mask = pixman_image_create_solid_fill(&alpha)
            guard mask != nil else { return }
        }
        defer { if let mask { pixman_image_unref(mask) } }
        pixman_image_composite32(replacing ? PIXMAN_OP_SRC : PIXMAN_OP_OVER, source, mask, destination,
                                 Int32(r.x - origin.x), Int32(r.y - origin.y), 0, 0,
                                 Int32(r.x), Int32(r.y), Int32(r.width), Int32(r.height))
    }
}
