import Glibc
import KioskCore
import KioskPlatform
import KioskRender

/// What the kiosk tells people: the service manager's status, `--status` and `--stats` lines.
extension KioskRuntime {
    /// What the kiosk does, in a few words for `systemctl status`.
    public var serviceStatus: String {
        switch displayState {
        case .lost: return "display lost"
        case .switchedAway: return "VT switched away"
        case .showing: break
        }
        if let asleep = sleepStatus { return asleep }
        if isTouchTestOpen { return "touch test" }
        if input.deviceCount == 0 { return "waiting for a touchscreen" }
        let game = session.game
        switch game.screen {
        case .start: return "start screen"
        case .playing(demo: true): return "demo"
        case .playing(demo: false): return "playing, score \(game.round?.score ?? 0)"
        case .roundOver: return "round over, score \(game.round?.score ?? 0)"
        }
    }

    /// Sends `STATUS=` when it changed (after READY: before it, systemd shows "activating").
    func reportStatus() {
        guard readySent else { return }
        let status = serviceStatus
        guard status != lastStatus else { return }
        lastStatus = status
        notifier?.notify("STATUS=\(status)")
    }

    /// The `--status` line.
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
        let t = Int(now.milliseconds(since: started) / 1000)
        var line = "t=\(t)s frames=\(frames) screen=\(screen) score=\(round?.score ?? 0) bubbles=\(live)/\(total) "
            + "input=\(echoed(input.name, limit: 200)) display=\(display.name) wakeups=\(loop.wakeups)"
        switch displayState {
        case .showing: break
        case .switchedAway: line += " display_state=vt-away"
        case .lost: line += " display_state=lost"
        }
        if isAsleep { line += " display_state=asleep" }
        return line
    }

    /// The `--stats` line printed at exit.
    public func statsLine() -> String {
        let samples = latencies.samples
        let timing = Timing(samples)
        func ms(_ v: Double) -> String { samples.isEmpty ? "-" : String((v * 100).rounded() / 100) }
        return "stats: frames=\(frames) wakeups=\(loop.wakeups) input_latency_ms median=\(ms(timing.median)) "
            + "p95=\(ms(timing.p95)) max=\(ms(samples.max() ?? 0)) samples=\(samples.count)"
    }
}
