import KioskCore
import Testing

/// Deadlines as a time plus a `Duration`, spans as a time minus a time.
struct TimeStampDurationTests {
    @Test func addingADurationMatchesAddingMilliseconds() {
        let t = TimeStamp(microseconds: 1_000_000)
        #expect(t + .milliseconds(250) == (t + .milliseconds(250)))
        #expect(t + .seconds(1) / 60 == (t + .milliseconds(1000.0 / 60)))
        #expect(t + (.seconds(1) / 60 - .milliseconds(1)) == (t + .milliseconds(1000.0 / 60 - 1)))
        #expect(t + .seconds(-2) == TimeStamp(microseconds: -1_000_000))
        #expect(t - .seconds(60) == (t + .milliseconds(-60_000)))
    }

    @Test func addingSaturates() {
        #expect(TimeStamp.distantFuture + .seconds(1) == .distantFuture)
        #expect(TimeStamp(microseconds: .min) + .seconds(-1) == TimeStamp(microseconds: .min))
        #expect(TimeStamp.zero + .seconds(Int64.max) == .distantFuture)
    }

    @Test func wholeMicrosecondsRoundHalvesAwayFromZero() {
        #expect(Duration.nanoseconds(1500).wholeMicroseconds == 2)
        #expect(Duration.nanoseconds(1499).wholeMicroseconds == 1)
        #expect(Duration.nanoseconds(-1500).wholeMicroseconds == -2)
    }

    @Test func differenceIsTheSpanBetween() {
        let a = TimeStamp(microseconds: 5_250_000), b = TimeStamp(microseconds: 1_000_000)
        #expect(a - b == .milliseconds(4250))
        #expect((a - b).inMilliseconds == (a - b).inMilliseconds)
        #expect((a - b).inSeconds == 4.25)
        #expect(b - a == .milliseconds(-4250))
        // Far apart (a nonsense stamp): no trap.
        #expect(TimeStamp.distantFuture - TimeStamp(microseconds: .min) > .zero)
    }

    /// Settings keep their `*_s` keys; the spans follow them.
    @Test func settingsSpansFollowTheirKeys() {
        var settings = Settings()
        settings.hooks.timeout = .seconds(2.5)
        settings.metrics.interval = .seconds(0.25)
        #expect(settings.hooks.timeout == .milliseconds(2500))
        #expect(settings.metrics.interval == .milliseconds(250))
        #expect(settings.operator.touchTestTimeout == .seconds(60))
    }
}
