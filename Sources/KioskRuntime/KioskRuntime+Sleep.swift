import KioskCore
import KioskPlatform

/// Display sleep: switched off by `[display] sleep_schedule` or an idle start screen, nothing
/// rendered, no game time passing; a touch wakes it (and never reaches the game), and so does
/// the schedule's end. `DisplaySleep` owns the state; here is what it means for the rest.
extension KioskRuntime {
    public var isAsleep: Bool { displaySleep.isAsleep }

    /// The touch path's wake stage. Every touch counts as activity; a touch on the sleeping
    /// display wakes it, and the touch path holds that whole touch, on every device, until each
    /// finger lifted, from the game (no tap, no round start). True when the frame was taken.
    func takeWakingTouch(_ frame: TouchFrame) -> Bool {
        let down = !frame.contacts.isEmpty
        if down { state.activity.touched(at: frame.time) }
        guard displaySleep.swallow() else { return false }
        if down {
            touches.hold.hold(frame)
            wake(at: frame.time, why: "a touch; it is not played")
        }
        return true
    }

    /// At the start of an iteration's work. While asleep: input due, the status, the one timer;
    /// nothing drawn, the session left still, and true. Wakes the display when the policy no
    /// longer wants it asleep (the schedule's end) and returns false: the iteration draws.
    func sleepingUpdate(_ now: TimeStamp) -> Bool {
        guard let reason = displaySleep.reason else { return false }
        // Switched off from afar, or with the TV: only a touch, the command to switch on (or
        // the TV back on) wake it.
        let decision: (asleep: DisplaySleepPolicy.Reason?, recheck: TimeStamp?)
        if reason == .remote || reason == .tv {
            decision = (reason, nil)
        } else {
            let d = decideSleep(now)
            decision = (d.asleep, d.recheck)
        }
        guard let still = decision.asleep else {
            let why: String
            switch reason {
            case .schedule(let clause): why = "the schedule \(clause) ended"
            case .idle: why = "no longer idle"
            case .remote: why = "switched on"
            case .tv: why = "the TV is on again"
            }
            wake(at: now, why: why)
            return false
        }
        displaySleep.stillAsleep(still)
        input.advance(to: now)
        stage.presenter.idle()
        reportStatus()
        loop.arm(sessionTimer, at: nil)
        loop.arm(stage.frameTimer, at: nil)
        loop.arm(touches.timer, at: input.nextDeadline)
        displaySleep.arm(decision.recheck)
        return true
    }

    /// At the end of an awake iteration: goes to sleep when the policy says so, else arms the
    /// timer for its next look.
    func planDisplaySleep(_ now: TimeStamp) {
        if DisplaySleepPolicy(settings).isOff {
            displaySleep.arm(nil)
            return
        }
        let decision = decideSleep(now)
        // Not before the first frame (READY=1 waits for it), not while the screen is not ours.
        guard let reason = decision.asleep, reporter.service.ready, displayState == .showing, !touchTest.isOpen else {
            displaySleep.arm(decision.recheck)
            return
        }
        fallAsleep(reason, at: now, recheck: decision.recheck)
    }

    private func decideSleep(_ now: TimeStamp) -> DisplaySleepPolicy.Decision {
        let game = session.game
        let facts = DisplaySleepPolicy.Facts(screen: game.screen, screenSince: game.screenSince,
                                             activity: state.activity, touching: fingerDown)
        return displaySleep.decide(DisplaySleepPolicy(settings), facts, clock: wallClock, at: now)
    }

    /// A real finger is down: in the game (the demo's are no one's, stuck ones are out of it),
    /// or the one that woke the display, held until it lifts.
    var fingerDown: Bool {
        session.contacts.keys.contains { $0 != DemoPlayer.device } || touches.hold.isHolding
    }

    func fallAsleep(_ reason: DisplaySleepPolicy.Reason, at now: TimeStamp, recheck: TimeStamp?) {
        let wake = DisplaySleepPolicy(settings).scheduledWake(at: now, clock: wallClock)
        displaySleep.fallAsleep(reason, at: now, recheck: recheck, scheduledWake: wake)
        // The demo stops: nothing moves while nobody can see it.
        emit(session.sleep(at: now), at: now)
        stage.presenter.forgetInputInFlight()
        notify(.displaySleep(asleep: true), at: now)
        reportStatus()
        loop.arm(sessionTimer, at: nil)
        loop.arm(stage.frameTimer, at: nil)
    }

    func wake(at now: TimeStamp, why: String) {
        guard displaySleep.wake(at: now, why: why) else { return }
        state.activity.woke(at: now)
        session.wake(at: now)
        stage.presenter.repaintAll()
        notify(.displaySleep(asleep: false), at: now)
        reportStatus()
    }

    /// The TV went to standby by itself (`on` false): dark until a touch, the command to switch on
    /// or the TV back on; an asleep display keeps its reason. The TV back on (`on`) wakes only a
    /// display that sleeps because of it.
    func followTV(on: Bool) {
        let now = loop.now
        if on {
            if displaySleep.reason == .tv { wake(at: now, why: "the TV was switched on") }
            return
        }
        guard !isAsleep else { return }
        if touchTest.isOpen { closeTouchTest(at: now, reason: "the TV went to standby") }
        fallAsleep(.tv, at: now, recheck: nil)
    }

    /// Off from afar: dark until a touch or the command to switch on (past any schedule's end).
    func switchDisplayOff(by who: String) {
        let now = loop.now
        if displaySleep.reason == .remote { return }
        if touchTest.isOpen { closeTouchTest(at: now, reason: "the display was switched off by \(who)") }
        if isAsleep {
            // Already dark (schedule, idle): stays so until switched on, not until the schedule ends.
            displaySleep.stillAsleep(.remote, note: "switched off by \(who) while asleep")
            reportStatus()
            return
        }
        log(.info, "display switched off by \(who)")
        fallAsleep(.remote, at: now, recheck: nil)
    }
}
