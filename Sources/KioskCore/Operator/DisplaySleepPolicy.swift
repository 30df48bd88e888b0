/// When the display sleeps (switched off, nothing drawn) and why: `[display] sleep_schedule`
/// by weekday, date and local time, and `sleep_after_idle_min` on an untouched start screen
/// when the attract demo is off (a kiosk that wants its demo seen keeps it on outside the
/// schedule).
///
/// A pure function of the settings, the game's screen, the latest touches and wakes, and the
/// local time; it also says when to look again, so the loop arms one timer and otherwise sleeps.
public struct DisplaySleepPolicy: Equatable, Sendable {
    /// Why the display sleeps.
    public enum Reason: Equatable, Sendable {
        /// The start screen went untouched for `sleep_after_idle_min`.
        case idle
        /// This clause of `sleep_schedule` holds (the first that does).
        case schedule(SleepSchedule.Clause)
        /// An operator switched it off from afar (`PREFIX/display/set OFF`): until a touch or
        /// the command to switch it on. The policy never decides this; the runtime holds it.
        case remote
        /// The TV went to standby by itself (its remote; HDMI-CEC): until a touch, the command
        /// to switch on, or the TV back on. The policy never decides this either.
        case tv
    }

    /// The answer: asleep (with why) or awake, and when the answer may change without input
    /// (nil: only input or a screen change can change it).
    public struct Decision: Equatable, Sendable {
        public var asleep: Reason?
        public var recheck: TimeStamp?
    }

    /// What the runtime knows at the moment.
    public struct Facts: Equatable, Sendable {
        public var screen: KioskGame.Screen
        /// When the screen last changed.
        public var screenSince: TimeStamp
        /// The latest touch on a real touchscreen, including one that woke the display; nil
        /// when there was none.
        public var lastTouch: TimeStamp?
        /// When the display last woke, or the kiosk started.
        public var lastWake: TimeStamp
        /// A finger is still down (the one that woke the display, or anyone playing).
        public var touching: Bool

        public init(screen: KioskGame.Screen, screenSince: TimeStamp, lastTouch: TimeStamp?, lastWake: TimeStamp,
                    touching: Bool) {
            self.screen = screen
            self.screenSince = screenSince
            self.lastTouch = lastTouch
            self.lastWake = lastWake
            self.touching = touching
        }

        public init(screen: KioskGame.Screen, screenSince: TimeStamp, activity: Activity, touching: Bool) {
            self.init(screen: screen, screenSince: screenSince, lastTouch: activity.lastTouch, lastWake: activity.lastWake,
                      touching: touching)
        }
    }

    /// Inside a schedule range, a touch keeps the display on this long after the latest touch
    /// (then the start screen or demo sleeps again).
    public static let scheduleWake = Duration.seconds(60)
    /// Longest wait between two looks at the clock: a wall clock set later (NTP on a board
    /// without a battery-backed clock) is followed within this time.
    public static let longestRecheck = Duration.seconds(3600)

    /// How long the start screen rests untouched before the display sleeps; zero: never.
    public var idleAfter: Duration
    public var schedule: SleepSchedule
    /// The attract demo is on: no idle sleep, only the schedule.
    public var demoWanted: Bool

    public init(idleAfter: Duration, schedule: SleepSchedule, demoWanted: Bool) {
        self.idleAfter = idleAfter
        self.schedule = schedule
        self.demoWanted = demoWanted
    }

    public init(_ settings: Settings) {
        self.init(idleAfter: settings.display.sleepAfterIdle, schedule: settings.display.sleepSchedule,
                  demoWanted: settings.attract.demo)
    }

    /// Nothing configured: the display never sleeps and nothing needs a timer.
    public var isOff: Bool { schedule.isEmpty && !idlesOut }

    private var idlesOut: Bool { idleAfter > .zero && !demoWanted }

    /// When the schedule, holding at `now`, ends by itself (for the log line on falling asleep);
    /// nil when nothing holds or it never ends (every day closed).
    public func scheduledWake(at now: TimeStamp, clock: WallClock) -> SleepSchedule.Moment? {
        let moment = SleepSchedule.Moment(clock.local(at: now))
        guard schedule.clause(at: moment) != nil else { return nil }
        return schedule.wake(from: moment)
    }

    /// Asleep or awake at `now`, and when to look again.
    public func decide(_ facts: Facts, at now: TimeStamp, clock: WallClock) -> Decision {
        guard !isOff else { return Decision(asleep: nil, recheck: nil) }
        // A person playing, or the round-over screen with their score: never in their face.
        let resting: Bool
        switch facts.screen {
        case .start, .playing(demo: true): resting = true
        case .playing(demo: false), .roundOver: resting = false
        }
        guard resting, !facts.touching else { return Decision(asleep: nil, recheck: nil) }

        var checks: [TimeStamp] = []
        var asleep: Reason?
        if !schedule.isEmpty {
            let wall = clock.wallTime(at: now)
            let moment = SleepSchedule.Moment(clock.local(wall))
            if let clause = schedule.clause(at: moment) {
                let keptOn = facts.lastTouch.map { $0 + Self.scheduleWake }
                if let keptOn, keptOn > now {
                    checks.append(keptOn)
                } else {
                    asleep = .schedule(clause)
                }
            }
            // The next range start or end, or midnight of a day named: there the answer may
            // change (another clause may go on: then it is looked at again).
            if let change = schedule.nextChange(after: moment) {
                let at = clock.wallTime(localDay: change.day, minute: change.minute)
                // Already past: the change is in an hour the clock shows twice (daylight saving's
                // end) and came on the first pass; looked at each minute until the clock shows it.
                checks.append(at > wall ? now + (at - wall) : now + .seconds(60))
            }
        }
        // Asleep by the schedule, only its end (or a touch) changes anything.
        if idlesOut, facts.screen == .start, asleep == nil {
            let quietSince = [facts.screenSince, facts.lastTouch ?? facts.lastWake, facts.lastWake].max()!
            let due = quietSince + idleAfter
            if now >= due {
                asleep = .idle
            } else {
                checks.append(due)
            }
        }
        // Never a deadline in the past (a clock that jumped): that would spin.
        let soonest = now + .seconds(1)
        let recheck = checks.map { max($0, soonest) }.min().map { min($0, now + Self.longestRecheck) }
        return Decision(asleep: asleep, recheck: recheck)
    }
}
