internal import CDRM
import Glibc
import KioskCore

/// A CPU-drawable XRGB8888 scanout buffer (a "dumb" buffer) with its framebuffer id, mapped
/// into memory. The mapping is often write-combined: write it sequentially, never read it in
/// a hot path.
public final class DumbBuffer {
    public let width: Int
    public let height: Int
    /// Bytes per row, at least `width * 4` (drivers may pad).
    public let pitch: Int
    public let byteCount: Int
    /// The framebuffer id for drmModeSetCrtc and drmModePageFlip.
    public let fbID: UInt32
    public let pixels: UnsafeMutableRawPointer
    private let handle: UInt32
    /// Kept so the card's fd outlives the buffer.
    private let device: DRMDevice

    public init(device: DRMDevice, width: Int, height: Int) throws {
        let context = "\(device.path) \(width)x\(height) dumb buffer"
        var handle: UInt32 = 0, pitch: UInt32 = 0, size: UInt64 = 0
        guard CDRM_create_dumb(device.fd, UInt32(width), UInt32(height), 32, &handle, &pitch, &size) == 0 else {
            throw SystemError("DRM_IOCTL_MODE_CREATE_DUMB", context)
        }
        var fbID: UInt32 = 0
        guard drmModeAddFB(device.fd, UInt32(width), UInt32(height), 24, 32, pitch, handle, &fbID) == 0 else {
            let error = SystemError("drmModeAddFB", context)
            // Cleanup on a failure path: the error already being thrown is the one to report.
            _ = CDRM_destroy_dumb(device.fd, handle)
            throw error
        }
        var offset: UInt64 = 0
        var mapped: UnsafeMutableRawPointer?
        var failedCall = "DRM_IOCTL_MODE_MAP_DUMB"
        if CDRM_map_dumb(device.fd, handle, &offset) == 0 {
            failedCall = "mmap"
            let p = mmap(nil, Int(size), PROT_READ | PROT_WRITE, MAP_SHARED, device.fd, off_t(truncatingIfNeeded: offset))
            if p != UnsafeMutableRawPointer(bitPattern: -1) { mapped = p }
        }
        guard let mapped else {
            let error = SystemError(failedCall, context)
            // Cleanup on a failure path: the error already being thrown is the one to report.
            _ = drmModeRmFB(device.fd, fbID)
            _ = CDRM_destroy_dumb(device.fd, handle)
            throw error
        }
        self.device = device
        self.width = width
        self.height = height
        self.pitch = Int(pitch)
        self.byteCount = Int(size)
        self.fbID = fbID
        self.handle = handle
        self.pixels = mapped
        mapped.initializeMemory(as: UInt8.self, repeating: 0, count: byteCount)
    }

    deinit {
        // Nothing to retry: the kernel frees them with the card's descriptor anyway. Logged
        // because a failure here points at a driver problem.
        let context = "\(device.path) \(width)x\(height) dumb buffer"
        if munmap(pixels, byteCount) != 0 { device.log(.warning, "\(SystemError("munmap", context))") }
        if drmModeRmFB(device.fd, fbID) != 0 { device.log(.warning, "\(SystemError("drmModeRmFB", context))") }
        if CDRM_destroy_dumb(device.fd, handle) != 0 {
            device.log(.warning, "\(SystemError("DRM_IOCTL_MODE_DESTROY_DUMB", context))")
        }
    }
}
