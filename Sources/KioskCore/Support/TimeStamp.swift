/// A point in time in microseconds: kernel event time for input, virtual time in replays.
public struct TimeStamp: Comparable, Hashable, Sendable, CustomStringConvertible {
    public var microseconds: Int64

    public init(microseconds: Int64) { self.microseconds = microseconds }
    public init(milliseconds: Double) { self.microseconds = Int64((milliseconds * 1000).rounded()) }
    public init(seconds: Int64, microseconds: Int64) { self.microseconds = seconds * 1_000_000 + microseconds }

    public static let zero = TimeStamp(microseconds: 0)

    public static func < (a: TimeStamp, b: TimeStamp) -> Bool { a.microseconds < b.microseconds }

    /// This time plus `ms` milliseconds.
    public func adding(milliseconds ms: Double) -> TimeStamp {
        TimeStamp(microseconds: microseconds + Int64((ms * 1000).rounded()))
    }

    /// Milliseconds from `earlier` to this time.
    public func milliseconds(since earlier: TimeStamp) -> Double {
        Double(microseconds - earlier.microseconds) / 1000
    }

    public var description: String { "\(Double(microseconds) / 1_000_000)s" }
}
