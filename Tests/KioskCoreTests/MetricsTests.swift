import Testing
@testable import KioskCore
import KioskTestSupport

/// Prometheus' text exposition format, by hand.
@Suite struct PrometheusTextTests {
    @Test func helpAndTypeLinesComeBeforeTheSamples() {
        let text = PrometheusText.render([
            MetricFamily("demo_total", .counter, help: "Things.", [.init([.init("mode", "a")], 3), .init([.init("mode", "b")], 0)]),
            MetricFamily("demo_up", .gauge, help: "Up.", [.init([], 1)]),
        ])
        #expect(text == """
            # HELP demo_total Things.
            # TYPE demo_total counter
            demo_total{mode="a"} 3
            demo_total{mode="b"} 0
            # HELP demo_up Up.
            # TYPE demo_up gauge
            demo_up 1

            """)
    }

    @Test func labelValuesAndHelpAreEscaped() {
        #expect(PrometheusText.escapeLabelValue(#"a\b"c"# + "\nd") == #"a\\b\"c\nd"#)
        // HELP escapes backslash and line feed only: quotes stay.
        #expect(PrometheusText.escapeHelp(#"say "hi" \ "# + "\nbye") == #"say "hi" \\ \nbye"#)
        let text = PrometheusText.render([MetricFamily("x", .gauge, help: "two\nlines", [.init([.init("path", "C:\\\"q\"")], 1)])])
        #expect(text.contains("# HELP x two\\nlines\n"))
        #expect(text.contains(#"x{path="C:\\\"q\""} 1"#))
        #expect(text.split(separator: "\n").count == 3)
    }

    @Test func valuesAreWhatGoParses() {
        #expect(PrometheusText.format(0) == "0")
        #expect(PrometheusText.format(-0.0) == "0")
        #expect(PrometheusText.format(42) == "42")
        #expect(PrometheusText.format(1796110008.5) == "1796110008.5")
        #expect(PrometheusText.format(0.000635) == "0.000635")
        #expect(PrometheusText.format(.nan) == "NaN")
        #expect(PrometheusText.format(.infinity) == "+Inf")
        #expect(PrometheusText.format(-.infinity) == "-Inf")
        #expect(PrometheusText.format(1e20) == "1e+20")
    }

    @Test func namesFollowTheGrammar() {
        #expect(PrometheusText.isValidName("bubble_kiosk_up"))
        #expect(PrometheusText.isValidName("job:rate5m"))
        #expect(!PrometheusText.isValidName("job:rate5m", label: true))
        #expect(!PrometheusText.isValidName("9lives"))
        #expect(!PrometheusText.isValidName("bubble-kiosk"))
        #expect(!PrometheusText.isValidName(""))
    }

    @Test func summariesHaveQuantilesSumAndCount() {
        let f = MetricFamily.summary("t_seconds", help: "T.", recent: [1, 2, 3, 4], count: 10, sum: 25)
        #expect(PrometheusText.render([f]) == """
            # HELP t_seconds T.
            # TYPE t_seconds summary
            t_seconds{quantile="0.5"} 2.5
            t_seconds{quantile="0.95"} 4
            t_seconds_sum 25
            t_seconds_count 10

            """)
        let empty = PrometheusText.render([.summary("t_seconds", help: "T.", recent: [], count: 0, sum: 0)])
        #expect(empty.contains("t_seconds{quantile=\"0.5\"} NaN\n"))
        #expect(empty.contains("t_seconds_count 0\n"))
    }
}

/// The kiosk's counters, fed by a stream of events.
@Suite struct KioskMetricsTests {
    func frame(_ ids: [Int], device: Int = 0, ms: Double = 0) -> KioskEvent {
        .touch(TouchFrame(time: TimeStamp(milliseconds: ms), device: device,
                          contacts: ids.enumerated().map { TouchPoint(slot: $0.offset, trackingID: $0.element, position: Vector2(1, 1)) }))
    }

    func live(screen: KioskGame.Screen = .start, touchscreens: Int? = nil) -> KioskMetrics.LiveFigures {
        KioskMetrics.LiveFigures(displayUp: true, touchscreens: touchscreens, screen: screen, frames: 0,
                                 frameTimes: SampleRing(capacity: 4), latencies: SampleRing(capacity: 4))
    }

    /// The value of one series in the rendered text (`name{labels}`), nil when absent.
    func value(_ text: String, _ series: String) -> String? {
        for line in text.split(separator: "\n") where line.hasPrefix(series + " ") {
            return String(line.dropFirst(series.count + 1))
        }
        return nil
    }

    @Test func touchesCountContactsGoingDownNotFrames() {
        var m = KioskMetrics(startTime: WallTime(unixSeconds: 1000))
        var told = EventFactsTracker()
        m.note(frame([1]), told.facts(for: frame([1]), screen: .start, round: nil, at: .zero))
        m.note(frame([1]), told.facts(for: frame([1]), screen: .start, round: nil, at: .zero))       // the same finger moving
        m.note(frame([1, 2]), told.facts(for: frame([1, 2]), screen: .start, round: nil, at: .zero))      // a second finger
        m.note(frame([3]), told.facts(for: frame([3]), screen: .start, round: nil, at: .zero))         // both lifted (unseen), a new one down
        m.note(frame([1], device: 1), told.facts(for: frame([1], device: 1), screen: .start, round: nil, at: .zero))  // another screen's id 1 is its own
        #expect(m.touches == 4)
        // The last touch is the runtime's (`Activity`), handed over with the live figures.
        var figures = live()
        figures.lastTouch = WallTime(microseconds: 1_004_250_000)
        let text = m.exposition(figures)
        #expect(value(text, "bubble_kiosk_touches_total") == "4")
        #expect(value(text, "bubble_kiosk_last_touch_timestamp_seconds") == "1004.25")
        #expect(value(text, "bubble_kiosk_start_time_seconds") == "1000")
    }

    @Test func roundsAndPopsByModeKindAndOutcome() {
        var m = KioskMetrics(startTime: .epoch)
        var told = EventFactsTracker()
        let round = makeRound(seed: 1)
        // Seed 1: bubble 0 is a tap bubble, bubble 1 a swipe bubble.
        m.note(.game(.roundStarted(demo: false)), told.facts(for: .game(.roundStarted(demo: false)), screen: .start, round: round, at: .zero))
        m.note(.game(.tapped(bubble: 0, tapsLeft: 1)), told.facts(for: .game(.tapped(bubble: 0, tapsLeft: 1)), screen: .start, round: round, at: .zero))
        m.note(.game(.popped(bubble: 0, points: 20)), told.facts(for: .game(.popped(bubble: 0, points: 20)), screen: .start, round: round, at: .zero))
        m.note(.game(.popped(bubble: 1, points: 20)), told.facts(for: .game(.popped(bubble: 1, points: 20)), screen: .start, round: round, at: .zero))
        m.note(.game(.roundOver(score: 40)), told.facts(for: .game(.roundOver(score: 40)), screen: .start, round: round, at: .zero))
        m.note(.screen(.roundOver), told.facts(for: .screen(.roundOver), screen: .start, round: round, at: .zero))
        // A demo: its last pop is told after the round is gone; a person then takes over a second demo.
        let demo = makeRound(seed: 1)
        m.note(.game(.roundStarted(demo: true)), told.facts(for: .game(.roundStarted(demo: true)), screen: .start, round: demo, at: .zero))
        m.note(.game(.popped(bubble: 1, points: 20)), told.facts(for: .game(.popped(bubble: 1, points: 20)), screen: .start, round: nil, at: .zero))
        m.note(.game(.roundOver(score: 20)), told.facts(for: .game(.roundOver(score: 20)), screen: .start, round: nil, at: .zero))
        m.note(.game(.roundStarted(demo: true)), told.facts(for: .game(.roundStarted(demo: true)), screen: .start, round: demo, at: .zero))
        m.note(.game(.roundStarted(demo: false)), told.facts(for: .game(.roundStarted(demo: false)), screen: .start, round: round, at: .zero))
        m.note(.game(.idleReturn), told.facts(for: .game(.idleReturn), screen: .start, round: nil, at: .zero))
        // A timed round: a bubble spawned later pops by its kind.
        var timed = makeRound(seed: 5, mode: .timed)
        m.note(.game(.roundStarted(demo: false)), told.facts(for: .game(.roundStarted(demo: false)), screen: .start, round: timed, at: .zero))
        let spawned = timed.advance(to: TimeStamp(milliseconds: 1600))
        guard case .spawned(let id)? = spawned.first(where: { if case .spawned = $0 { true } else { false } }) else {
            Issue.record("no spawn in \(spawned)")
            return
        }
        m.note(.game(.spawned(bubble: id)), told.facts(for: .game(.spawned(bubble: id)), screen: .start, round: timed, at: .zero))
        m.note(.game(.popped(bubble: id, points: 10)), told.facts(for: .game(.popped(bubble: id, points: 10)), screen: .start, round: timed, at: .zero))
        m.note(.game(.roundOver(score: 10)), told.facts(for: .game(.roundOver(score: 10)), screen: .start, round: timed, at: .zero))
        let spawnedKind = timed.bubbles.first { $0.id == id }!.kindName

        let text = m.exposition(live())
        #expect(value(text, #"bubble_kiosk_rounds_started_total{mode="classic"}"#) == "2")
        #expect(value(text, #"bubble_kiosk_rounds_started_total{mode="demo"}"#) == "2")
        #expect(value(text, #"bubble_kiosk_rounds_started_total{mode="timed"}"#) == "1")
        #expect(value(text, #"bubble_kiosk_rounds_played_total{mode="classic",outcome="finished"}"#) == "1")
        #expect(value(text, #"bubble_kiosk_rounds_played_total{mode="classic",outcome="abandoned"}"#) == "1")
        #expect(value(text, #"bubble_kiosk_rounds_played_total{mode="demo",outcome="finished"}"#) == "1")
        #expect(value(text, #"bubble_kiosk_rounds_played_total{mode="demo",outcome="interrupted"}"#) == "1")
        #expect(value(text, #"bubble_kiosk_rounds_played_total{mode="timed",outcome="finished"}"#) == "1")
        #expect(value(text, #"bubble_kiosk_rounds_played_total{mode="timed",outcome="abandoned"}"#) == "0")
        #expect(value(text, #"bubble_kiosk_bubbles_popped_total{mode="classic",kind="tap"}"#) == "1")
        #expect(value(text, #"bubble_kiosk_bubbles_popped_total{mode="classic",kind="swipe"}"#) == "1")
        #expect(value(text, #"bubble_kiosk_bubbles_popped_total{mode="demo",kind="swipe"}"#) == "1")
        #expect(value(text, #"bubble_kiosk_bubbles_popped_total{mode="demo",kind="tap"}"#) == "0")
        #expect(value(text, "bubble_kiosk_bubbles_popped_total{mode=\"timed\",kind=\"\(spawnedKind)\"}") == "1")
    }

    @Test func liveFiguresBecomeGaugesAndSummaries() {
        let m = KioskMetrics(startTime: .epoch)
        var frames = SampleRing(capacity: 2)
        for ms in [1.0, 3.0, 2.0] { frames.add(.milliseconds(ms)) }
        var latencies = SampleRing(capacity: 8)
        latencies.add(.milliseconds(12.5))
        let text = m.exposition(KioskMetrics.LiveFigures(
            displayUp: false, screens: 0, touchscreens: 2, screen: .playing(demo: true), frames: 3,
            frameTimes: frames, latencies: latencies))
        #expect(value(text, "bubble_kiosk_frames_total") == "3")
        // Quantiles over the samples kept (3 and 2 ms); sum and count over every frame.
        #expect(value(text, #"bubble_kiosk_frame_time_seconds{quantile="0.5"}"#) == "0.0025")
        #expect(value(text, #"bubble_kiosk_frame_time_seconds{quantile="0.95"}"#) == "0.003")
        #expect(value(text, "bubble_kiosk_frame_time_seconds_sum") == "0.006")
        #expect(value(text, "bubble_kiosk_frame_time_seconds_count") == "3")
        #expect(value(text, #"bubble_kiosk_input_latency_seconds{quantile="0.5"}"#) == "0.0125")
        #expect(value(text, "bubble_kiosk_input_latency_seconds_count") == "1")
        #expect(value(text, "bubble_kiosk_display_up") == "0")
        #expect(value(text, "bubble_kiosk_display_screens") == "0")
        #expect(value(text, "bubble_kiosk_touchscreens") == "2")
        #expect(value(text, #"bubble_kiosk_screen{screen="demo"}"#) == "1")
        #expect(value(text, #"bubble_kiosk_screen{screen="start"}"#) == "0")
        // Without device discovery (a replay) there is no touchscreen count at all.
        #expect(!KioskMetrics(startTime: .epoch).exposition(live()).contains("bubble_kiosk_touchscreens"))
    }

    /// Every family has HELP and TYPE, follows the naming rules, and counters end in `_total`.
    @Test func everyFamilyIsWellFormed() {
        let families = KioskMetrics(startTime: .epoch).families(live(touchscreens: 1))
        #expect(families.count == 16)
        #expect(Set(families.map(\.name)).count == families.count)
        for f in families {
            #expect(f.name.hasPrefix("bubble_kiosk_"))
            #expect(PrometheusText.isValidName(f.name), "\(f.name)")
            #expect(!f.help.isEmpty)
            #expect((f.kind == .counter) == f.name.hasSuffix("_total"), "\(f.name)")
            if f.name.contains("time") || f.name.contains("latency") { #expect(f.name.hasSuffix("_seconds"), "\(f.name)") }
            for s in f.samples {
                for l in s.labels { #expect(PrometheusText.isValidName(l.name, label: true)) }
            }
        }
    }
}

/// `[metrics]`: off by default, an absolute path, an interval, applied at once on reload.
@Suite struct MetricsConfigTests {
    @Test func offByDefaultAndAutoIsOff() {
        #expect(Settings().metrics.textfile == nil)
        #expect(Settings().metrics.interval == .seconds(5))
        #expect(loadConfig("[metrics]\ntextfile = auto\n", file: "m.conf").settings.metrics.textfile == nil)
    }

    @Test func takesAnAbsolutePathAndAnInterval() {
        let r = loadConfig("[metrics]\ntextfile = /var/lib/prometheus/node-exporter/bubble-kiosk.prom\ninterval_s = 2.5\n", file: "m.conf")
        #expect(r.diagnostics.isEmpty)
        #expect(r.settings.metrics.textfile == "/var/lib/prometheus/node-exporter/bubble-kiosk.prom")
        #expect(r.settings.metrics.interval == .seconds(2.5))
    }

    @Test func badValuesAreNamedWithFileAndLine() {
        let r = loadConfig("[metrics]\ntextfile = metrics.prom\ninterval_s = 0.1\n", file: "m.conf")
        let lines = r.diagnostics.map(\.description)
        #expect(lines.count == 2)
        #expect(lines[0].hasPrefix("m.conf:2: textfile:"), "\(lines)")
        #expect(lines[1].hasPrefix("m.conf:3: interval_s:"), "\(lines)")
        #expect(r.settings.metrics == MetricsSettings())
    }

    @Test func aReloadAppliesAtOnce() {
        for key in ConfigSchema.standard.keys where key.section == "metrics" {
            #expect(ReloadPolicy.effect(of: key) == .now, "\(key.id)")
        }
        var loaded = Settings()
        loaded.metrics.textfile = "/tmp/x.prom"
        #expect(ReloadPolicy.merged(Settings(), loaded, upTo: .now).metrics.textfile == "/tmp/x.prom")
    }
}
