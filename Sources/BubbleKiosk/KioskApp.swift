import Glibc
import KioskCore
import KioskPlatform
import KioskRender

/// The running kiosk: one event loop driving input, the session, the renderer and a display.
final class KioskApp {
    struct Options {
        var screenshotPath: String?
        var screenshotEvery: (seconds: Double, path: String)?
        var statusLines = false
        var attractNow = false
        var duration: Double?
        var seed: UInt64
        var stats = false
    }

    let loop: EventLoop
    let display: Display
    let input: TouchInput
    let renderer: SceneRenderer
    var session: KioskSession
    var builder: SceneBuilder
    let options: Options
    /// Panel coordinates to game coordinates: calibration, then the display's rotation.
    let touchTransform: TouchTransform
    private var started = TimeStamp.zero
    private var frames = 0
    /// Frames are paced to at most 60 a second: some drivers (bochs-drm) report page flips at
    /// once rather than at vblank, and drawing on every flip event would spin.
    private let frameIntervalMS = 1000.0 / 60
    private var lastFrameAt: TimeStamp?
    private var waitingFrame: TimeStamp?
    /// The scene last presented, to tell whether a paced-out frame still has something to show.
    private var lastScene: Scene?
    private var nextShot: TimeStamp?
    private var nextStatus: TimeStamp?
    private var presentFailures = 0
    /// Input-to-screen latency: the oldest input not yet drawn, the input whose frame is on its
    /// way to the screen, and the measured samples in milliseconds.
    private var unshownInput: TimeStamp?
    private var inFlightInput: TimeStamp?
    private(set) var latencies: [Double] = []
    /// The kiosk runs for months: keep the latest samples only, as a ring.
    private let latencyCapacity = 4096
    private var latencyNext = 0

    init(settings: Settings, display: Display, input: TouchInput, options: Options) throws {
        self.display = display
        self.input = input
        self.options = options
        let pxPerMM = settings.display.pxPerMM ?? display.reportedPxPerMM ?? DisplaySettings.fallbackPxPerMM
        let field = PlayField(size: display.size, pxPerMM: pxPerMM, game: settings.game)
        touchTransform = TouchTransform(native: display.nativeSize, rotation: display.rotation,
                                        calibration: settings.input.calibration)
        loop = try EventLoop()
        renderer = SceneRenderer(size: display.size)
        session = KioskSession(game: KioskGame(field: field, settings: settings, seed: options.seed, at: EventLoop.now()))
        builder = SceneBuilder(field: field, seed: options.seed)
    }

    /// Runs until a signal or `--duration`; returns the exit code.
    func run() throws -> Int32 {
        started = EventLoop.now()
        if let every = options.screenshotEvery { nextShot = started.adding(milliseconds: every.seconds * 1000) }
        if options.statusLines { nextStatus = started.adding(milliseconds: 1000) }
        loop.onSignal = { [unowned self] signo in
            Console.errorLine("bubble-kiosk: signal \(signo), stopping")
            loop.stop()
        }
        if let fd = display.eventFD {
            loop.add(fd: fd, name: display.name) { [unowned self] in display.handleEvents() }
        }
        try input.start(loop: loop, deliver: { [unowned self] raw in
            let frame = touchTransform.apply(raw)
            if unshownInput == nil { unshownInput = frame.time }
            builder.note(session.process(frame), round: session.game.round, at: frame.time)
        }, lost: { [unowned self] device, time in
            session.cancel(device: device, at: time)
        })
        if options.attractNow {
            builder.note(session.startDemo(at: started), round: session.game.round, at: started)
        }
        display.onVisible = { [unowned self] shownAt in
            guard let input = inFlightInput else { return }
            inFlightInput = nil
            // The kernel stamps evdev events and flips with CLOCK_MONOTONIC, like the loop.
            let sample = shownAt.milliseconds(since: input)
            if latencies.count < latencyCapacity {
                latencies.append(sample)
            } else {
                latencies[latencyNext] = sample
            }
            latencyNext = (latencyNext + 1) % latencyCapacity
        }
        loop.onWake = { [unowned self] now in wake(now) }
        defer { finish() }
        try loop.run()
        return 0
    }

