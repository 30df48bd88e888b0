/// The local wall clock seen from the monotonic clock the loop runs on: what time of day it is
/// at a moment, and when a time of day next comes. The platform answers from `localtime_r` and
/// `mktime` (so daylight saving is the C library's business); tests use `VirtualWallClock`.
public protocol LocalWallClock: AnyObject {
    /// Seconds since local midnight at monotonic time `t` (0 up to a day).
    func secondsSinceMidnight(at t: TimeStamp) -> Int
    /// The first monotonic time after `t` at which the local clock shows `minute` (minutes
    /// since midnight; 1440 is the next midnight).
    func next(minute: Int, after t: TimeStamp) -> TimeStamp
    /// The local date and time at `t`, for log lines that say when.
    func stamp(at t: TimeStamp) -> String
}

/// Days of exactly 24 hours with local midnight at a given monotonic time: runtime and policy
/// tests. Moving `midnight` is a clock jump (an NTP step, a time zone change).
public final class VirtualWallClock: LocalWallClock {
    /// A monotonic time at which the local clock showed 00:00.
    public var midnight: TimeStamp

    public init(midnight: TimeStamp) { self.midnight = midnight }

    /// A wall clock that shows `hour:minute` at monotonic time `t`.
    public convenience init(showing hour: Int, _ minute: Int, at t: TimeStamp) {
        self.init(midnight: t - .seconds(hour * 3600 + minute * 60))
    }

    static let dayUS: Int64 = 86_400_000_000

    public func secondsSinceMidnight(at t: TimeStamp) -> Int {
        let us = t.microseconds &- midnight.microseconds
        let r = us % Self.dayUS
        return Int((r < 0 ? r + Self.dayUS : r) / 1_000_000)
    }

    /// `day N HH:MM:SS`, day 0 the one that starts at `midnight`.
    public func stamp(at t: TimeStamp) -> String {
        let us = t.microseconds &- midnight.microseconds
        var day = us / Self.dayUS
        if us < 0 && us % Self.dayUS != 0 { day -= 1 }
        let s = secondsSinceMidnight(at: t)
        return "day \(day) \(NumberText.timeOfDay(seconds: s))"
    }

    public func next(minute: Int, after t: TimeStamp) -> TimeStamp {
        let us = t.microseconds &- midnight.microseconds
        var day = us / Self.dayUS
        if us < 0 && us % Self.dayUS != 0 { day -= 1 }
        var at = midnight.adding(microseconds: day * Self.dayUS + Int64(minute) * 60_000_000)
        while at <= t { at = at.adding(microseconds: Self.dayUS) }
        return at
    }
}
