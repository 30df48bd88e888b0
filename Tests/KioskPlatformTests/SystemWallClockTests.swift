import Glibc
import KioskCore
import KioskPlatform
import KioskTestSupport
import Testing

/// The machine's local time seen from the monotonic clock, as the sleep schedule uses it.
/// Tagged for timing: two readings of the real clock are to agree within a second.
@Suite(.tags(.timing)) struct SystemWallClockTests {
    /// The time of day agrees with localtime_r, and `next` lands on the minute asked for,
    /// within a day, in the future.
    @Test func timeOfDayAndTheNextMinuteAgreeWithTheCLibrary() {
        let clock = SystemWallClock()
        let now = EventLoop.now()
        var t = time(nil)
        var civil = tm()
        localtime_r(&t, &civil)
        let expected = Int(civil.tm_hour) * 3600 + Int(civil.tm_min) * 60 + Int(civil.tm_sec)
        let got = clock.secondsSinceMidnight(at: now)
        // The two readings are a moment apart (a second boundary, or midnight, may pass).
        #expect(abs(got - expected) <= 1 || abs(got - expected) >= 86_398, "\(got) vs \(expected)")
        for minute in [0, 1, 7 * 60, 22 * 60 + 30, 1439, 1440] {
            let at = clock.next(minute: minute, after: now)
            #expect(at > now)
            #expect((at - now).inMilliseconds <= 25 * 3_600_000, "minute \(minute)")
            // Outside a daylight-saving gap the clock shows that minute then (the real-time to
            // monotonic offset is read anew each call: a microsecond either way is a second off).
            let shown = clock.secondsSinceMidnight(at: (at + .milliseconds(500)))
            #expect(shown == (minute % 1440) * 60, "minute \(minute): \(shown)")
        }
    }
}