    /// One iteration's work: input due, time passing, drawing, screenshots, status.
    private func wake(_ now: TimeStamp) -> TimeStamp? {
        input.advance(to: now)
        let events = session.advance(to: now)
        builder.note(events, round: session.game.round, at: now)
        waitingFrame = nil
        if display.canPresent {
            let due = lastFrameAt?.adding(milliseconds: frameIntervalMS - 1) ?? now
            let scene = builder.scene(session, at: now)
            let damage = now >= due ? renderer.render(scene) : []
            if now < due && scene != lastScene { waitingFrame = due }
            if !damage.isEmpty {
                do {
                    inFlightInput = unshownInput ?? inFlightInput
                    unshownInput = nil
                    try display.present(renderer.frame, damage: damage)
                    frames += 1
                    lastFrameAt = now
                    lastScene = scene
                } catch {
                    // A failing display fails every frame: say so on the 1st, 2nd, 4th, 8th... time.
                    presentFailures += 1
                    if presentFailures & (presentFailures - 1) == 0 {
                        Console.errorLine("bubble-kiosk: display \(display.name): \(error) (\(presentFailures) times)")
                    }
                }
            }
        }
        if let due = nextShot, now >= due, let every = options.screenshotEvery {
            writeScreenshot(every.path)
            nextShot = due.adding(milliseconds: every.seconds * 1000)
            if nextShot! <= now { nextShot = now.adding(milliseconds: every.seconds * 1000) }
        }
        if let due = nextStatus, now >= due {
            Console.line(statusLine(now))
            nextStatus = due.adding(milliseconds: 1000)
            if nextStatus! <= now { nextStatus = now.adding(milliseconds: 1000) }
        }
        var deadlines = [session.nextDeadline, builder.nextChange(session.game, at: now), waitingFrame,
                         input.nextDeadline, nextShot, nextStatus]
        if let d = options.duration {
            let end = started.adding(milliseconds: d * 1000)
            if now >= end { loop.stop() }
            deadlines.append(end)
        }
        return deadlines.compactMap { $0 }.min()
    }

    func statusLine(_ now: TimeStamp) -> String {
        let game = session.game
        let screen: String
        switch game.screen {
        case .start: screen = "start"
        case .playing(let demo): screen = demo ? "demo" : "playing"
        case .roundOver: screen = "round-over"
        }
        let round = game.round
        let live = round?.remaining ?? 0
        let total = round?.bubbles.count ?? 0
        let t = Int(now.milliseconds(since: started) / 1000)
        return "t=\(t)s frames=\(frames) screen=\(screen) score=\(round?.score ?? 0) bubbles=\(live)/\(total) "
            + "input=\(input.name) display=\(display.name) wakeups=\(loop.wakeups)"
    }

    private func writeScreenshot(_ path: String) {
        do {
            try display.screenshot(to: path)
        } catch {
            Console.errorLine("bubble-kiosk: screenshot \(path): \(error)")
        }
    }

    /// The `--stats` line printed at exit.
    func statsLine() -> String {
        // Over the last `latencyCapacity` samples at most; the same statistics as `bench`.
        let timing = Timing(latencies)
        func ms(_ v: Double) -> String { latencies.isEmpty ? "-" : String((v * 100).rounded() / 100) }
        return "stats: frames=\(frames) wakeups=\(loop.wakeups) input_latency_ms median=\(ms(timing.median)) "
            + "p95=\(ms(timing.p95)) max=\(ms(latencies.max() ?? 0)) samples=\(latencies.count)"
    }

    private func finish() {
        if let path = options.screenshotPath { writeScreenshot(path) }
        display.restore()
        if options.stats { Console.line(statsLine()) }
    }
}
