import CLinux
@testable import KioskPlatform
import Testing

/// `bubble-kiosk devices` and `--display fbdev` judge a framebuffer by the same check.
@Suite struct FramebufferProbeTests {
    private func info(bpp: UInt32 = 32, red: (UInt32, UInt32) = (16, 8), green: (UInt32, UInt32) = (8, 8),
                      blue: (UInt32, UInt32) = (0, 8), yoffset: UInt32 = 0) -> CLinux_fb_info {
        var info = CLinux_fb_info()
        info.xres = 640
        info.yres = 480
        info.yoffset = yoffset
        info.bits_per_pixel = bpp
        (info.red_offset, info.red_length) = red
        (info.green_offset, info.green_length) = green
        (info.blue_offset, info.blue_length) = blue
        info.line_length = 640 * 4
        info.smem_len = 640 * 4 * 480
        return info
    }

    @Test func xrgb8888WithinItsMemoryIsUsable() {
        let probe = FramebufferProbe(path: "/dev/fb0", info: info())
        #expect(probe.isXRGB8888 && probe.problem == nil)
        #expect(probe.width == 640 && probe.height == 480 && probe.bitsPerPixel == 32)
    }

    @Test(arguments: [(UInt32(16), (UInt32(11), UInt32(5)), (UInt32(5), UInt32(6)), (UInt32(0), UInt32(5))),
                      (32, (0, 8), (8, 8), (16, 8)),
                      // The offsets of XRGB8888 but not its widths: the old devices check passed it.
                      (32, (16, 6), (8, 6), (0, 6))])
    func otherFormatsAreRefused(bpp: UInt32, red: (UInt32, UInt32), green: (UInt32, UInt32), blue: (UInt32, UInt32)) {
        let probe = FramebufferProbe(path: "/dev/fb0", info: info(bpp: bpp, red: red, green: green, blue: blue))
        #expect(!probe.isXRGB8888)
        #expect(probe.problem?.contains("is not supported: the kiosk draws 32 bpp XRGB8888") == true)
    }

    @Test func aVisibleScreenPannedOutsideTheMemoryIsRefused() {
        let probe = FramebufferProbe(path: "/dev/fb0", info: info(yoffset: 1))
        #expect(probe.isXRGB8888)
        #expect(probe.problem == "/dev/fb0: the visible screen lies outside the framebuffer memory")
    }

    @Test func aMissingDeviceIsASystemError() {
        #expect(throws: SystemError.self) { try FramebufferProbe.probe("/nonexistent/fb0") }
    }
}
