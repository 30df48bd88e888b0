import Glibc
import KioskCore
import KioskLayers
import KioskPlatform
import KioskRender
import KioskRuntime
import Testing

/// The live kiosk's loop work on virtual time: pacing, latency, observers.
@Suite struct RuntimeFrameTests {
    /// A finger dragging across the screen reports every 4 ms; frames never come closer than
    /// the pacing allows (60 a second, a millisecond early counting as on time), and a second
    /// of dragging still gets about that many.
    @Test func framesArePacedToSixtyASecond() throws {
        var made: LosableDisplay?
        let h = try RuntimeHarness(display: { clock in
            made = LosableDisplay(size: PixelSize(width: 640, height: 400), clock: clock)
            return made!
        })
        let display = try #require(made)
        try h.run(ms: 100)
        h.startRound()
        let before = display.presentTimes.count
        for i in 0..<250 {
            let p = Vector2(20 + Double(i) * 2, 390)
            h.input.push(TouchFrame(time: h.now, contacts: [TouchPoint(slot: 0, trackingID: 5, position: p)]))
            h.advance(ms: 4)
        }
        let times = Array(display.presentTimes.dropFirst(before))
        #expect(times.count >= 58 && times.count <= 64, "\(times.count) frames in a second of dragging")
        let gaps = zip(times.dropFirst(), times).map { ($0.0 - $0.1).inMilliseconds }
        #expect(gaps.allSatisfy { $0 >= 1000.0 / 60 - 1 }, "\(gaps)")
    }

    /// A touch that arrives just after a frame waits for the next paced frame; the latency
    /// sample is exactly that wait on virtual time.
    @Test func latencyCountsFromTheTouchToTheFrameShowingIt() throws {
        let h = try RuntimeHarness()
        try h.run(ms: 100)
        #expect(h.runtime.frames == 1)
        h.startRound()
        let framesBefore = h.runtime.frames
        let samplesBefore = h.runtime.latencies.samples.count
        // A finger lands on empty space 5 ms after a frame: its marker is drawn at the next slot.
        h.advance(ms: 500)
        let last = h.now
        h.input.push(TouchFrame(time: last, contacts: [TouchPoint(slot: 0, trackingID: 9, position: Vector2(5, 390))]))
        h.advance(ms: 40)
        #expect(h.runtime.frames > framesBefore)
        let samples = h.runtime.latencies.samples
        #expect(samples.count == samplesBefore + 1)
        // The last frame before the touch was ≥ 400 ms earlier, so it is drawn at once.
        #expect(samples.last == .zero)
    }

    @Test func latencyWaitsForThePacedFrame() throws {
        let h = try RuntimeHarness()
        try h.run(ms: 100)
        h.startRound()
        h.advance(ms: 500)
        // Two touches 5 ms apart: the first draws at once, the second waits for the next slot.
        h.input.push(TouchFrame(time: h.now, contacts: [TouchPoint(slot: 0, trackingID: 9, position: Vector2(5, 390))]))
        h.advance(ms: 5)
        let second = h.now
        h.input.push(TouchFrame(time: second, contacts: [TouchPoint(slot: 0, trackingID: 9, position: Vector2(40, 390))]))
        h.advance(ms: 40)
        let last = try #require(h.runtime.latencies.samples.last?.inMilliseconds)
        // Paced to 1000/60 - 1 ms after the first frame: 15.67 - 5 = 10.67 ms later.
        #expect(abs(last - 10.667) < 0.01, "\(last)")
    }

    /// Every observer sees every event, in order; the scene's effects are one of them.
    @Test func eventsFanOutToEveryObserver() throws {
        let h = try RuntimeHarness()
        var first: [KioskEvent] = [], second: [KioskEvent] = []
        h.runtime.observe { e, _ in first.append(e) }
        h.runtime.observe { e, _ in second.append(e) }
        try h.run(ms: 50)
        h.startRound()
        #expect(first == second)
        #expect(first.contains(.game(.roundStarted(demo: false))))
        #expect(first.contains(.screen(.playing(demo: false))))
        #expect(first.contains { if case .touch = $0 { return true } else { return false } })
        // Pop a tap bubble: the pop reaches the observers.
        let (id, taps) = try h.popATapBubble()
        #expect(first.contains(.game(.popped(bubble: id, points: 10 * taps))))
        #expect(first == second)
    }

