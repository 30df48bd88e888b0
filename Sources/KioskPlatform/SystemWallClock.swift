internal import CLinux
import Glibc
import KioskCore

/// The machine's local time (TZ, /etc/localtime) for monotonic moments: `localtime_r` for the
/// time of day, `mktime` for when a time of day next comes, so daylight-saving days are as long
/// as the C library says. The offset between the real-time and monotonic clocks is read anew
/// at each call, so a clock set meanwhile is followed from the next call on.
public final class SystemWallClock: LocalWallClock {
    public init() {}

    /// Seconds since the Unix epoch (CLOCK_REALTIME): hooks' `time`, metrics, fleet state.
    public static func unixSeconds() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }

    /// Microseconds to add to a monotonic time to get Unix time.
    private func offsetUS() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Int64(ts.tv_sec) * 1_000_000 + Int64(ts.tv_nsec) / 1000 - CLinux_monotonic_us()
    }

    /// The local calendar day of a Unix time, as a number that grows by one a day (days since
    /// 1970 in local time): where "today" begins and ends for counts kept by day.
    public static func localDay(unixSeconds: Double) -> Int {
        var t = time_t(unixSeconds.rounded(.down))
        var civil = tm()
        localtime_r(&t, &civil)
        let localSeconds = Int(t) + Int(civil.tm_gmtoff)
        return localSeconds >= 0 ? localSeconds / 86_400 : (localSeconds - 86_399) / 86_400
    }

    private func local(_ unixSeconds: Int64) -> tm {
        var t = time_t(unixSeconds)
        var out = tm()
        localtime_r(&t, &out)
        return out
    }

    public func secondsSinceMidnight(at t: TimeStamp) -> Int {
        let civil = local((t.microseconds &+ offsetUS()) / 1_000_000)
        return Int(civil.tm_hour) * 3600 + Int(civil.tm_min) * 60 + min(Int(civil.tm_sec), 59)
    }

    public func next(minute: Int, after t: TimeStamp) -> TimeStamp {
        let offset = offsetUS()
        let unixUS = t.microseconds &+ offset
        let today = local(unixUS / 1_000_000)
        for day in 0...2 {
            var want = today
            want.tm_mday += Int32(day)
            want.tm_hour = Int32(minute / 60)
            want.tm_min = Int32(minute % 60)
            want.tm_sec = 0
            want.tm_isdst = -1  // whatever daylight saving says on that day
            let at = mktime(&want)
            if at != -1, Int64(at) * 1_000_000 > unixUS {
                return TimeStamp(microseconds: Int64(at) * 1_000_000 &- offset)
            }
        }
        // mktime cannot say (a time zone without that day?): look again in an hour.
        return t + .seconds(3600)
    }

    /// `2026-12-01 10:15:02 CET`: the local wall time at monotonic time `t`.
    public func stamp(at t: TimeStamp) -> String {
        var time = time_t((t.microseconds &+ offsetUS()) / 1_000_000)
        var civil = tm()
        localtime_r(&time, &civil)
        var buffer = [CChar](repeating: 0, count: 64)
        let n = strftime(&buffer, buffer.count, "%Y-%m-%d %H:%M:%S %Z", &civil)
        return String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
