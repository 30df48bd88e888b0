import Glibc
import KioskCore
import KioskLayers
import KioskPlatform
import KioskRuntime
import Testing

/// The display's sleep in the live loop, on virtual time with the virtual display.
@Suite struct DisplaySleepRuntimeTests {
    static func settings(schedule: String = "", idleMin: Double = 0, demo: Bool = false) -> Settings {
        var s = Settings.classicOnly
        s.attract.demo = demo
        // The timers and wake-ups counted here are the sleep's; the burn-in shift's steps while
        // awake are PixelShiftRuntimeTests'.
        s.display.pixelShift = false
        s.display.sleepAfterIdle = .seconds(idleMin * 60)
        if case .success(let parsed) = SleepSchedule.parse(schedule) { s.display.sleepSchedule = parsed }
        return s
    }

    /// A harness whose wall clock shows `hour:minute` when it starts.
    func harness(_ settings: Settings, showing hour: Int, _ minute: Int,
                 notifier: RecordingNotifier? = nil) throws -> (RuntimeHarness, VirtualDisplay) {
        let h = try RuntimeHarness(settings: settings, notifier: notifier)
        notifier?.clock = h.clock
        h.runtime.wallClock = VirtualWallClock(showing: hour, minute, at: h.now)
        return (h, h.display as! VirtualDisplay)
    }

    func hours(_ n: Double) -> Double { n * 3_600_000 }

    @Test func theScheduleSwitchesTheScreenOffDrawsNothingAndWakesAtItsEnd() throws {
        let notifier = RecordingNotifier()
        let (h, display) = try harness(Self.settings(schedule: "22:00-07:00"), showing: 21, 59, notifier: notifier)
        var sleeps: [Bool] = []
        h.runtime.observe { e, _ in if case .displaySleep(let asleep) = e { sleeps.append(asleep) } }
        try h.run(ms: 100)
        #expect(h.runtime.frames == 1 && display.isPoweredOn && !h.runtime.isAsleep)
        // One timer for the schedule: armed for 22:00, nothing else.
        #expect(h.loop.armedTimers.map(\.name) == ["display-sleep"])
        h.advance(ms: 60_000)
        #expect(h.runtime.isAsleep)
        #expect(!display.isPoweredOn)
        #expect(notifier.texts.last == "STATUS=display asleep (schedule 22:00-07:00)")
        #expect(h.runtime.serviceStatus == "display asleep (schedule 22:00-07:00)")
        #expect(h.runtime.statusLine(h.now).hasSuffix(" display_state=asleep"))
        #expect(h.logLines.contains("display asleep (schedule 22:00-07:00): screen off, nothing drawn until a touch or Wed 07:00"))
        // Three hours asleep: no frame, no session or animation timer; the loop wakes for the
        // hourly look at the clock only (plus the virtual loop's own first and last iteration).
        let frames = h.runtime.frames, presented = display.presented, wakeups = h.loop.wakeups
        h.advance(ms: hours(3))
        #expect(h.runtime.frames == frames && display.presented == presented && display.presentedWhileOff == 0)
        #expect(h.loop.armedTimers.map(\.name) == ["display-sleep"])
        #expect(h.loop.wakeups - wakeups <= 5, "\(h.loop.wakeups - wakeups) wake-ups in 3 h asleep")
        // 07:00 (9 h after 22:00): awake again, the whole screen drawn.
        h.advance(ms: hours(6) - 1000)
        #expect(h.runtime.isAsleep)
        h.advance(ms: 2000)
        #expect(!h.runtime.isAsleep && display.isPoweredOn)
        #expect(h.runtime.frames == frames + 1)
        #expect(h.logLines.contains { $0.hasPrefix("display awake (the schedule 22:00-07:00 ended) after 540") })
        #expect(notifier.texts.last == "STATUS=start screen")
        #expect(sleeps == [true, false])
        #expect(h.runtime.displaySleep.sleeps == 1)
    }

