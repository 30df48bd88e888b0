internal import CLinux
import Glibc
import KioskCore

/// The machine's wall clock and local calendar (TZ, /etc/localtime): `clock_gettime` for the
/// wall time, `localtime_r` for the calendar, `mktime` for when a time of day next comes, so
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

    public func next(minute: Int, after w: WallTime) -> WallTime {
        var t = time_t(w.wholeUnixSeconds)
        var today = tm()
        localtime_r(&t, &today)
        for day in 0...2 {
            var want = today
            want.tm_mday += Int32(day)
            want.tm_hour = Int32(minute / 60)
            want.tm_min = Int32(minute % 60)
            want.tm_sec = 0
            want.tm_isdst = -1
            let at = mktime(&want)
            if at != -1, WallTime(unixSeconds: Int64(at)) > w { return WallTime(unixSeconds: Int64(at)) }
        }
        // mktime cannot say (a time zone without that day?): look again in an hour.
        return w + .seconds(3600)
    }
}
