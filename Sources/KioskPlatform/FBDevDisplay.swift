internal import CLinux
import Glibc
import KioskCore

/// The fallback for boards without KMS: the legacy framebuffer (/dev/fbN), mapped and written
/// directly. No page flips, so no tear-free guarantee; only damage is copied. 32 bpp XRGB only.
///
/// fbdev has no master to drop or take back: `suspend`/`resume` are the protocol's no-ops, so
/// on a VT switch it would keep drawing over the console (the kiosk owns its VT with DRM only).
public final class FBDevDisplay: Display {
    public let name: String
    /// The size the game lays out for: the visible resolution, turned by `rotation`.
    public let size: PixelSize
    public let reportedPxPerMM: Double?
    /// Degrees clockwise the picture is turned on the panel.
    public let rotation: Int
    public let path: String
    public var canPresent: Bool { !restored }
    public var onVisible: ((TimeStamp) -> Void)?
    public private(set) var bytesCopied = 0

    /// The framebuffer device, closed with the display (after the mapping is gone).
    private let descriptor: FileDescriptor
    private var fd: Int32 { descriptor.rawValue }
    private let panel: PixelSize
    private let turn: ScreenRotation
    private let lineLength: Int
    private let mapping: UnsafeMutableRawPointer
    private let mappingLength: Int
    /// The visible screen inside the mapping (after the pan offset).
    private let visible: UnsafeMutableRawPointer
    /// The console tty switched to graphics mode, to give back on exit.
    private var console: FileDescriptor?
    private var restored = false
    /// Blanked (FBIOBLANK) for the display's sleep.
    public private(set) var isPoweredOn = true
    private let log: Logger

    public init(path: String = "/dev/fb0", rotation: Int, log: Logger) throws {
        self.log = log
        guard let turn = ScreenRotation(degrees: rotation) else {
            throw DisplaySetupError.unsupported("rotation must be \(ScreenRotation.allowedText), got \(rotation)")
        }
        let descriptor = try openFramebuffer(path, O_RDWR | O_CLOEXEC)
        let fd = descriptor.rawValue
        var info = CLinux_fb_info()
        guard CLinux_fb_get_info(fd, &info) == 0 else { throw SystemError("FBIOGET_VSCREENINFO", path) }
        let probe = FramebufferProbe(path: path, info: info)
        if let problem = probe.problem { throw DisplaySetupError.unsupported(problem) }
        let length = Int(info.smem_len)
        let offset = FramebufferProbe.visibleOffset(info)
        let p = mmap(nil, length, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)
        guard let p, p != UnsafeMutableRawPointer(bitPattern: -1) else { throw SystemError("mmap", path) }
        self.descriptor = descriptor
        self.path = path
        self.turn = turn
        self.rotation = rotation
        mapping = p
        mappingLength = length
        visible = p + offset
        lineLength = Int(info.line_length)
        panel = PixelSize(width: Int(info.xres), height: Int(info.yres))
        size = turn.logicalSize(panel: panel)
        // 0 and 0xFFFFFFFF (-1) mean unknown; the sanity check rejects both.
        reportedPxPerMM = PixelDensity.pxPerMM(
            pixels: panel, mmWidth: Int(Int32(bitPattern: info.width_mm)), mmHeight: Int(Int32(bitPattern: info.height_mm)))
        name = "fbdev:\(path):\(String(probe.id.map { $0 == " " ? "_" : $0 })):\(panel)" + (rotation != 0 ? ":rot\(rotation)" : "")
        clear()
        enterGraphicsMode()
    }

    deinit {
        restore()
        if munmap(mapping, mappingLength) != 0 { log(.warning, "\(SystemError("munmap", path))") }
    }

    public func present(_ picture: PixelBuffer, damage: [PixelRect]) throws {
        guard !restored else { return }
        guard picture.size == size else {
            throw DisplaySetupError.unsupported("\(name): picture \(picture.size) does not fit the display's \(size)")
        }
        for rect in DamageRegion.merged(damage, within: picture.bounds) {
            turn.copy(rect, from: picture.pixels, sourceStride: picture.stride, logical: size,
                      to: visible, destinationStride: lineLength)
            bytesCopied += rect.area * 4
        }
        onVisible?(EventLoop.now())
    }

    public func handleEvents() {}

    /// The visible framebuffer, in the panel's orientation.
    public func snapshot() -> PixelBuffer {
        let shot = PixelBuffer(size: panel)
        shot.copyRows(from: visible, sourceStride: lineLength)
        return shot
    }

    /// Powers the screen down or up with FBIOBLANK.
    public func setPower(on: Bool) throws {
        guard !restored, on != isPoweredOn else { return }
        guard CLinux_fb_blank(fd, on ? 0 : 1) == 0 else {
            throw SystemError("FBIOBLANK", "\(path) \(on ? "unblank" : "power down")")
        }
        isPoweredOn = on
    }

    /// fbdev keeps no mode to give back: clear to black and hand the console its text mode,
    /// which makes fbcon redraw. Only the first call acts.
    public func restore() {
        guard !restored else { return }
        if !isPoweredOn { try? setPower(on: true) }
        restored = true
        clear()
        if let tty = console.take() {
            if CLinux_kd_set_graphics(tty.rawValue, 0) != 0 {
                log(.error, "\(SystemError("KDSETMODE", "/dev/tty0 back to text mode"))")
            }
        }
    }

    private func clear() {
        for y in 0..<panel.height {
            (visible + y * lineLength).initializeMemory(as: UInt8.self, repeating: 0, count: panel.width * 4)
        }
    }

    /// Stops fbcon drawing text and its blinking cursor over the picture. Best effort: without
    /// access to /dev/tty0 (not root, not on the console) the kiosk still runs.
    private func enterGraphicsMode() {
        do {
            // Kept unconditionally, dropped (and closed) when the switch fails: a move-only value
            // consumed on one branch only crashes Swift 6.0's optimizer.
            console = try FileDescriptor.open("/dev/tty0", O_RDWR | O_CLOEXEC | O_NOCTTY)
        } catch {
            return
        }
        if let fd = console?.rawValue, CLinux_kd_set_graphics(fd, 1) != 0 { console = nil }
    }
}
