internal import CLinux
import Glibc
import KioskCore

/// The machine's wall clock and local calendar (TZ, /etc/localtime): `clock_gettime` for the
/// wall time, `localtime_r` for the calendar, `mktime` for when a day's time of day comes, so
/// daylight-saving days are as long as the C library says. The offset between the real-time
/// and monotonic clocks is read anew at each call, so a clock set meanwhile is followed from the
/// next call on. It keeps no state: any thread may ask it.
public final class SystemWallClock: WallClock, Sendable {
    public init() {}

    /// The real-time clock now.
    public static func now() -> WallTime {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return WallTime(microseconds: Int64(ts.tv_sec) &* 1_000_000 &+ Int64(ts.tv_nsec) / 1000)
    }

    public func wallTime(at t: TimeStamp) -> WallTime {
        // Both clocks read back to back: the monotonic moment `t` moved by their offset.
        let offset = Self.now().microseconds &- CLinux_monotonic_us()
        return WallTime(microseconds: t.microseconds &+ offset)
    }

    public func local(_ w: WallTime) -> LocalTime {
        var t = time_t(w.wholeUnixSeconds)
        var civil = tm()
        localtime_r(&t, &civil)
        let localSeconds = Int64(t) + Int64(civil.tm_gmtoff)
        let number = Int(localSeconds >= 0 ? localSeconds / 86_400 : (localSeconds - 86_399) / 86_400)
        let zone = civil.tm_zone.map { String(cString: $0) } ?? ""
        var midnight = civil
        midnight.tm_hour = 0
        midnight.tm_min = 0
        midnight.tm_sec = 0
        midnight.tm_isdst = -1  // whatever daylight saving says at that midnight
        let start = mktime(&midnight)
        return LocalTime(wall: w,
                         day: LocalDay(number: number, start: start == -1 ? w : WallTime(unixSeconds: Int64(start))),
                         hour: Int(civil.tm_hour), minute: Int(civil.tm_min), second: min(Int(civil.tm_sec), 59),
                         zone: zone)
    }

    public func wallTime(localDay day: Int, minute: Int) -> WallTime {
        // Day `day` after 1970-01-01: mktime normalises the day of the month, and finds out
        // whether daylight saving is in force then (tm_isdst -1).
        var want = tm()
        want.tm_year = 70
        want.tm_mday = Int32(clamping: 1 + day + minute / 1440)
        want.tm_hour = Int32(minute % 1440 / 60)
        want.tm_min = Int32(minute % 60)
        want.tm_isdst = -1
        let t = mktime(&want)
        let wanted = Int64(day) * 86_400 + Int64(minute) * 60
        // mktime cannot say (no such time in this zone?): read the day as UTC.
        guard t != -1 else { return WallTime(unixSeconds: wanted) }
        let at = Int64(t)
        guard shown(at) > wanted else { return WallTime(unixSeconds: at) }
        // A time the clock skips: mktime moved it past the gap. The answer is the gap's end, the
        // first second the clock shows that time or later (found within the three hours before).
        var before = at - 3 * 3600, after = at
        guard shown(before) < wanted else { return WallTime(unixSeconds: at) }
        while after - before > 1 {
            let middle = before + (after - before) / 2
            if shown(middle) < wanted { before = middle } else { after = middle }
        }
        return WallTime(unixSeconds: after)
    }

    /// What the local clock shows at Unix second `s`, as seconds since 1970-01-01 00:00 local.
    private func shown(_ s: Int64) -> Int64 {
        var t = time_t(s)
        var civil = tm()
        guard localtime_r(&t, &civil) != nil else { return s }
        return s + Int64(civil.tm_gmtoff)
    }
}
