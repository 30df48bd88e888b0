import Glibc

/// CPU time of this thread only: other work on the machine does not count against a frame.
struct CPUTimer {
    private var started: Double?
    private(set) var elapsedMS = 0.0

    /// Starting again discards the time so far, so `body` may narrow what `measure` times.
    mutating func start() {
        elapsedMS = 0
        started = Self.now()
    }

    mutating func stop() {
        guard let s = started else { return }
        elapsedMS = Self.now() - s
        started = nil
    }

    static func now() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)
        return Double(ts.tv_sec) * 1000 + Double(ts.tv_nsec) / 1_000_000
    }
}
