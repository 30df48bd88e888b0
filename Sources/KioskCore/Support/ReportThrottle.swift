/// Says which occurrences of a recurring problem to report: the 1st, 2nd, 4th, 8th, ... so a
/// display failing every frame for months writes a few dozen lines, not millions.
public struct ReportThrottle: Sendable {
    /// Occurrences so far.
    public private(set) var count = 0

    public init() {}

    /// Counts one occurrence; true when this one should be reported.
    public mutating func note() -> Bool {
        count += 1
        return count & (count - 1) == 0
    }

    /// The problem went away: the next occurrence is reported again.
    public mutating func reset() { count = 0 }
}
