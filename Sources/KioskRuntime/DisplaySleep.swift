import KioskCore
import KioskPlatform

/// The display's sleep: why it sleeps, its one timer, the screen's power and the policy's
/// latest answer. `DisplaySleepPolicy` decides; this owns what follows from it. What the rest of
/// the kiosk does when the display falls asleep or wakes (the game stands still, the layers
/// hear of it) is the runtime's (`KioskRuntime+Sleep.swift`).
public final class DisplaySleep {
    /// Why the display sleeps now; nil while it is on.
    public private(set) var reason: DisplaySleepPolicy.Reason?
    /// Times the display went to sleep, and touch frames the sleeping display took since the
    /// start (the rest of the waking touch is held by the touch path).
    public private(set) var sleeps = 0
    public private(set) var swallowedFrames = 0
    /// The one timer for the policy's next look ("display-sleep"); its firing only wakes the
    /// loop: the iteration's work looks again.
    private let timer: EventLoop.TimerID
    private let loop: EventLoop
    private let display: Display
    private var asleepSince: TimeStamp?
    /// Refused power switches: the first is logged.
    private var powerErrors = RateLimitedLog()
    /// The policy's latest answer and what it was given (`decide` reuses it).
    private var lastDecision: (policy: DisplaySleepPolicy, facts: DisplaySleepPolicy.Facts, decision: DisplaySleepPolicy.Decision)?
    /// Where its lines go (the runtime's log).
    var log: (Console.Level, String) -> Void = { _, _ in }

    init(loop: EventLoop, display: Display) {
        self.loop = loop
        self.display = display
        timer = loop.addTimer("display-sleep")
    }

    public var isAsleep: Bool { reason != nil }

    /// The policy's answer at `now`. It changes only with the settings, the facts, or at its
    /// recheck time: the frames in between (the demo, 60 a second) reuse it rather than ask the
    /// C library for the local time (and mktime for each range) every frame.
    func decide(_ policy: DisplaySleepPolicy, _ facts: DisplaySleepPolicy.Facts, clock: WallClock,
                at now: TimeStamp) -> DisplaySleepPolicy.Decision {
        if let last = lastDecision, last.policy == policy, last.facts == facts,
           last.decision.recheck.map({ now < $0 }) ?? true {
            return last.decision
        }
        let decision = policy.decide(facts, at: now, clock: clock)
        lastDecision = (policy, facts, decision)
        return decision
    }

    /// The wall clock changed (a test's virtual one): the next look asks the policy afresh.
    func forgetDecision() { lastDecision = nil }

    /// A touch frame reached the display while it sleeps: taken (counted), not played.
    func swallow() -> Bool {
        guard isAsleep else { return false }
        swallowedFrames += 1
        return true
    }

    /// Dark now: the screen switched off, the timer armed for the policy's next look. The log
    /// line says when the schedule wakes it (`Mon 07:00`), if it does.
    func fallAsleep(_ why: DisplaySleepPolicy.Reason, at now: TimeStamp, recheck: TimeStamp?,
                    scheduledWake: SleepSchedule.Moment?) {
        reason = why
        asleepSince = now
        sleeps += 1
        switchPower(on: false)
        var until = "a touch"
        if case .schedule = why, let scheduledWake { until += " or \(scheduledWake.weekdayAndTime)" }
        log(.info, "\(why.statusText): screen off, nothing drawn until \(until)")
        arm(recheck)
    }

    /// Still dark, for another reason now (the schedule began while idle, an operator's off).
    func stillAsleep(_ why: DisplaySleepPolicy.Reason, note: String? = nil) {
        guard isAsleep, why != reason else { return }
        reason = why
        log(.info, why.statusText + (note.map { ": " + $0 } ?? ""))
    }

    /// On again: the screen switched on; false when it was not asleep.
    @discardableResult
    func wake(at now: TimeStamp, why: String) -> Bool {
        guard isAsleep else { return false }
        reason = nil
        switchPower(on: true)
        let minutes = asleepSince.map { ((now - $0).inSeconds / 6).rounded() / 10 } ?? 0
        log(.info, "display awake (\(why)) after \(minutes) min asleep")
        arm(nil)
        return true
    }

    /// The timer for the policy's next look, or none.
    func arm(_ at: TimeStamp?) { loop.arm(timer, at: at) }

    private func switchPower(on: Bool) {
        do {
            try display.setPower(on: on)
        } catch {
            guard powerErrors.noteFirst() else { return }
            log(.warning, "display \(display.name): cannot switch the screen \(on ? "on" : "off"): \(error); "
                + "the kiosk goes on (drawing \(on ? "again" : "nothing"))")
        }
    }
}
