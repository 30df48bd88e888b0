/// A point in time in microseconds: kernel event time for input, virtual time in replays.
///
/// Arithmetic saturates instead of trapping: times come from devices, recordings and config
/// files, and a nonsense value must give a nonsense time, never a crash. NaN counts as zero.
public struct TimeStamp: Comparable, Hashable, Sendable, CustomStringConvertible {
    public var microseconds: Int64

    public init(microseconds: Int64) { self.microseconds = microseconds }
    public init(milliseconds: Double) { self.microseconds = Self.saturatingMicroseconds(milliseconds) }
    public init(seconds: Int64, microseconds: Int64) {
        let (scaled, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000)
        let base = overflow ? (seconds < 0 ? Int64.min : Int64.max) : scaled
        self.microseconds = Self.saturatingSum(base, microseconds)
    }

    public static let zero = TimeStamp(microseconds: 0)
    /// The latest time there is; `adding` stops here rather than wrapping around.
    public static let distantFuture = TimeStamp(microseconds: .max)

    public static func < (a: TimeStamp, b: TimeStamp) -> Bool { a.microseconds < b.microseconds }

    /// This time plus `us` microseconds, saturating at the ends of the range.
    public func adding(microseconds us: Int64) -> TimeStamp {
        TimeStamp(microseconds: Self.saturatingSum(microseconds, us))
    }

    public var description: String { "\(Double(microseconds) / 1_000_000)s" }

    /// `ms` in whole microseconds, clamped to what an Int64 holds; NaN is 0.
    static func saturatingMicroseconds(_ ms: Double) -> Int64 {
        let us = (ms * 1000).rounded()
        guard !us.isNaN else { return 0 }
        // 2^63 is exactly representable; anything at or beyond it does not fit.
        if us >= 9_223_372_036_854_775_808.0 { return .max }
        if us < -9_223_372_036_854_775_808.0 { return .min }
        return Int64(us)
    }

    static func saturatingSum(_ a: Int64, _ b: Int64) -> Int64 {
        let (sum, overflow) = a.addingReportingOverflow(b)
        guard overflow else { return sum }
        return b > 0 ? .max : .min
    }
}
