import KioskCore
import KioskPlatform

/// The display's sleep as the runtime keeps it (`DisplaySleepPolicy` decides).
public struct DisplaySleepState {
    /// Why the display sleeps now; nil while it is on.
    public internal(set) var reason: DisplaySleepPolicy.Reason?
    /// Where the local time of day comes from (`Options.wallClock`); tests may put a virtual one
    /// here before the runtime starts.
    public var wallClock: LocalWallClock { didSet { lastDecision = nil } }
    /// Times the display went to sleep, and touch frames the sleeping display took since the
    /// start (the rest of the waking touch is `KioskRuntime.touchHold`'s).
    public internal(set) var sleeps = 0
    public internal(set) var swallowedFrames = 0
    /// The one timer for the policy's next look ("display-sleep"); its firing only wakes the
    /// loop: the iteration's work looks again.
    let timer: EventLoop.TimerID
    var lastTouch: TimeStamp?
    var lastWake: TimeStamp?
    var asleepSince: TimeStamp?
    /// Refused power switches: the first is logged.
    var powerErrors = RateLimitedLog()
    /// The policy's latest answer and what it was given (`decideSleep` reuses it).
    var lastDecision: (policy: DisplaySleepPolicy, facts: DisplaySleepPolicy.Facts, decision: DisplaySleepPolicy.Decision)?

    init(wallClock: LocalWallClock, timer: EventLoop.TimerID) {
        self.wallClock = wallClock
        self.timer = timer
    }
}

/// Display sleep: switched off by `[display] sleep_schedule` or an idle start screen, nothing
/// rendered, no game time passing; a touch wakes it (and never reaches the game), and so does
/// the schedule's end.
extension KioskRuntime {
    public var isAsleep: Bool { displaySleep.reason != nil }

    /// `display asleep (schedule 22:00-07:00)` / `display asleep (idle)`: STATUS= and the log.
    static func asleep(_ reason: DisplaySleepPolicy.Reason) -> String {
        switch reason {
        case .idle: return "display asleep (idle)"
        case .schedule(let range): return "display asleep (schedule \(range))"
        case .remote: return "display asleep (remote)"
        }
    }

    /// The first look at every touch frame. A touch on the sleeping display wakes it, and
    /// `touchHold` keeps that whole touch, on every device, until each finger lifted, from the
    /// game (no tap, no round start). True when the frame was taken.
    func takeWakingTouch(_ frame: TouchFrame) -> Bool {
        let down = !frame.contacts.isEmpty
        if down { displaySleep.lastTouch = frame.time }
        guard isAsleep else { return false }
        displaySleep.swallowedFrames += 1
        if down {
            touchHold.hold(frame)
            wake(at: frame.time, why: "a touch; it is not played")
        }
        return true
    }

    /// At the start of an iteration's work. While asleep: input due, the status, the one timer;
    /// nothing drawn, the session left still, and true. Wakes the display when the policy no
    /// longer wants it asleep (the schedule's end) and returns false: the iteration draws.
    func sleepingUpdate(_ now: TimeStamp) -> Bool {
        guard let reason = displaySleep.reason else { return false }
        // Switched off from afar: only a touch or the command to switch on wake it.
        let decision: (asleep: DisplaySleepPolicy.Reason?, recheck: TimeStamp?)
        if reason == .remote {
            decision = (.remote, nil)
        } else {
            let d = decideSleep(now)
            decision = (d.asleep, d.recheck)
        }
        guard let still = decision.asleep else {
            let why: String
            switch reason {
            case .schedule(let range): why = "the schedule \(range) ended"
            case .idle: why = "no longer idle"
            case .remote: why = "switched on"
            }
            wake(at: now, why: why)
            return false
        }
        if still != reason {
            displaySleep.reason = still
            log(.info, Self.asleep(still))
        }
        input.advance(to: now)
        presenter.idle()
        reportStatus()
        loop.arm(sessionTimer, at: nil)
        loop.arm(frameTimer, at: nil)
        loop.arm(inputTimer, at: input.nextDeadline)
        armSleepTimer(decision.recheck)
        return true
    }

