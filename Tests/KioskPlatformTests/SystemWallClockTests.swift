import Glibc
import KioskCore
import KioskPlatform
import KioskTestSupport
import Testing

/// The machine's local time seen from the monotonic clock, as the sleep schedule uses it.
/// Tagged for timing: two readings of the real clock are to agree within a second.
@Suite(.tags(.timing)) struct SystemWallClockTests {
    /// The time of day agrees with localtime_r, and a local day's minute turns into a wall
    /// time at which the clock shows it, in whatever zone the machine is in (the days
    /// daylight saving changes are `check-config`'s test, under TZ=Europe/Berlin).
    @Test func timeOfDayAndALocalDaysMinuteAgreeWithTheCLibrary() {
        let clock = SystemWallClock()
        let now = EventLoop.now()
        var t = time(nil)
        var civil = tm()
        localtime_r(&t, &civil)
        let expected = Int(civil.tm_hour) * 3600 + Int(civil.tm_min) * 60 + Int(civil.tm_sec)
        let got = clock.secondsSinceMidnight(at: now)
        // The two readings are a moment apart (a second boundary, or midnight, may pass).
        #expect(abs(got - expected) <= 1 || abs(got - expected) >= 86_398, "\(got) vs \(expected)")
        let today = clock.local(at: now).day
        #expect(clock.wallTime(localDay: today.number, minute: 0) == today.start)
        for day in [today.number - 400, today.number - 1, today.number, today.number + 1, today.number + 200] {
            for minute in [0, 1, 7 * 60, 22 * 60 + 30, 1439, 1440] {
                let w = clock.wallTime(localDay: day, minute: minute)
                let shown = SleepSchedule.Moment(clock.local(w))
                // Outside a daylight-saving gap the clock shows that minute then, at its first second.
                #expect(shown == SleepSchedule.Moment(day: day, minute: minute) && clock.local(w).second == 0,
                        "day \(day) minute \(minute): \(shown)")
            }
        }
    }
}
