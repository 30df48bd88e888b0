import Glibc
import KioskCore
import KioskPlatform
import KioskRender

/// What the kiosk tells people: the service manager's status, `--status` and `--stats` lines,
/// each from `onScreen` and its names.
extension KioskRuntime {
    /// What the kiosk does, in a few words for `systemctl status`.
    public var serviceStatus: String {
        state.onScreen.serviceStatus(score: session.game.round?.score ?? 0, touchscreens: input.deviceCount)
    }

    /// Sends `STATUS=` when it changed (after READY: before it, systemd shows "activating").
    func reportStatus() {
        updateOnScreen()
        reporter.service.report(status: serviceStatus)
    }

    /// The `--status` line: what is drawn (`screen=`: the game's screen or the touch test, also
    /// behind a blank display), while nothing can be drawn, why (`display_state=`), and with an
    /// HDMI-CEC adapter in use what the TV says of its power (`tv=`).
    public func statusLine(_ now: TimeStamp) -> String {
        let game = session.game
        let screen = OnScreen.statusName(game: game.screen, touchTestOpen: touchTest.isOpen)
        let round = game.round
        let live = round?.remaining ?? 0
        let total = round?.bubbles.count ?? 0
        let t = Int((now - state.started).inSeconds)
        var line = "t=\(t)s frames=\(frames) screen=\(screen) score=\(round?.score ?? 0) bubbles=\(live)/\(total) "
            + "input=\(echoed(input.name, limit: 200)) display=\(display.name) wakeups=\(loop.wakeups)"
        if let why = state.onScreen.displayStateName { line += " display_state=\(why)" }
        // The TV over HDMI-CEC, when an adapter is in use: on, standby, unknown.
        if let tv = snapshot.tv { line += " tv=\(tv.stateWord)" }
        return line
    }

    /// The `--stats` line printed at exit.
    public func statsLine() -> String {
        let samples = latencies.samples.map(\.inMilliseconds)
        let timing = Timing(samples)
        func ms(_ v: Double) -> String { samples.isEmpty ? "-" : NumberText.decimal(v, places: 2) }
        return "stats: frames=\(frames) wakeups=\(loop.wakeups) input_latency_ms median=\(ms(timing.median)) "
            + "p95=\(ms(timing.p95)) max=\(ms(samples.max() ?? 0)) samples=\(samples.count)"
    }
}