    /// At the end of an awake iteration: goes to sleep when the policy says so, else arms the
    /// timer for its next look.
    func planDisplaySleep(_ now: TimeStamp) {
        let policy = DisplaySleepPolicy(settings)
        if policy.isOff {
            loop.arm(displaySleep.timer, at: nil)
            return
        }
        let decision = decideSleep(now)
        // Not before the first frame (READY=1 waits for it), not while the screen is not ours.
        guard let reason = decision.asleep, service.ready, displayState == .showing, !isTouchTestOpen else {
            armSleepTimer(decision.recheck)
            return
        }
        fallAsleep(reason, at: now, recheck: decision.recheck)
    }

    private func decideSleep(_ now: TimeStamp) -> DisplaySleepPolicy.Decision {
        let game = session.game
        let fingers = session.contacts.keys.contains { $0 != DemoPlayer.device }
        let facts = DisplaySleepPolicy.Facts(screen: game.screen, screenSince: game.screenSince,
                                             lastTouch: displaySleep.lastTouch,
                                             lastWake: displaySleep.lastWake ?? started,
                                             touching: fingers || touchHold.isHolding)
        let policy = DisplaySleepPolicy(settings)
        // The answer changes only with the settings, the facts, or at its recheck time: the
        // frames in between (the demo, 60 a second) reuse it rather than ask the C library for
        // the local time (and mktime for each range) every frame.
        if let last = displaySleep.lastDecision, last.policy == policy, last.facts == facts,
           last.decision.recheck.map({ now < $0 }) ?? true {
            return last.decision
        }
        let decision = policy.decide(facts, at: now, clock: displaySleep.wallClock)
        displaySleep.lastDecision = (policy, facts, decision)
        return decision
    }

    private func armSleepTimer(_ at: TimeStamp?) {
        loop.arm(displaySleep.timer, at: at)
    }

    func fallAsleep(_ reason: DisplaySleepPolicy.Reason, at now: TimeStamp, recheck: TimeStamp?) {
        displaySleep.reason = reason
        displaySleep.asleepSince = now
        displaySleep.sleeps += 1
        // The demo stops: nothing moves while nobody can see it.
        emit(session.sleep(at: now), at: now)
        presenter.forgetInputInFlight()
        switchPower(on: false)
        var until = "a touch"
        if case .schedule(let range) = reason { until += " or \(SleepSchedule.Range.clock(range.end))" }
        log(.info, "\(Self.asleep(reason)): screen off, nothing drawn until \(until)")
        notify(.displaySleep(asleep: true), at: now)
        reportStatus()
        loop.arm(sessionTimer, at: nil)
        loop.arm(frameTimer, at: nil)
        armSleepTimer(recheck)
    }

    func wake(at now: TimeStamp, why: String) {
        guard isAsleep else { return }
        displaySleep.reason = nil
        displaySleep.lastWake = now
        switchPower(on: true)
        session.wake(at: now)
        presenter.repaintAll()
        let minutes = displaySleep.asleepSince.map { ((now - $0).inMilliseconds / 6000).rounded() / 10 } ?? 0
        log(.info, "display awake (\(why)) after \(minutes) min asleep")
        notify(.displaySleep(asleep: false), at: now)
        reportStatus()
        loop.arm(displaySleep.timer, at: nil)
    }

    private func switchPower(on: Bool) {
        do {
            try display.setPower(on: on)
        } catch {
            guard displaySleep.powerErrors.noteFirst() else { return }
            log(.warning, "display \(display.name): cannot switch the screen \(on ? "on" : "off"): \(error); "
                + "the kiosk goes on (drawing \(on ? "again" : "nothing"))")
        }
    }
}
