/// A moment on the real-time clock, in microseconds since the Unix epoch (UTC): when something
/// happened as people and other machines date it. The loop's `TimeStamp` orders events; a
/// wall time is what goes into the score store, hooks, metrics and fleet state.
public struct WallTime: Comparable, Hashable, Sendable {
    public var microseconds: Int64

    public init(microseconds: Int64) { self.microseconds = microseconds }

    /// Whole seconds since the epoch, saturating at the ends of the range.
    public init(unixSeconds: Int64) {
        self.init(microseconds: TimeStamp(seconds: unixSeconds, microseconds: 0).microseconds)
    }

    /// The epoch itself: 1970-01-01T00:00:00Z.
    public static let epoch = WallTime(microseconds: 0)

    public static func < (a: WallTime, b: WallTime) -> Bool { a.microseconds < b.microseconds }

    /// `w` moved by `d`, saturating as `TimeStamp` does.
    public static func + (w: WallTime, d: Duration) -> WallTime {
        WallTime(microseconds: TimeStamp.saturatingSum(w.microseconds, d.wholeMicroseconds))
    }

    public static func - (w: WallTime, d: Duration) -> WallTime { w + (.zero - d) }

    /// How long from `b` to `a` (negative when `a` is earlier).
    public static func - (a: WallTime, b: WallTime) -> Duration {
        .microseconds(a.microseconds) - .microseconds(b.microseconds)
    }

    /// Seconds since the epoch with their fraction (hooks' `time`, the metrics' timestamps).
    public var unixSeconds: Double { Double(microseconds) / 1_000_000 }

    /// Whole seconds since the epoch, rounded down.
    public var wholeUnixSeconds: Int64 {
        microseconds >= 0 ? microseconds / 1_000_000 : (microseconds - 999_999) / 1_000_000
    }

    /// Whole milliseconds since the epoch, rounded down: the score store's columns count them.
    public var unixMilliseconds: Int64 {
        microseconds >= 0 ? microseconds / 1000 : (microseconds - 999) / 1000
    }

    /// From the score store's milliseconds.
    public init(unixMilliseconds ms: Int64) {
        let (us, overflow) = ms.multipliedReportingOverflow(by: 1000)
        self.init(microseconds: overflow ? (ms < 0 ? .min : .max) : us)
    }
}

/// A day of the local calendar: a number that grows by one a day (days since 1970-01-01 in
/// local time) and the wall time at which it began (local midnight, which daylight saving can
/// move). What "today" means for rounds today, the daily tables and the touch heatmap.
public struct LocalDay: Hashable, Sendable {
    public var number: Int
    /// When the day began: its local midnight.
    public var start: WallTime

    public init(number: Int, start: WallTime) {
        self.number = number
        self.start = start
    }

    /// `2026-12-02`: the day as the score store's daily tables name it.
    public var date: String { ClockText.date(daysSinceEpoch: Int64(number)) }
}

/// The local calendar at one wall time: its day, the time the clock shows and the zone's name.
public struct LocalTime: Hashable, Sendable {
    public var wall: WallTime
    public var day: LocalDay
    /// What the clock shows, 0:00:00 to 23:59:59 (a leap second shows as :59).
    public var hour: Int
    public var minute: Int
    public var second: Int
    /// The zone's abbreviation then (`CET`, `CEST`, `UTC`).
    public var zone: String

    public init(wall: WallTime, day: LocalDay, hour: Int, minute: Int, second: Int, zone: String) {
        self.wall = wall
        self.day = day
        self.hour = hour
        self.minute = minute
        self.second = second
        self.zone = zone
    }

    /// The second of the day the clock shows (not the time since midnight on a
    /// daylight-saving day): what a schedule's ranges are compared with.
    public var secondOfDay: Int { hour * 3600 + minute * 60 + second }

    /// `2026-12-01 10:15:02 CET`, for log lines that say when.
    public var stamp: String { "\(day.date) \(ClockText.timeOfDay(seconds: secondOfDay)) \(zone)" }
}