    /// The touch that wakes the display, on the Start button, is not a tap: no round starts,
    /// even with a second finger tapping Start before the first lifts. The next touch plays.
    @Test func theWakingTouchNeverReachesTheGame() throws {
        let (h, display) = try harness(Self.settings(schedule: "00:00-24:00"), showing: 12, 0)
        var events: [KioskEvent] = []
        h.runtime.observe { e, _ in events.append(e) }
        try h.run(ms: 100)
        // Asleep right after the first frame (READY=1 waited for it).
        #expect(h.runtime.frames == 1 && h.runtime.isAsleep && !display.isPoweredOn)
        let start = h.runtime.session.game.button.center
        let frames = h.runtime.frames
        h.input.push(TouchFrame(time: h.now, contacts: [TouchPoint(slot: 0, trackingID: 1, position: start)]))
        h.advance(ms: 30)
        #expect(!h.runtime.isAsleep && display.isPoweredOn)
        #expect(h.runtime.frames == frames + 1, "woken: the whole screen drawn again")
        h.input.push(TouchFrame(time: h.now, contacts: [TouchPoint(slot: 0, trackingID: 1, position: start),
                                                         TouchPoint(slot: 1, trackingID: 2, position: start)]))
        h.advance(ms: 50)
        h.input.push(TouchFrame(time: h.now, contacts: [TouchPoint(slot: 0, trackingID: 1, position: start)]))
        h.advance(ms: 50)
        h.input.push(TouchFrame(time: h.now, contacts: []))
        h.advance(ms: 500)
        #expect(h.runtime.session.game.screen == .start)
        #expect(!events.contains { if case .game = $0 { return true } else { return false } })
        #expect(h.runtime.displaySleep.swallowedFrames == 1, "asleep: the first frame")
        #expect(h.runtime.touchHold.keptFrames == 3, "awake: the rest of the touch, until the last finger lifted")
        #expect(!h.runtime.touchHold.isHolding)
        #expect(h.logLines.contains { $0.hasPrefix("display awake (a touch; it is not played)") })
        // The next touch is played: Start starts a round.
        h.tap(start, id: 3)
        h.advance(ms: 100)
        #expect(h.runtime.session.game.screen == .playing(demo: false))
    }

    /// Inside the range a woken screen stays on a minute after the latest touch, then sleeps
    /// again; the attract demo that began meanwhile is stopped.
    @Test func aWokenScreenSleepsAgainAndTheDemoStops() throws {
        var s = Self.settings(schedule: "22:00-07:00", demo: true)
        s.attract.demoAfter = .seconds(15)
        let (h, display) = try harness(s, showing: 23, 0)
        try h.run(ms: 100)
        #expect(h.runtime.isAsleep)
        h.tap(Vector2(10, 390))
        #expect(!h.runtime.isAsleep)
        h.advance(ms: 20_000)
        #expect(h.runtime.session.game.screen == .playing(demo: true), "the demo began 15 s after the wake")
        h.advance(ms: 41_000)
        #expect(h.runtime.isAsleep && !display.isPoweredOn)
        #expect(h.runtime.session.game.screen == .start, "the demo stopped")
        #expect(h.loop.armedTimers.map(\.name) == ["display-sleep"])
        let presented = display.presented
        h.advance(ms: hours(1))
        #expect(display.presented == presented)
        #expect(h.runtime.displaySleep.sleeps == 2)
    }

    /// With the demo off, an untouched start screen sleeps after `sleep_after_idle_min`; the
    /// metrics say so.
    @Test func theIdleStartScreenSleepsAndTheMetricsSaySo() throws {
        let (h, display) = try harness(Self.settings(idleMin: 2), showing: 12, 0)
        let exporter = MetricsExporter(offLoop: false)
        h.runtime.attach(exporter)
        try h.run(ms: 100)
        #expect(exporter.text.contains("bubble_kiosk_display_asleep 0\n"))
        h.advance(ms: 119_000)
        #expect(!h.runtime.isAsleep)
        h.advance(ms: 2000)
        #expect(h.runtime.isAsleep && !display.isPoweredOn)
        #expect(h.runtime.serviceStatus == "display asleep (idle)")
        #expect(exporter.text.contains("bubble_kiosk_display_asleep 1\n"))
        #expect(exporter.text.contains("bubble_kiosk_display_sleeps_total 1\n"))
        // Asleep by idle, only a touch wakes it: no timer at all.
        #expect(h.loop.armedTimers.isEmpty)
        h.tap(Vector2(10, 390))
        #expect(!h.runtime.isAsleep)
        #expect(exporter.text.contains("bubble_kiosk_display_asleep 0\n"))
        h.advance(ms: 121_000)
        #expect(h.runtime.isAsleep)
        #expect(exporter.text.contains("bubble_kiosk_display_sleeps_total 2\n"))
    }

