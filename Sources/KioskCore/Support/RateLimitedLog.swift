/// Counts occurrences of one repeating problem and says which to log: the 1st, 2nd, 4th, 8th...
/// (`note()`), or the 1st only (`noteFirst()`).
///
/// A kiosk runs for months; a fault that repeats every frame or every timeout must not fill the
/// journal, yet the count in each message still tells how often it happened.
public struct RateLimitedLog: Equatable, Sendable {
    /// Occurrences noted since the start (or the last `reset()`).
    public private(set) var count = 0

    public init() {}

    /// Notes one occurrence; true when this one should be logged (the count is a power of two).
    public mutating func note() -> Bool {
        count += 1
        return count & (count - 1) == 0
    }

    /// Notes one occurrence; true for the first only, for a problem worth one line.
    public mutating func noteFirst() -> Bool {
        count += 1
        return count == 1
    }

    /// Starts over, so a problem that comes back after it was solved is logged at once again.
    public mutating func reset() { count = 0 }
}
