import Glibc
import KioskCore
import KioskPlatform
import KioskRender

/// What the kiosk shows, ranked once: a display it may not draw on first (lost, switched away,
/// asleep), then the touch-test screen, then the game's screen. The service status, the
/// `--status` line and the metrics read it; none ranks the flags again.
public enum OnScreen: Equatable, Sendable {
    /// No screen is connected: the kiosk waits for one, the game goes on.
    case noScreen
    case displayLost
    case switchedAway
    case asleep(DisplaySleepPolicy.Reason)
    case touchTest
    case game(KioskGame.Screen)
}

/// What the kiosk tells people: the service manager's status, `--status` and `--stats` lines.
extension KioskRuntime {
    /// What is on the screen now.
    public var onScreen: OnScreen {
        if display.screenCount == 0 { return .noScreen }
        switch displayState {
        case .lost: return .displayLost
        case .switchedAway: return .switchedAway
        case .showing: break
        }
        if let reason = displaySleep.reason { return .asleep(reason) }
        if isTouchTestOpen { return .touchTest }
        return .game(session.game.screen)
    }

    /// What the kiosk does, in a few words for `systemctl status`.
    public var serviceStatus: String {
        let score = session.game.round?.score ?? 0
        switch onScreen {
        case .noScreen: return "waiting for a display"
        case .displayLost: return "display lost"
        case .switchedAway: return "VT switched away"
        case .asleep(let reason): return Self.asleep(reason)
        case .touchTest: return "touch test"
        case .game where input.deviceCount == 0: return "waiting for a touchscreen"
        case .game(.start): return "start screen"
        case .game(.playing(demo: true)): return "demo"
        case .game(.playing(demo: false)): return "playing, score \(score)"
        case .game(.roundOver): return "round over, score \(score)"
        }
    }

    /// Sends `STATUS=` when it changed (after READY: before it, systemd shows "activating").
    func reportStatus() {
        service.report(status: serviceStatus)
    }

    /// The `--status` line: what is drawn (`screen=`: the game's screen or the touch test, also
    /// behind a blank display) and, while nothing can be drawn, why (`display_state=`).
    public func statusLine(_ now: TimeStamp) -> String {
        let game = session.game
        var screen: String
        switch game.screen {
        case .start: screen = "start"
        case .playing(let demo): screen = demo ? "demo" : "playing"
        case .roundOver: screen = "round-over"
        }
        if isTouchTestOpen { screen = "touch-test" }
        let round = game.round
        let live = round?.remaining ?? 0
        let total = round?.bubbles.count ?? 0
        let t = Int((now - started).inSeconds)
        var line = "t=\(t)s frames=\(frames) screen=\(screen) score=\(round?.score ?? 0) bubbles=\(live)/\(total) "
            + "input=\(echoed(input.name, limit: 200)) display=\(display.name) wakeups=\(loop.wakeups)"
        switch onScreen {
        case .noScreen: line += " display_state=no-screen"
        case .displayLost: line += " display_state=lost"
        case .switchedAway: line += " display_state=vt-away"
        case .asleep: line += " display_state=asleep"
        case .touchTest, .game: break
        }
        return line
    }

    /// The `--stats` line printed at exit.
    public func statsLine() -> String {
        let samples = latencies.samples
        let timing = Timing(samples)
        func ms(_ v: Double) -> String { samples.isEmpty ? "-" : NumberText.decimal(v, places: 2) }
        return "stats: frames=\(frames) wakeups=\(loop.wakeups) input_latency_ms median=\(ms(timing.median)) "
            + "p95=\(ms(timing.p95)) max=\(ms(samples.max() ?? 0)) samples=\(samples.count)"
    }
}
