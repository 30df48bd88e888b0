import Glibc

/// The process's memory as the system sees it, for the benchmark's figures.
public enum ProcessMemory {
    /// The most resident memory the process has had, in megabytes.
    public static func peakResidentMegabytes() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return Double(usage.ru_maxrss) / 1024  // Linux reports kilobytes
    }
}