    /// With nothing moving, the loop arms nothing and sleeps: no wake-ups for a virtual hour;
    /// with the burn-in shift on (the default) only its steps, one frame each.
    @Test(arguments: [false, true])
    func anIdleRuntimeArmsNoTimer(pixelShift: Bool) throws {
        var settings = RuntimeHarness.quietSettings
        settings.display.pixelShift = pixelShift
        let h = try RuntimeHarness(settings: settings)
        try h.run(ms: 100)
        let wakeups = h.loop.wakeups
        let steps = Int(Duration.seconds(3600) / PixelShift.stepInterval)
        if pixelShift {
            #expect(h.loop.armedTimers.map(\.name) == ["frame"], "\(h.loop.armedTimers)")
        } else {
            #expect(h.loop.armedTimers.isEmpty, "\(h.loop.armedTimers)")
        }
        h.advance(ms: 3_600_000)
        #expect(h.loop.wakeups - wakeups <= 2 + (pixelShift ? steps : 0))
        #expect(h.runtime.frames == 1 + (pixelShift ? steps : 0))
    }

    /// Status lines come once a second on the loop's repeating timer.
    @Test func statusLinesComeOnceASecond() throws {
        var options = KioskRuntime.Options()
        options.statusLines = true
        let h = try RuntimeHarness(options: options)
        try h.run(ms: 3500)
        #expect(h.outputLines.count == 3, "\(h.outputLines)")
        #expect(h.outputLines.first?.hasPrefix("t=1s frames=1 screen=start") == true, "\(h.outputLines)")
    }
}

/// Signals: stop, reload, screenshot.
@Suite struct RuntimeSignalTests {
    @Test(arguments: [SIGINT, SIGTERM, SIGQUIT])
    func stopSignalsEndTheLoop(signal: Int32) throws {
        let h = try RuntimeHarness()
        try h.run(ms: 50)
        h.loop.deliver(signal: signal)
        #expect(h.logLines.last == "signal \(signal), stopping")
    }

