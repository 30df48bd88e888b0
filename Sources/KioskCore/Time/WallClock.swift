/// The one wall clock: the real-time clock and the local calendar, seen from the monotonic clock
/// the loop runs on. The platform's answers come from `clock_gettime`, `localtime_r` and
/// `mktime` (daylight saving is the C library's business); tests hand in a `VirtualWallClock`,
/// so every local-time decision (the sleep schedule, rounds today, the daily tables) runs on
/// virtual time.
public protocol WallClock: AnyObject {
    /// The wall time at monotonic time `t`.
    func wallTime(at t: TimeStamp) -> WallTime
    /// The local calendar at `w`.
    func local(_ w: WallTime) -> LocalTime
    /// When the local clock shows `minute` (minutes since midnight, 1440 is the next one) on
    /// local day `day` (`LocalDay.number`): in an hour daylight saving skips, the end of the
    /// gap; in one it repeats, either pass.
    func wallTime(localDay day: Int, minute: Int) -> WallTime
}

extension WallClock {
    /// The local calendar at monotonic time `t`.
    public func local(at t: TimeStamp) -> LocalTime { local(wallTime(at: t)) }

    /// The second of the day the local clock shows at `t`.
    public func secondsSinceMidnight(at t: TimeStamp) -> Int { local(at: t).secondOfDay }

    /// The local date and time at `t`, for log lines that say when.
    public func stamp(at t: TimeStamp) -> String { local(at: t).stamp }
}

/// Local days of exactly 24 hours in a zone with a fixed offset, with local midnight at a given
/// monotonic time: runtime and policy tests. Moving `midnight` is a clock jump (an NTP step, a
/// time zone change).
public final class VirtualWallClock: WallClock {
    /// A monotonic time at which the local clock showed 00:00 on `date`.
    public var midnight: TimeStamp
    /// The local day that began at `midnight`, in days since 1970-01-01.
    public var day: Int
    /// Local time minus UTC, and the zone's name.
    public var offset: Duration
    public var zone: String

    /// - Parameter day: defaults to 2026-12-01.
    public init(midnight: TimeStamp, day: Int = 20_788, offset: Duration = .seconds(3600), zone: String = "CET") {
        self.midnight = midnight
        self.day = day
        self.offset = offset
        self.zone = zone
    }

    /// A wall clock that shows `hour:minute` at monotonic time `t`.
    public convenience init(showing hour: Int, _ minute: Int, at t: TimeStamp) {
        self.init(midnight: t - .seconds(hour * 3600 + minute * 60))
    }

    /// A wall clock that reads `wall` at monotonic time `t`.
    public convenience init(reading wall: WallTime, at t: TimeStamp, offset: Duration = .seconds(3600), zone: String = "CET") {
        let local = (wall + offset).wholeUnixSeconds
        let day = local >= 0 ? local / 86_400 : (local - 86_399) / 86_400
        let sinceMidnight = (wall + offset) - WallTime(unixSeconds: day * 86_400)
        self.init(midnight: t - sinceMidnight, day: Int(day), offset: offset, zone: zone)
    }

    /// Local midnight of day `n` as a wall time.
    private func start(ofDay n: Int) -> WallTime {
        WallTime(unixSeconds: Int64(n) * 86_400) - offset
    }

    public func wallTime(at t: TimeStamp) -> WallTime {
        start(ofDay: day) + (t - midnight)
    }

    public func local(_ w: WallTime) -> LocalTime {
        let shifted = (w + offset).wholeUnixSeconds
        let n = Int(shifted >= 0 ? shifted / 86_400 : (shifted - 86_399) / 86_400)
        let s = Int(shifted - Int64(n) * 86_400)
        return LocalTime(wall: w, day: LocalDay(number: n, start: start(ofDay: n)),
                         hour: s / 3600, minute: s / 60 % 60, second: s % 60, zone: zone)
    }

    public func wallTime(localDay day: Int, minute: Int) -> WallTime {
        start(ofDay: day) + .seconds(minute * 60)
    }
}
