/// A count that starts again each day (rounds played today): days are numbers that grow by one
/// a day, as the caller's clock says (local days for what people call "today").
public struct DailyCount: Equatable, Sendable {
    private var day: Int?
    private var value = 0

    public init() {}

    /// Counts one on `day`; a new day starts from zero.
    public mutating func add(onDay day: Int) {
        if day != self.day {
            self.day = day
            value = 0
        }
        value += 1
    }

    /// The count on `day`: zero for any day but the latest counted one.
    public func count(onDay day: Int) -> Int { day == self.day ? value : 0 }
}
