import Glibc
import KioskCore

/// Frame-sized pixel buffers on pages of their own from the system. They come zeroed, so nothing
/// clears them a second time, and a page is only faulted in when the first frame writes it.
/// Clearing and faulting in two 33 MB buffers was most of a 4K kiosk's time to its first frame.
/// (Huge pages were tried: the kernel's compaction to find them made the first frame 2-4x slower.)
public enum PixelMemory {
    /// A black buffer of `size`; ordinary memory when it is small (under 64 KB) or the system has
    /// no pages to map.
    public static func blackBuffer(size: PixelSize, stride: Int? = nil) -> PixelBuffer {
        let bytes = PixelBuffer.byteCount(size: size, stride: stride)
        guard bytes >= 1 << 16, let pages = mmap(nil, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0),
              pages != UnsafeMutableRawPointer(bitPattern: -1) else {
            return PixelBuffer(size: size, stride: stride)
        }
        return PixelBuffer(size: size, stride: stride, zeroedPixels: pages) { pixels, count in
            _ = munmap(pixels, count)
        }
    }
}