    /// SIGHUP mid-round: the same round goes on (same bubbles, same score so far), scoring and
    /// gesture thresholds change at once, the layout only from the next round.
    @Test func reloadKeepsTheRoundInProgress() throws {
        let h = try RuntimeHarness()
        try h.run(ms: 50)
        #expect(h.logLines == ["first frame on screen"])
        h.log.removeAll()
        h.startRound()
        let round = try #require(h.runtime.session.game.round)
        var changed = RuntimeHarness.quietSettings
        changed.score.tapBubble = 77
        changed.gestures.tapSlopMM = 6
        changed.game.bubbles = 3
        changed.display.rotation = 90
        h.config = ConfigResult(settings: changed, files: ["/etc/bubble-kiosk/kiosk.conf"])
        h.loop.deliver(signal: SIGHUP)
        let after = try #require(h.runtime.session.game.round)
        #expect(after.startTime == round.startTime)
        #expect(after.bubbles.map(\.center) == round.bubbles.map(\.center))
        #expect(after.settings.score.tapBubble == 77)
        #expect(after.settings.game.bubbles == 10, "the round in progress keeps its layout")
        #expect(h.runtime.session.game.settings.game.bubbles == 3, "the next round takes the new layout")
        #expect(h.runtime.settings.display.rotation == 0, "rotation needs a restart")
        #expect(h.runtime.settings.gestures.tapSlopMM == 6)
        let line = try #require(h.logLines.last)
        #expect(line.hasPrefix("reloaded the configuration (1 file): "), "\(line)")
        #expect(line.contains("gestures.tap_slop_mm, score.tap_bubble now"), "\(line)")
        #expect(line.contains("game.bubbles from the next round"), "\(line)")
        #expect(line.contains("display.rotation needs a restart"), "\(line)")
        #expect(h.logLines.count == 1, "one line per reload: \(h.logLines)")
        // A pop now pays the new points.
        var points: Int?
        h.runtime.observe { e, _ in if case .game(.popped(_, let p)) = e { points = p } }
        let (_, taps) = try h.popATapBubble()
        #expect(points == 77 * taps)
        // Reloading the same files again: only the restart is still pending.
        h.runtime.reload()
        #expect(h.logLines.last == "reloaded the configuration (1 file): display.rotation needs a restart",
                "\(h.logLines)")
        h.config = ConfigResult(settings: h.runtime.settings, files: ["/etc/bubble-kiosk/kiosk.conf"])
        h.runtime.reload()
        #expect(h.logLines.last == "reloaded the configuration (1 file): nothing changed")
    }

    /// A reload whose files have errors changes nothing and names every error.
    @Test func reloadWithErrorsKeepsTheRunningSettings() throws {
        let h = try RuntimeHarness()
        try h.run(ms: 50)
        #expect(h.logLines == ["first frame on screen"])
        h.log.removeAll()
        let before = h.runtime.settings
        var broken = RuntimeHarness.quietSettings
        broken.score.tapBubble = 99
        h.config = ConfigResult(settings: broken, diagnostics: [
            .error("/etc/bubble-kiosk/kiosk.conf", 3, "bubbles: expected a whole number from 1 to 200, got 'lots'"),
            .error("/etc/bubble-kiosk/kiosk.conf.d/x.conf", 1, "expected [section] or key = value, got 'oops'"),
        ], files: ["/etc/bubble-kiosk/kiosk.conf"])
        h.loop.deliver(signal: SIGHUP)
        #expect(h.runtime.settings == before)
        #expect(h.logLines == [
            "/etc/bubble-kiosk/kiosk.conf:3: bubbles: expected a whole number from 1 to 200, got 'lots'",
            "/etc/bubble-kiosk/kiosk.conf.d/x.conf:1: expected [section] or key = value, got 'oops'",
            "reload refused: the configuration has errors; keeping the running settings",
        ])
    }

    /// SIGUSR1 writes what is on screen to the configured path, atomically.
    @Test func usr1WritesAScreenshot() throws {
        let dir = "/tmp/bubble-kiosk-runtime-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        mkdir(dir, 0o755)
        var options = KioskRuntime.Options()
        options.stateDirectory = dir
        let h = try RuntimeHarness(options: options)
        try h.run(ms: 50)
        #expect(h.runtime.screenshotPath == dir + "/screenshot.png")
        h.loop.deliver(signal: SIGUSR1)
        let shot = try PNGReader.readPNG(dir + "/screenshot.png")
        let screen = (h.display as! VirtualDisplay).screen
        #expect(shot.size == screen.size)
        var differing = 0
        for y in stride(from: 0, to: screen.height, by: 7) {
            for x in stride(from: 0, to: screen.width, by: 7) where shot[x, y] != screen[x, y] { differing += 1 }
        }
        #expect(differing == 0)
        #expect(h.logLines.last == "screenshot written to \(dir)/screenshot.png")
        // The configured path wins over the state directory.
        var settings = RuntimeHarness.quietSettings
        settings.operator.screenshotPath = dir + "/elsewhere.png"
        h.config = ConfigResult(settings: settings)
        h.runtime.reload()
        h.loop.deliver(signal: SIGUSR1)
        #expect(access(dir + "/elsewhere.png", F_OK) == 0)
        // A folder that does not exist: one line, the kiosk goes on.
        settings.operator.screenshotPath = dir + "/missing/shot.png"
        h.config = ConfigResult(settings: settings)
        h.runtime.reload()
        h.loop.deliver(signal: SIGUSR1)
        #expect(h.logLines.last?.hasPrefix("screenshot \(dir)/missing/shot.png: ") == true, "\(h.logLines)")
        for name in ["screenshot.png", "elsewhere.png"] { unlink(dir + "/" + name) }
        rmdir(dir)
    }
}

/// Losing the display: DRM master taken away, a VT switched away.
@Suite struct RuntimeDisplayLossTests {
    @Test func lostMasterIsReportedOnceRetriedWithBackoffAndRepaintedInFull() throws {
        var settings = RuntimeHarness.quietSettings
        settings.attract.demo = true
        settings.attract.demoAfter = .seconds(1)
        var made: LosableDisplay?
        let h = try RuntimeHarness(settings: settings, display: { clock in
            made = LosableDisplay(size: PixelSize(width: 320, height: 200), clock: clock)
            return made!
        })
        let display = try #require(made)
        try h.run(ms: 100)
        #expect(display.presents.count == 1)
        display.lost = true
        display.refusals = 3
        // The demo starts at 1 s and animates: its first frame finds the display lost.
        h.advance(ms: 1500)
        let lostLines = h.logLines.filter { $0.contains("lost") }
        #expect(lostLines.count == 1, "\(h.logLines)")
        #expect(lostLines.first?.contains("master taken by another program") == true)
        #expect(h.runtime.statusLine(h.now).hasSuffix("display_state=lost"))
        // Retries at 250 ms, then 500, 1000, 2000: the fourth attempt works.
        h.advance(ms: 5000)
        let attempts = display.resumeAttempts
        #expect(attempts.count == 4, "\(attempts)")
        let gaps = zip(attempts.dropFirst(), attempts).map { ($0.0 - $0.1).inMilliseconds }
        #expect(gaps == [500, 1000, 2000], "\(gaps)")
        #expect(h.logLines.contains { $0.hasPrefix("display losable is back after ") }, "\(h.logLines)")
        // The first frame after the return repaints the whole screen.
        let full = PixelRect(x: 0, y: 0, width: 320, height: 200)
        let firstBack = try #require(display.presents.dropFirst().first)
        #expect(firstBack == [full])
        #expect(!h.runtime.statusLine(h.now).contains("display_state"))
    }