    /// With the demo on, idle sleep does not apply (the demo is wanted); a round in play is
    /// never cut off by the schedule.
    @Test func theDemoKeepsItAwakeAndPlayersAreNotCutOff() throws {
        let (h, _) = try harness(Self.settings(schedule: "22:00-07:00", idleMin: 1, demo: true), showing: 21, 58)
        try h.run(ms: 100)
        h.advance(ms: 90_000)
        #expect(!h.runtime.isAsleep, "no idle sleep with the demo on")
        // 21:59:30: a person starts a round and plays past 22:00.
        h.startRound()
        for _ in 0..<6 {
            h.tap(Vector2(10, 390))
            h.advance(ms: 10_000)
        }
        #expect(h.runtime.session.game.screen == .playing(demo: false))
        #expect(!h.runtime.isAsleep)
        // They walk away: the idle return (45 s), then a minute after their last touch it sleeps.
        h.advance(ms: 61_000)
        #expect(h.runtime.isAsleep)
    }

    /// Opening hours by weekday over a simulated week, from Monday noon: asleep each weekday
    /// night, the weekend closed and Monday's early hours dark until 07:00, and each sleep's log
    /// line says when the schedule wakes it.
    @Test func aWeekOfOpeningHours() throws {
        let (h, display) = try harness(Self.settings(schedule: "Mon-Fri 22:00-07:00; Sat,Sun closed"), showing: 12, 0)
        // Monday 2026-12-07 12:00.
        let clock = VirtualWallClock(midnight: h.now - .seconds(12 * 3600), day: 20_794)
        h.runtime.wallClock = clock
        var changes: [String] = []
        h.runtime.observe { e, t in
            if case .displaySleep(let asleep) = e {
                let m = SleepSchedule.Moment(clock.local(at: t))
                changes.append("\(asleep ? "sleep" : "wake") \(m.weekdayAndTime)")
            }
        }
        try h.run(ms: 100)
        let wakeups = h.loop.wakeups
        for _ in 0..<(7 * 24) { h.advance(ms: hours(1)) }
        #expect(changes == ["sleep Mon 22:00", "wake Tue 07:00", "sleep Tue 22:00", "wake Wed 07:00", "sleep Wed 22:00",
                            "wake Thu 07:00", "sleep Thu 22:00", "wake Fri 07:00", "sleep Fri 22:00", "wake Mon 07:00"])
        #expect(h.runtime.isAsleep == false && display.isPoweredOn)
        #expect(h.runtime.displaySleep.sleeps == 5)
        let lines = h.logLines
        #expect(lines.contains("display asleep (schedule Mon-Fri 22:00-07:00): screen off, nothing drawn until a touch or Tue 07:00"))
        #expect(lines.contains("display asleep (schedule Mon-Fri 22:00-07:00): screen off, nothing drawn until a touch or Mon 07:00"))
        // Saturday's midnight: the weekend holds, still dark, another reason; Monday's midnight the same.
        #expect(lines.suffix(3) == ["display asleep (schedule Sat,Sun closed)", "display asleep (schedule Mon-Fri 22:00-07:00)",
                                    "display awake (the schedule Mon-Fri 22:00-07:00 ended) after 3420.0 min asleep"])
        #expect(h.loop.wakeups - wakeups < 7 * 24 * 3, "\(h.loop.wakeups - wakeups) wake-ups in a week")
    }

    /// SIGHUP applies a new schedule at once, and taking it away wakes the display.
    @Test func reloadingTheScheduleAppliesAtOnce() throws {
        let (h, display) = try harness(Self.settings(), showing: 23, 0)
        try h.run(ms: 100)
        #expect(!h.runtime.isAsleep)
        h.config = ConfigResult(settings: Self.settings(schedule: "22:00-07:00"))
        h.loop.deliver(signal: SIGHUP)
        h.advance(ms: 100)
        #expect(h.runtime.isAsleep && !display.isPoweredOn)
        h.config = ConfigResult(settings: Self.settings())
        h.loop.deliver(signal: SIGHUP)
        h.advance(ms: 100)
        #expect(!h.runtime.isAsleep && display.isPoweredOn)
        #expect(h.loop.armedTimers.isEmpty)
    }
}
