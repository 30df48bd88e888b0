internal import CCairo
import Glibc
import KioskCore

/// A picture from a PNG file (the operator's logo), kept with its transparency, and its copies
/// scaled to the sizes it is drawn at.
public final class Picture {
    /// Larger pictures are refused: a logo is drawn a few centimetres wide, and a huge one
    /// would take hundreds of MB decoded.
    public static let maxSide = 4096
    public static let maxFileBytes = 16 << 20

    let surface: OpaquePointer
    public let size: PixelSize
    private var scaled: (size: PixelSize, surface: OpaquePointer)?

    /// Reads `path`, checking the size the PNG header states before decoding it.
    public init(path: String) throws(PictureError) {
        let header = try Self.header(path)
        guard header.width > 0, header.height > 0, header.width <= Self.maxSide, header.height <= Self.maxSide else {
            throw PictureError(path: path, reason: "\(header.width) x \(header.height) pixels; at most \(Self.maxSide) x \(Self.maxSide)")
        }
        guard let image = cairo_image_surface_create_from_png(path) else {
            throw PictureError(path: path, reason: "cairo returned no surface")
        }
        let status = cairo_surface_status(image)
        guard status == CAIRO_STATUS_SUCCESS else {
            cairo_surface_destroy(image)
            throw PictureError(path: path, reason: String(cString: cairo_status_to_string(status)))
        }
        surface = image
        size = PixelSize(width: Int(cairo_image_surface_get_width(image)), height: Int(cairo_image_surface_get_height(image)))
    }

    deinit {
        cairo_surface_destroy(surface)
        if let s = scaled { cairo_surface_destroy(s.surface) }
    }

    /// The width and height in a PNG's IHDR chunk, after checking the signature and file size.
    private static func header(_ path: String) throws(PictureError) -> (width: Int, height: Int) {
        guard let file = fopen(path, "rb") else {
            throw PictureError(path: path, reason: String(cString: strerror(errno)))
        }
        defer { fclose(file) }
        var st = stat()
        if fstat(fileno(file), &st) == 0 {
            if (st.st_mode & S_IFMT) != S_IFREG { throw PictureError(path: path, reason: "not a regular file") }
            if Int(st.st_size) > maxFileBytes {
                throw PictureError(path: path, reason: "\(Int(st.st_size) >> 20) MB; at most \(maxFileBytes >> 20) MB")
            }
        }
        var bytes = [UInt8](repeating: 0, count: 24)
        let got = fread(&bytes, 1, 24, file)
        let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        guard got == 24, Array(bytes[0..<8]) == signature, bytes[12..<16].elementsEqual("IHDR".utf8) else {
            throw PictureError(path: path, reason: "not a PNG file")
        }
        func word(_ at: Int) -> Int { bytes[at..<at + 4].reduce(0) { $0 << 8 | Int($1) } }
        return (word(16), word(20))
    }

    /// The picture scaled to `size` (smoothly), made once per size.
    func scaled(to size: PixelSize) -> OpaquePointer {
        if let s = scaled, s.size == size { return s.surface }
        if let s = scaled { cairo_surface_destroy(s.surface) }
        let target = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, Int32(size.width), Int32(size.height))!
        let cr = cairo_create(target)!
        cairo_scale(cr, Double(size.width) / Double(self.size.width), Double(size.height) / Double(self.size.height))
        cairo_set_source_surface(cr, surface, 0, 0)
        cairo_pattern_set_filter(cairo_get_source(cr), CAIRO_FILTER_GOOD)
        cairo_paint(cr)
        cairo_destroy(cr)
        scaled = (size, target)
        return target
    }
}

/// Why a picture file was not taken.
public struct PictureError: Error, CustomStringConvertible {
    public let path: String
    public let reason: String
    public var description: String { "\(path): \(reason)" }
}
