import Glibc
internal import CLinux

/// The process's memory as the system sees it, for the benchmark's figures.
public enum ProcessMemory {
    /// The most resident memory the process has had, in megabytes.
    public static func peakResidentMegabytes() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return Double(usage.ru_maxrss) / 1024  // Linux reports kilobytes
    }

    /// From now on, buffers of `bytes` or more are mapped on their own and unmapped when freed,
    /// so a part of a run that is over leaves no frames resident for a later part's peak.
    public static func unmapLargeBuffersWhenFreed(from bytes: Int) {
        _ = CLinux_malloc_mmap_threshold(Int32(clamping: bytes))
    }
}
