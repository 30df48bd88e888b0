import KioskCore
import KioskPlatform

/// Upgrades: a new program file installed while the kiosk runs is started at the first moment
/// nobody plays (`UpdateRestartPolicy`), through the clean exit the operator reset takes, with a
/// status of its own that the unit restarts at once. `UpdateRestart` owns the watch and the timer.
extension KioskRuntime {
    /// The one line when a new file came: what happens next, and when at the latest.
    func announceUpdate(path: String) {
        log(.notice, UpdateRestartPolicy(settings).announcement(path: echoed(path, limit: 200)))
    }

    /// At the end of every iteration's work: the policy asked again while a new file waits.
    func considerUpdate(at now: TimeStamp) {
        guard updates.arrival != nil else { return }
        let game = session.game
        let facts = UpdateRestartPolicy.Facts(screen: game.screen, screenSince: game.screenSince, asleep: isAsleep,
                                              touchTest: touchTest.isOpen, touching: fingerDown,
                                              quietSince: state.activity.quietSince)
        guard let moment = updates.decide(UpdateRestartPolicy(settings), facts, at: now) else { return }
        log(.notice, "restarting into the new binary (\(moment.text))")
        updates.askRestart()
        reporter.service.stopping(status: "restarting into the new binary")
        loop.stop()
    }
}
