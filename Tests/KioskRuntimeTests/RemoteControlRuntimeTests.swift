import KioskCore
import KioskPlatform
import KioskRender
import KioskRuntime
import Testing

/// What fleet control asks of the live kiosk, on virtual time with the virtual display.
@Suite struct RemoteControlRuntimeTests {
    func harness(_ settings: Settings = RuntimeHarness.quietSettings) throws -> (RuntimeHarness, VirtualDisplay) {
        let h = try RuntimeHarness(settings: settings)
        h.runtime.wallClock = VirtualWallClock(showing: 12, 0, at: h.now)
        return (h, h.display as! VirtualDisplay)
    }

    @Test func offSleepsUntilSwitchedOnAndDrawsNothingMeanwhile() throws {
        let (h, display) = try harness()
        var sleeps: [Bool] = []
        h.runtime.observe { e, _ in if case .displaySleep(let asleep) = e { sleeps.append(asleep) } }
        try h.run(ms: 100)
        #expect(h.runtime.fleetScreen == .start)
        h.runtime.switchDisplay(on: false, by: "a test")
        h.advance(ms: 10)
        #expect(h.runtime.isAsleep && !display.isPoweredOn)
        #expect(h.runtime.fleetScreen == .asleep)
        #expect(h.runtime.serviceStatus == "display asleep (remote)")
        #expect(h.runtime.statusLine(h.now).hasSuffix(" display_state=asleep"))
        #expect(h.logLines.contains("display switched off by a test"))
        // Hours later, with no schedule and no idle rule, it is still dark and drew nothing.
        let frames = h.runtime.frames
        h.advance(ms: 5 * 3_600_000)
        #expect(h.runtime.isAsleep && h.runtime.frames == frames)
        h.runtime.switchDisplay(on: false, by: "a test")
        #expect(h.logLines.filter { $0.contains("switched off") }.count == 1, "off again changes nothing")
        h.runtime.switchDisplay(on: true, by: "a test")
        h.advance(ms: 50)
        #expect(!h.runtime.isAsleep && display.isPoweredOn && h.runtime.frames == frames + 1)
        #expect(h.logLines.contains { $0.hasPrefix("display awake (switched on by a test) after 300") })
        #expect(sleeps == [true, false])
    }

    /// Switched off while a schedule already had it dark: the schedule's end does not wake it;
    /// a touch does (and is not played).
    @Test func offOutlastsTheScheduleButNotATouch() throws {
        var s = RuntimeHarness.quietSettings
        if case .success(let schedule) = SleepSchedule.parse("12:00-13:00") { s.display.sleepSchedule = schedule }
        let (h, display) = try harness(s)
        try h.run(ms: 100)
        #expect(h.runtime.isAsleep)
        h.runtime.switchDisplay(on: false, by: "a test")
        #expect(h.runtime.serviceStatus == "display asleep (remote)")
        h.advance(ms: 2 * 3_600_000)
        #expect(h.runtime.isAsleep && !display.isPoweredOn, "13:00 passed: still off")
        let start = h.runtime.session.game.button.center
        h.tap(start, id: 7)
        h.advance(ms: 100)
        #expect(!h.runtime.isAsleep && display.isPoweredOn)
        #expect(h.runtime.session.game.screen == .start, "the waking touch started no round")
    }

    @Test func theTouchTestOpensAndClosesAndWakesTheDisplay() throws {
        let (h, _) = try harness()
        try h.run(ms: 100)
        h.runtime.switchDisplay(on: false, by: "a test")
        h.advance(ms: 10)
        h.runtime.switchTouchTest(open: true, by: "a test")
        h.advance(ms: 10)
        #expect(!h.runtime.isAsleep && h.runtime.isTouchTestOpen && h.runtime.fleetScreen == .touchTest)
        // Off closes the touch test first: nobody is left with it open on a dark panel.
        h.runtime.switchDisplay(on: false, by: "a test")
        h.advance(ms: 10)
        #expect(!h.runtime.isTouchTestOpen && h.runtime.isAsleep)
        h.runtime.switchDisplay(on: true, by: "a test")
        h.runtime.switchTouchTest(open: true, by: "a test")
        h.runtime.switchTouchTest(open: false, by: "a test")
        h.advance(ms: 10)
        #expect(!h.runtime.isTouchTestOpen && h.runtime.fleetScreen == .start)
    }

    @Test func theResetExitsWithStatus10AndSaysWhoAsked() throws {
        let (h, _) = try harness()
        try h.run(ms: 100)
        h.runtime.perform(.operatorReset, by: "an MQTT command")
        #expect(h.runtime.exitStatus == .operatorReset)
        let lines = h.logLines.filter { $0.hasPrefix("operator reset: an MQTT command at ") }
        #expect(lines.count == 1, "\(h.logLines)")
        #expect(lines.first?.contains("exiting with status 10") == true)
    }

    @Test func theSnapshotIsTheScreen() throws {
        let (h, _) = try harness()
        try h.run(ms: 100)
        let png = try PNGWriter.pngBytes(h.runtime.screenSnapshot())
        #expect(Array(png.prefix(8)) == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        #expect(png.count > 1000)
    }

    @Test func whatIsOnScreenAsFleetControlNamesIt() {
        #expect(OnScreen.noScreen.fleetScreen == .noDisplay)
        #expect(OnScreen.displayLost.fleetScreen == .noDisplay)
        #expect(OnScreen.switchedAway.fleetScreen == .noDisplay)
        #expect(OnScreen.asleep(.idle).fleetScreen == .asleep)
        #expect(OnScreen.touchTest.fleetScreen == .touchTest)
        #expect(OnScreen.game(.playing(demo: true)).fleetScreen == .demo)
        #expect(OnScreen.game(.playing(demo: false)).fleetScreen == .playing)
        #expect(OnScreen.game(.roundOver).fleetScreen == .roundOver)
    }
}
