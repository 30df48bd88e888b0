import KioskCore
import KioskPlatform
import KioskRuntime
import Testing

/// Monitors that come and go, on virtual time: the kiosk waits for a screen without failing,
/// keeps the game going while none is connected, and repaints everything when one comes back;
/// and the watchdog hears from it only while frames reach the screen.
@Suite struct ScreenHotplugTests {
    @Test func startingWithoutAScreenWaitsAndSaysSo() throws {
        let display = VirtualDisplay(size: PixelSize(width: 640, height: 400))
        display.setScreens(0)
        let notifier = RecordingNotifier(watchdogMS: 10_000)
        let h = try RuntimeHarness(display: { _ in display }, notifier: notifier)
        notifier.clock = h.clock
        try h.run(ms: 3000)
        #expect(display.presented == 0)
        #expect(h.runtime.serviceStatus == "waiting for a display")
        #expect(h.runtime.statusLine(h.now).hasSuffix(" display_state=no-screen"))
        #expect(h.logLines.filter { $0.contains("waiting for a display") }.count == 1, "said once")
        // Waiting is running as intended: READY=1 at once, or systemd would kill a start that "hangs".
        #expect(notifier.texts.first == "READY=1\nSTATUS=waiting for a display")
        #expect(!h.runtime.liveFigures.displayUp && h.runtime.liveFigures.screens == 0)
        let wakeups = h.loop.wakeups
        h.advance(ms: 20_000)
        #expect(h.loop.wakeups - wakeups <= 8, "the loop stays idle while it waits (\(h.loop.wakeups - wakeups) wake-ups)")
        #expect(notifier.texts.filter { $0 == "WATCHDOG=1" }.count >= 4, "drawing nothing on purpose still feeds the watchdog")

        display.setScreens(1)
        h.advance(ms: 100)
        #expect(display.presented > 0, "the game is on screen as soon as one is connected")
        #expect(h.runtime.onScreen == .game(.start))
        #expect(h.logLines.contains { $0.contains("a screen after") })
        #expect(notifier.texts.filter { $0.hasPrefix("READY=1") }.count == 1)
    }

    @Test func aScreenUnpluggedDuringARoundKeepsTheRoundGoing() throws {
        let display = VirtualDisplay(size: PixelSize(width: 640, height: 400))
        let h = try RuntimeHarness(display: { _ in display })
        try h.run(ms: 100)
        h.startRound()
        let round = try #require(h.runtime.session.game.round)
        display.setScreens(0)
        h.advance(ms: 2000)
        let presented = display.presented
        h.advance(ms: 2000)
        #expect(display.presented == presented, "nothing is drawn without a screen")
        #expect(h.runtime.session.game.screen == .playing(demo: false))
        #expect(h.runtime.session.game.round?.startTime == round.startTime, "the same round goes on")
        display.setScreens(1)
        h.advance(ms: 100)
        #expect(display.presented > presented)
        // Repainted whole: the screen below the HUD shows the game's background, not a stale picture.
        #expect(display.snapshot()[320, 399] == RGBColor.kioskBackground.xrgb)
        // A tap on a bubble still pops it.
        var popped: [Int] = []
        h.runtime.observe { e, _ in if case .game(.popped(let id, _)) = e { popped.append(id) } }
        let (id, _) = try h.popATapBubble()
        #expect(popped == [id])
    }

    @Test func aDisplayThatStopsShowingFramesStarvesTheWatchdog() throws {
        let display = VirtualDisplay(size: PixelSize(width: 640, height: 400))
        let notifier = RecordingNotifier(watchdogMS: 2000)
        let h = try RuntimeHarness(display: { _ in display }, notifier: notifier)
        notifier.clock = h.clock
        try h.run(ms: 3000)
        #expect(notifier.texts.contains("WATCHDOG=1"))
        display.completesFrames = false
        h.startRound()
        h.advance(ms: 2000)
        let fed = notifier.messages.filter { $0.text == "WATCHDOG=1" }.count
        h.advance(ms: 10_000)
        let late = notifier.messages.filter { $0.text == "WATCHDOG=1" }.count - fed
        // A keep-alive every second until the oldest unshown frame is 5 s old, then none.
        #expect(late <= 4, "\(late) keep-alives after frames stopped showing")
        #expect(notifier.messages.last { $0.text == "WATCHDOG=1" }.map { $0.at < h.now - .seconds(4) } == true)
        #expect(h.logLines.filter { $0.contains("no frame reached the screen") }.count == 1)
        display.completesFrames = true
        h.advance(ms: 3000)
        #expect(notifier.messages.last { $0.text == "WATCHDOG=1" }.map { $0.at > h.now - .seconds(2) } == true,
                "frames showing again: keep-alives again")
    }
}