    /// Switching the VT away stops drawing while the game goes on; switching back repaints.
    @Test func vtSwitchStopsDrawingAndComesBackInFull() throws {
        let console = FakeConsole()
        var settings = RuntimeHarness.quietSettings
        settings.attract.idleTimeout = .seconds(5)
        var made: LosableDisplay?
        let h = try RuntimeHarness(settings: settings, display: { clock in
            made = LosableDisplay(size: PixelSize(width: 320, height: 200), clock: clock)
            return made!
        }, console: console)
        let display = try #require(made)
        try h.run(ms: 100)
        h.startRound()
        #expect(h.runtime.session.game.screen == .playing(demo: false))
        let presented = display.presents.count
        console.next = .release
        h.loop.deliver(signal: SIGUSR2)
        #expect(console.calls == ["signal", "release"])
        #expect(display.suspended == 1)
        // Away for 10 s: no frame, but the game's idle return still happens.
        h.advance(ms: 10_000)
        #expect(display.presents.count == presented)
        #expect(h.runtime.session.game.screen == .start)
        console.next = .acquire
        h.loop.deliver(signal: SIGUSR2)
        #expect(console.calls == ["signal", "release", "signal", "acquire"])
        h.advance(ms: 50)
        #expect(display.presents.count == presented + 1)
        #expect(display.presents.last == [PixelRect(x: 0, y: 0, width: 320, height: 200)])
        h.runtime.finish()
        #expect(console.calls.last == "restore")
    }
}

extension RuntimeDisplayLossTests {
    /// A release signal with no switch pending (sent by `kill`): the screen stays ours.
    @Test func aStrayReleaseSignalKeepsTheScreen() throws {
        let console = FakeConsole()
        console.switchPending = false
        var made: LosableDisplay?
        let h = try RuntimeHarness(display: { clock in
            made = LosableDisplay(size: PixelSize(width: 320, height: 200), clock: clock)
            return made!
        }, console: console)
        try h.run(ms: 100)
        h.loop.deliver(signal: SIGUSR2)
        #expect(console.calls == ["signal", "release"])
        #expect(h.runtime.displayState == .showing)
        h.advance(ms: 50)
        #expect(made!.presents.last == [PixelRect(x: 0, y: 0, width: 320, height: 200)], "repainted in full")
    }

    /// Started on a VT that is not in front: nothing is drawn until the switch to it.
    @Test func startingOnAHiddenVTWaitsForIt() throws {
        let console = FakeConsole()
        console.isActive = false
        var made: LosableDisplay?
        let h = try RuntimeHarness(display: { clock in
            made = LosableDisplay(size: PixelSize(width: 320, height: 200), clock: clock)
            return made!
        }, console: console)
        try h.run(ms: 1000)
        #expect(made!.presents.isEmpty && made!.suspended == 1)
        console.next = .acquire
        h.loop.deliver(signal: SIGUSR2)
        h.advance(ms: 50)
        #expect(made!.presents.count == 1)
    }
}

/// What the service manager hears: ready after the first frame, what the kiosk does, the
/// watchdog from the loop, reloads.
@Suite struct RuntimeServiceTests {
    @Test func readyAfterTheFirstFrameThenStatusAsTheScreenChanges() throws {
        let notifier = RecordingNotifier()
        let h = try RuntimeHarness(notifier: notifier)
        try h.run(ms: 100)
        #expect(notifier.texts == ["READY=1\nSTATUS=start screen"])
        h.startRound()
        #expect(notifier.texts.last == "STATUS=playing, score 0")
        let (_, taps) = try h.popATapBubble()
        #expect(notifier.texts.last == "STATUS=playing, score \(10 * taps)")
        h.loop.deliver(signal: SIGHUP)
        let n = notifier.texts.count
        #expect(notifier.texts[n - 2].hasPrefix("RELOADING=1\nMONOTONIC_USEC="))
        #expect(notifier.texts[n - 1] == "READY=1\nSTATUS=playing, score \(10 * taps)")
        h.loop.deliver(signal: SIGTERM)
        #expect(notifier.texts.last == "STOPPING=1")
    }

