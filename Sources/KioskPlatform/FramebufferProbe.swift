internal import CLinux
#if canImport(Glibc)
import Glibc
#endif

/// What a legacy framebuffer (/dev/fbN) reports, and whether `FBDevDisplay` can draw on it:
/// the one check the display and `bubble-kiosk devices` both go by.
public struct FramebufferProbe: Sendable {
    public let path: String
    /// The driver's name for it (`bochs-drmdrmfb`).
    public let id: String
    public let width: Int
    public let height: Int
    public let bitsPerPixel: Int
    /// Whether the pixels are 32 bpp XRGB8888, the one format the kiosk draws.
    public let isXRGB8888: Bool
    /// Why `FBDevDisplay` would refuse it (nil: it can be used).
    public let problem: String?

    /// Reads `path`'s screen information (opened read-only, closed again). Throws
    /// `DisplaySetupError.permissionDenied` or a `SystemError`.
    public static func probe(_ path: String) throws -> FramebufferProbe {
        let fb = try openFramebuffer(path, O_RDONLY | O_CLOEXEC)
        var info = CLinux_fb_info()
        guard CLinux_fb_get_info(fb.rawValue, &info) == 0 else { throw SystemError("FBIOGET_VSCREENINFO", path) }
        return FramebufferProbe(path: path, info: info)
    }

    init(path: String, info: CLinux_fb_info) {
        self.path = path
        id = fixedCString(info.id)
        width = Int(info.xres)
        height = Int(info.yres)
        bitsPerPixel = Int(info.bits_per_pixel)
        isXRGB8888 = info.bits_per_pixel == 32 && info.red_offset == 16 && info.green_offset == 8
            && info.blue_offset == 0 && info.red_length == 8 && info.green_length == 8 && info.blue_length == 8
        problem = Self.problem(path, info, isXRGB8888: isXRGB8888)
    }

    private static func problem(_ path: String, _ info: CLinux_fb_info, isXRGB8888: Bool) -> String? {
        guard isXRGB8888 else {
            return "\(path): \(info.bits_per_pixel) bpp "
                + "(red \(info.red_length)@\(info.red_offset), green \(info.green_length)@\(info.green_offset), "
                + "blue \(info.blue_length)@\(info.blue_offset)) is not supported: the kiosk draws 32 bpp XRGB8888 "
                + "(set the framebuffer to 32 bpp, e.g. fbset -depth 32, or the driver's bpp option)"
        }
        guard visibleOffset(info) + Int(info.yres) * Int(info.line_length) <= Int(info.smem_len) else {
            return "\(path): the visible screen lies outside the framebuffer memory"
        }
        return nil
    }

    /// Where the visible screen starts in the framebuffer memory (the pan offset).
    static func visibleOffset(_ info: CLinux_fb_info) -> Int {
        Int(info.yoffset) * Int(info.line_length) + Int(info.xoffset) * 4
    }
}

/// Opens a framebuffer device; a refusal for lack of permission names the group to join.
func openFramebuffer(_ path: String, _ flags: Int32) throws -> FileDescriptor {
    do {
        return try FileDescriptor.open(path, flags)
    } catch let error as SystemError where error.errno == EACCES || error.errno == EPERM {
        throw DisplaySetupError.permissionDenied(path: path, group: "video")
    }
}
