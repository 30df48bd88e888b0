/// When a kiosk whose program file was replaced (a package upgrade) restarts into the new one:
/// at the first moment nobody is playing (the start screen or the demo left alone, or the
/// display asleep), and at the latest `[kiosk] update_restart_max_min` after the new file came,
/// even mid-round: a round that never ends (someone keeps playing) must not keep the old
/// version forever.
///
/// A pure function of the setting, when the new file came, what the kiosk shows and the latest
/// touches; it also says when to look again, so the runtime arms one timer and otherwise asks
/// only when something happened.
public struct UpdateRestartPolicy: Equatable, Sendable {
    /// What made now the moment (the log line names it).
    public enum Moment: Equatable, Sendable {
        case startScreen
        case demo
        case asleep
        /// `update_restart_max_min` ran out: whatever is on screen.
        case deadline

        /// For `restarting into the new binary (start screen)`.
        public var text: String {
            switch self {
            case .startScreen: "start screen"
            case .demo: "demo"
            case .asleep: "display asleep"
            case .deadline: "update_restart_max_min reached"
            }
        }
    }

    /// The answer: restart now, or not before `recheck` unless the facts change (a touch, a
    /// screen change, the display's sleep).
    public enum Decision: Equatable, Sendable {
        case restart(Moment)
        case wait(recheck: TimeStamp)
    }

    /// What the runtime knows at the moment.
    public struct Facts: Equatable, Sendable {
        /// The game's screen (under a sleeping display too).
        public var screen: KioskGame.Screen
        /// When that screen came.
        public var screenSince: TimeStamp
        public var asleep: Bool
        /// The touch-test screen is open: an operator is at the kiosk.
        public var touchTest: Bool
        /// A finger is down (playing, or the one that woke the display); stuck touches aside.
        public var touching: Bool
        /// Since when nobody touched or woke the display (`Activity.quietSince`).
        public var quietSince: TimeStamp

        public init(screen: KioskGame.Screen, screenSince: TimeStamp, asleep: Bool, touchTest: Bool, touching: Bool,
                    quietSince: TimeStamp) {
            self.screen = screen
            self.screenSince = screenSince
            self.asleep = asleep
            self.touchTest = touchTest
            self.touching = touching
            self.quietSince = quietSince
        }
    }

    /// The new file, as the kiosk saw it.
    public struct Arrival: Equatable, Sendable {
        /// When it was first seen: the deadline counts from here.
        public var first: TimeStamp
        /// When it last changed (an install may write it in steps).
        public var latest: TimeStamp

        public init(first: TimeStamp, latest: TimeStamp) {
            self.first = first
            self.latest = latest
        }

        /// Seen once more, at `t`.
        public mutating func changed(at t: TimeStamp) { latest = max(latest, t) }
    }

    /// A start screen or demo counts as left alone once nobody touched it (and it showed) this
    /// long: a player who just saw their score and taps Start again is not met by a dark screen.
    public static let settle = Duration.seconds(5)
    /// Nothing happens before the new file stayed as it is this long, not even on the deadline:
    /// `make install` copies and then strips it (two files in turn), and a package's maintainer
    /// script reloads the unit just after unpacking it; the restart should find both done.
    public static let fileSettle = Duration.seconds(10)

    /// `[kiosk] update_restart_max_min`: the longest wait for a moment nobody plays; zero
    /// restarts as soon as the file settled, mid-round or not.
    public var maxWait: Duration

    public init(maxWait: Duration) {
        self.maxWait = maxWait
    }

    public init(_ settings: Settings) {
        self.init(maxWait: settings.kiosk.updateRestartMax)
    }

    /// When the kiosk restarts whatever is on screen.
    public func deadline(_ arrival: Arrival) -> TimeStamp {
        max(arrival.first + maxWait, arrival.latest + Self.fileSettle)
    }

    /// Restart now (and why), or when to look again.
    public func decide(_ arrival: Arrival, _ facts: Facts, at now: TimeStamp) -> Decision {
        let settled = arrival.latest + Self.fileSettle
        if now < settled { return .wait(recheck: settled) }
        let deadline = deadline(arrival)
        var recheck = deadline
        // A finger down is someone at the kiosk, whatever the screen shows; the touch-test
        // screen is an operator at work.
        if !facts.touching && !facts.touchTest {
            if facts.asleep { return .restart(.asleep) }
            let resting: Moment?
            switch facts.screen {
            case .start: resting = .startScreen
            case .playing(demo: true): resting = .demo
            case .playing(demo: false), .roundOver: resting = nil
            }
            if let resting {
                let quiet = max(facts.screenSince, facts.quietSince) + Self.settle
                if now >= quiet { return .restart(resting) }
                recheck = min(recheck, quiet)
            }
        }
        return now >= deadline ? .restart(.deadline) : .wait(recheck: recheck)
    }

    /// The one line the kiosk logs when it sees a new file at `path`.
    public func announcement(path: String) -> String {
        let what = "a new bubble-kiosk binary is installed (\(path)): "
        guard maxWait > .zero else {
            return what + "restarting into it at once, whatever is on screen ([kiosk] update_restart_max_min = 0)"
        }
        return what + "restarting into it at the start screen (at the latest in \(Self.minutes(maxWait)))"
    }

    /// `10 min`, `1 h 30 min`: the setting as people write it.
    static func minutes(_ span: Duration) -> String {
        let total = Int((span.inSeconds / 60).rounded())
        let (hours, minutes) = total.quotientAndRemainder(dividingBy: 60)
        if hours == 0 { return "\(minutes) min" }
        return minutes == 0 ? "\(hours) h" : "\(hours) h \(minutes) min"
    }
}