    @Test func theWatchdogIsFedFromTheLoopAtHalfItsInterval() throws {
        let notifier = RecordingNotifier(watchdogMS: 10_000)
        let h = try RuntimeHarness(notifier: notifier)
        notifier.clock = h.clock
        try h.run(ms: 60_000)
        let pings = notifier.messages.filter { $0.text == "WATCHDOG=1" }
        #expect(pings.count == 12, "\(pings.count)")
        let gaps = zip(pings.dropFirst(), pings).map { ($0.0.at - $0.1.at).inMilliseconds }
        #expect(gaps.allSatisfy { $0 == 5000 }, "\(gaps)")
        #expect(h.runtime.frames == 1, "feeding the watchdog draws nothing")
    }

    @Test func aLostDisplayIsTheStatus() throws {
        let notifier = RecordingNotifier()
        var made: LosableDisplay?
        var settings = RuntimeHarness.quietSettings
        settings.attract.demo = true
        settings.attract.demoAfter = .seconds(1)
        let h = try RuntimeHarness(settings: settings, display: { clock in
            made = LosableDisplay(size: PixelSize(width: 320, height: 200), clock: clock)
            return made!
        }, notifier: notifier)
        try h.run(ms: 100)
        made!.lost = true
        made!.refusals = 100
        h.advance(ms: 2000)
        #expect(notifier.texts.last == "STATUS=display lost")
    }
}

/// Layers that follow reloads and the exit.
@Suite struct RuntimeLayerTests {
    @Test func reloadAndExitObserversAreCalled() throws {
        let h = try RuntimeHarness()
        var reloaded: [Int] = []
        var exits = 0
        h.runtime.attach(ClosureLayer(reload: { reloaded.append($0.score.miss) }, stop: { exits += 1 }))
        try h.run(ms: 50)
        var s = RuntimeHarness.quietSettings
        s.score.miss = -3
        h.config = ConfigResult(settings: s)
        h.runtime.reload()
        // A refused reload is not passed on.
        h.config = ConfigResult(settings: Settings(), diagnostics: [.error("x.conf", 1, "bad")])
        h.runtime.reload()
        #expect(reloaded == [-3])
        h.runtime.finish()
        h.runtime.finish()
        #expect(exits == 1)
    }

    /// Layers hear each event in the order they were attached, with facts that name the round
    /// (no layer reads the game back), and a layer's `post` reaches every layer.
    @Test func layersHearEventsInOrderWithTheRoundsFacts() throws {
        let h = try RuntimeHarness()
        var heard: [String] = []
        var pops: [EventFacts] = []
        h.runtime.attach(ClosureLayer(event: { event, facts in
            if case .game(.popped) = event { heard.append("first"); pops.append(facts) }
            if case .highScore(let high) = event { heard.append("first high \(high.score)") }
        }))
        h.runtime.attach(ClosureLayer(event: { event, _ in
            if case .game(.popped) = event { heard.append("second") }
            if case .highScore = event { heard.append("second high") }
        }))
        try h.run(ms: 50)
        h.startRound()
        let (id, taps) = try h.popATapBubble()
        #expect(heard == ["first", "second"])
        let pop = try #require(pops.first)
        #expect(pop.round?.id == 1 && pop.round?.mode == .classic && pop.round?.demo == false)
        #expect(pop.round?.score == taps * 10 && pop.round?.popped == 1)
        #expect(pop.bubble == BubbleFacts(id: id, kind: "tap", points: taps * 10))
        h.runtime.post(.highScore(HighScore(mode: .classic, score: 70, rank: 1, roundID: 9)), at: h.now)
        #expect(heard.suffix(2) == ["first high 70", "second high"])
    }

    /// The sound thread starts after the first frame (a one-core board needs the CPU for its
    /// first picture), not when the layer is attached; the exit stops it.
    @Test func theSoundLayerStartsItsThreadAfterTheFirstFrame() throws {
        var settings = RuntimeHarness.quietSettings
        settings.sounds.device = "null"
        let h = try RuntimeHarness(settings: settings)
        let sounds = SoundLayer()
        h.runtime.attach(sounds)
        #expect(sounds.player == nil)
        try h.run(ms: 50)
        #expect(h.runtime.frames > 0)
        #expect(sounds.player != nil)
        h.runtime.finish()
    }
}
