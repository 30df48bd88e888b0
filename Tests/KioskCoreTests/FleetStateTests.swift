import Testing
@testable import KioskCore

/// `PREFIX/state`: the JSON contract, the UTC time text, and when states are published.
@Suite struct FleetStateTests {
    static func state(screen: FleetState.Screen = .playing, score: Int = 30, uptime: Int = 100,
                      brightness: Int? = 200, lastTouch: WallTime? = WallTime(microseconds: 1_796_184_421_750_000)) -> FleetState {
        FleetState(screen: screen, mode: .timed, score: score, displayOn: true, brightness: brightness,
                   volume: 70, roundsToday: 12, highScore: 540, lastTouch: lastTouch, touchscreens: 1,
                   version: "1.4.0", uptime: .seconds(uptime))
    }

    @Test func everyFieldInTheContractsOrder() {
        #expect(Self.state().json.text == """
            {"screen":"playing","mode":"timed","score":30,"display":"on","brightness":200,"volume":70,\
            "rounds_today":12,"high_score":540,"last_touch":"2026-12-02T04:07:01Z","touchscreens":1,\
            "version":"1.4.0","uptime_s":100,"tv":null}
            """)
        guard case .object(let pairs) = Self.state().json else { Issue.record("no object"); return }
        #expect(pairs.map(\.0) == ["screen", "mode", "score", "display", "brightness", "volume", "rounds_today",
                                   "high_score", "last_touch", "touchscreens", "version", "uptime_s", "tv"])
        // With an HDMI-CEC adapter: what the TV says of its power.
        var tv = Self.state()
        tv.tv = "standby"
        #expect(tv.json.text.hasSuffix(#""uptime_s":100,"tv":"standby"}"#))
    }

    @Test func nullBrightnessAndNoTouchYet() {
        var s = Self.state(brightness: nil, lastTouch: nil)
        s.displayOn = false
        #expect(s.json.text.contains(#""display":"off","brightness":null,"#))
        #expect(s.json.text.contains(#""last_touch":null,"#))
    }

    @Test(arguments: FleetState.Screen.allCases)
    func screenNames(_ screen: FleetState.Screen) {
        let names: [FleetState.Screen: String] = [
            .start: "start", .playing: "playing", .roundOver: "round_over", .demo: "demo",
            .touchTest: "touch_test", .asleep: "asleep", .noDisplay: "no_display",
        ]
        #expect(Self.state(screen: screen).json.text.hasPrefix(#"{"screen":"\#(names[screen]!)","#))
    }

    @Test func valuesOutsideTheContractAreClamped() {
        var s = Self.state(brightness: 300)
        s.volume = 101
        s.uptime = .seconds(-5)
        #expect(s.json.text.contains(#""brightness":255,"volume":100,"#))
        s.brightness = -1
        s.volume = -1
        #expect(s.json.text.contains(#""brightness":0,"volume":0,"#))
        #expect(s.json.text.hasSuffix(#""uptime_s":0,"tv":null}"#))
    }

    @Test func utcTimeText() {
        #expect(ClockText.iso8601(unixSeconds: Int64(0)) == "1970-01-01T00:00:00Z")
        #expect(ClockText.iso8601(unixSeconds: Int64(-1)) == "1969-12-31T23:59:59Z")
        #expect(ClockText.iso8601(unixSeconds: Int64(951_782_400)) == "2000-02-29T00:00:00Z")
        #expect(ClockText.iso8601(unixSeconds: Int64(1_709_251_199)) == "2024-02-29T23:59:59Z")
        #expect(ClockText.iso8601(unixSeconds: Int64(4_107_542_400)) == "2100-03-01T00:00:00Z")
        #expect(ClockText.iso8601(unixSeconds: Int64.max) == "9999-12-31T23:59:59Z")
        #expect(ClockText.iso8601(unixSeconds: Int64.min) == "0000-01-01T00:00:00Z")
        #expect(ClockText.iso8601(unixSeconds: 1.999) == "1970-01-01T00:00:01Z")
        #expect(ClockText.iso8601(unixSeconds: -0.5) == "1969-12-31T23:59:59Z")
        #expect(ClockText.iso8601(unixSeconds: Double.infinity) == nil)
        #expect(ClockText.iso8601(unixSeconds: 1e300) == "9999-12-31T23:59:59Z")
    }

    /// Day by day over four centuries the text's date advances by exactly one calendar day,
    /// and each date reads back as its day count.
    @Test func consecutiveDaysAreConsecutiveDates() {
        var previous = ClockText.civil(daysSinceEpoch: -146_097)
        #expect(previous == (1570, 1, 1))
        var wrong: [Int64] = []
        for day in Int64(-146_096)...146_097 {
            let d = ClockText.civil(daysSinceEpoch: day)
            let (y, m, dd) = previous
            let leap = y % 4 == 0 && (y % 100 != 0 || y % 400 == 0)
            let monthDays: [Int64] = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
            let expected = dd < monthDays[Int(m) - 1] ? (y, m, dd + 1) : m < 12 ? (y, m + 1, 1) : (y + 1, 1, 1)
            if d != expected || ClockText.daysSinceEpoch(year: d.year, month: d.month, day: d.day) != day { wrong.append(day) }
            previous = d
        }
        #expect(wrong.isEmpty)
        #expect(previous == (2370, 1, 1))
    }

    /// Only dates the calendar has are day counts (a schedule's closed days).
    @Test func datesThatAreNotInTheCalendarHaveNoDayCount() {
        #expect(ClockText.daysSinceEpoch(year: 1970, month: 1, day: 1) == 0)
        #expect(ClockText.daysSinceEpoch(year: 2026, month: 12, day: 25) == 20_812)
        #expect(ClockText.daysSinceEpoch(year: 2028, month: 2, day: 29) != nil)
        #expect(ClockText.daysSinceEpoch(year: 2000, month: 2, day: 29) != nil)
        for (y, m, d) in [(2026, 2, 29), (2100, 2, 29), (2026, 4, 31), (2026, 0, 1), (2026, 13, 1), (2026, 1, 0),
                          (2026, 1, 32), (Int64.max, 1, 1)] as [(Int64, Int64, Int64)] {
            #expect(ClockText.daysSinceEpoch(year: y, month: m, day: d) == nil, "\(y)-\(m)-\(d)")
        }
    }

    // MARK: pacing, on virtual time

    static let t0 = TimeStamp(microseconds: 1_000_000_000)
    static func at(_ ms: Int) -> TimeStamp { t0 + .milliseconds(ms) }

    @Test func firstStateGoesAtOnceThenTheHeartbeatIsDue() {
        var p = FleetStatePacing()
        let step = p.update(Self.state(), at: Self.t0)
        #expect(step == .init(send: Self.state(), next: Self.at(60_000)))
    }

    @Test func aBurstOfChangesIsCappedAndTheLatestWins() {
        var p = FleetStatePacing()
        var sent: [(ms: Int, score: Int)] = []
        var wake: TimeStamp?
        // A pop every 20 ms for 2 s; the loop also calls back when told to.
        var ms = 0
        var score = 0
        while ms <= 2000 {
            let now = Self.at(ms)
            if ms % 20 == 0 { score += 10 }
            if ms % 20 == 0 || wake == now {
                let step = p.update(Self.state(score: score, uptime: 100 + ms / 1000), at: now)
                if let s = step.send { sent.append((ms, s.score)) }
                wake = step.next
            }
            ms += 1
        }
        // At most one per 250 ms: 0, 250, ..., 2000.
        #expect(sent.map(\.ms) == Array(stride(from: 0, through: 2000, by: 250)))
        for (a, b) in zip(sent, sent.dropFirst()) { #expect(b.ms - a.ms >= 250) }
        // Each one carries the score at the moment it went, not a queued older one.
        for s in sent { #expect(s.score == (s.ms / 20 + 1) * 10) }
    }

    @Test func aChangeAfterAQuietSpellGoesAtOnce() {
        var p = FleetStatePacing()
        _ = p.update(Self.state(score: 0), at: Self.t0)
        #expect(p.update(Self.state(score: 10), at: Self.at(5_000)).send?.score == 10)
        // Within 250 ms of that: wait until then.
        #expect(p.update(Self.state(score: 20), at: Self.at(5_100)) == .init(send: nil, next: Self.at(5_250)))
        // Changed back to what was sent: nothing to send, only the heartbeat is due.
        #expect(p.update(Self.state(score: 10), at: Self.at(5_250)) == .init(send: nil, next: Self.at(65_000)))
    }

    @Test func uptimeAloneIsNoChangeButTheHeartbeatCarriesIt() {
        var p = FleetStatePacing()
        _ = p.update(Self.state(uptime: 100), at: Self.t0)
        for s in 1..<60 {
            let step = p.update(Self.state(uptime: 100 + s), at: Self.at(s * 1000))
            #expect(step == .init(send: nil, next: Self.at(60_000)))
        }
        let beat = p.update(Self.state(uptime: 160), at: Self.at(60_000))
        #expect(beat == .init(send: Self.state(uptime: 160), next: Self.at(120_000)))
        // A touch in the same whole second as the last one is no change either.
        #expect(p.update(Self.state(uptime: 161, lastTouch: WallTime(microseconds: 1_796_184_421_990_000)), at: Self.at(61_000)).send == nil)
        #expect(p.update(Self.state(uptime: 161, lastTouch: WallTime(microseconds: 1_796_184_422_000_000)), at: Self.at(61_000)).send != nil)
    }

    @Test func resendAfterAReconnectStillKeepsTheInterval() {
        var p = FleetStatePacing()
        _ = p.update(Self.state(), at: Self.t0)
        p.resend()
        #expect(p.update(Self.state(), at: Self.at(100)) == .init(send: nil, next: Self.at(250)))
        #expect(p.update(Self.state(), at: Self.at(250)).send == Self.state())
        #expect(p.update(Self.state(), at: Self.at(300)).send == nil)
    }

    @Test func nonsenseSettingsAreMadeSafe() {
        let p = FleetStatePacing(minInterval: .zero, heartbeat: .milliseconds(-5))
        #expect(p.minInterval == .milliseconds(1) && p.heartbeat == .milliseconds(1))
        let q = FleetStatePacing(minInterval: .seconds(1), heartbeat: .seconds(30))
        #expect(q.minInterval == .seconds(1) && q.heartbeat == .seconds(30))
    }
}
