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
    }

    let loop: EventLoop
    let display: Display
    let input: TouchInput
    let renderer: SceneRenderer
    var session: KioskSession
    var builder: SceneBuilder
    let options: Options
    private var started = TimeStamp.zero
    private var frames = 0
    private var nextShot: TimeStamp?
    private var nextStatus: TimeStamp?
    private var exitCode: Int32 = 0

    init(settings: Settings, display: Display, input: TouchInput, options: Options) throws {
        self.display = display
        self.input = input
        self.options = options
        let pxPerMM = settings.display.pxPerMM ?? display.reportedPxPerMM ?? DisplaySettings.fallbackPxPerMM
        let field = PlayField(size: display.size, pxPerMM: pxPerMM, game: settings.game)
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
        try input.start(loop: loop, deliver: { [unowned self] frame in
            builder.note(session.process(frame), round: session.game.round, at: frame.time)
        }, lost: { [unowned self] device, time in
            session.cancel(device: device, at: time)
        })
        if options.attractNow {
            builder.note(session.startDemo(at: started), round: session.game.round, at: started)
        }
        loop.onWake = { [unowned self] now in wake(now) }
        defer { finish() }
        try loop.run()
        return exitCode
    }

    /// One iteration's work: input due, time passing, drawing, screenshots, status.
    private func wake(_ now: TimeStamp) -> TimeStamp? {
        input.advance(to: now)
        let events = session.advance(to: now)
        builder.note(events, round: session.game.round, at: now)
        if display.canPresent {
            let scene = builder.scene(session, at: now)
            let damage = renderer.render(scene)
            if !damage.isEmpty {
                do {
                    try display.present(renderer.frame, damage: damage)
                    frames += 1
                } catch {
                    Console.errorLine("bubble-kiosk: display \(display.name): \(error)")
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
        var deadlines = [session.nextDeadline, builder.nextChange(session.game, at: now),
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

    private func finish() {
        if let path = options.screenshotPath { writeScreenshot(path) }
        display.restore()
    }
}
