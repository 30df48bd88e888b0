/// What `PREFIX/state` says about one kiosk: a retained JSON object whose key names and order
/// are a contract with Home Assistant templates and operators' scripts.
public struct FleetState: Equatable, Sendable {
    /// What is on screen, as the `screen` field names it.
    public enum Screen: String, Sendable, CaseIterable {
        case start, playing
        case roundOver = "round_over"
        case demo
        case touchTest = "touch_test"
        case asleep
        case noDisplay = "no_display"
    }

    public var screen: Screen
    /// The mode played, or offered on the start screen.
    public var mode: Round.Mode
    public var score: Int
    /// The display is on (`on`) or put to sleep (`off`).
    public var displayOn: Bool
    /// 0-255, nil when the display has no backlight the kiosk can set.
    public var brightness: Int?
    /// 0-100.
    public var volume: Int
    public var roundsToday: Int
    public var highScore: Int
    /// The latest real touch; nil when none since the start.
    public var lastTouch: WallTime?
    /// Touchscreens present now.
    public var touchscreens: Int
    public var version: String
    /// Since the kiosk started (whole seconds in the JSON).
    public var uptime: Duration
    /// The TV over HDMI-CEC (`TVStatus.stateWord`: on, standby, unknown); nil without an adapter.
    public var tv: String?

    public init(screen: Screen, mode: Round.Mode, score: Int, displayOn: Bool, brightness: Int?,
                volume: Int, roundsToday: Int, highScore: Int, lastTouch: WallTime?, touchscreens: Int,
                version: String, uptime: Duration, tv: String? = nil) {
        self.screen = screen
        self.mode = mode
        self.score = score
        self.displayOn = displayOn
        self.brightness = brightness
        self.volume = volume
        self.roundsToday = roundsToday
        self.highScore = highScore
        self.lastTouch = lastTouch
        self.touchscreens = touchscreens
        self.version = version
        self.uptime = uptime
        self.tv = tv
    }

    /// The object for `PREFIX/state`, keys in the contract's order; ranges clamped so a subscriber
    /// never sees a value the contract does not allow.
    public var json: JSON {
        .object([
            ("screen", .string(screen.rawValue)),
            ("mode", .string(mode.rawValue)),
            ("score", .int(score)),
            ("display", .string(displayOn ? "on" : "off")),
            ("brightness", brightness.map { .int(min(max($0, 0), 255)) } ?? .null),
            ("volume", .int(min(max(volume, 0), 100))),
            ("rounds_today", .int(max(roundsToday, 0))),
            ("high_score", .int(highScore)),
            ("last_touch", lastTouch.map { .string(ClockText.iso8601($0)) } ?? .null),
            ("touchscreens", .int(max(touchscreens, 0))),
            ("version", .string(version)),
            ("uptime_s", .int(max(Int(clamping: uptime.components.seconds), 0))),
            ("tv", tv.map { .string($0) } ?? .null),
        ])
    }

    /// Whether `other` says the same apart from the uptime, which changes every second and is no
    /// reason to publish. Compared as JSON, so a touch within the same second is no change either.
    public func sameApartFromUptime(_ other: FleetState) -> Bool {
        var a = self, b = other
        a.uptime = .zero
        b.uptime = .zero
        return a.json == b.json
    }
}

/// When to publish `PREFIX/state`: on a change, at most once per `minInterval` (the state at
/// the end of the wait is sent, never a queue of the ones in between), and as a heartbeat every
/// `heartbeat` when nothing changes, so a subscriber can tell a quiet kiosk from a dead one.
public struct FleetStatePacing: Sendable {
    /// What to do now: the state to publish (nil: nothing), and when to call `update` again.
    public struct Step: Equatable, Sendable {
        public let send: FleetState?
        public let next: TimeStamp
    }

    /// 4 a second: enough to follow a round's score, little for the broker.
    public static let defaultMinInterval = Duration.milliseconds(250)
    public static let defaultHeartbeat = Duration.seconds(60)

    public let minInterval: Duration
    public let heartbeat: Duration
    /// What was published last, and when; nil before the first (or after `resend`).
    private var sent: FleetState?
    private var sentAt: TimeStamp?

    /// A nonpositive interval would let every change through: it is taken as 1 ms; the
    /// heartbeat is at least the interval.
    public init(minInterval: Duration = defaultMinInterval, heartbeat: Duration = defaultHeartbeat) {
        self.minInterval = max(minInterval, .milliseconds(1))
        self.heartbeat = max(heartbeat, self.minInterval)
    }

    /// Takes the kiosk's state at `now` (call on every change, and again at `next`).
    public mutating func update(_ state: FleetState, at now: TimeStamp) -> Step {
        guard let sentAt else { return publish(state, at: now) }
        let changed = sent.map { !$0.sameApartFromUptime(state) } ?? true
        if changed {
            let allowed = sentAt + minInterval
            return now >= allowed ? publish(state, at: now) : Step(send: nil, next: allowed)
        }
        let beat = sentAt + heartbeat
        return now >= beat ? publish(state, at: now) : Step(send: nil, next: beat)
    }

    /// The connection is new (a reconnect): the next update publishes as soon as the interval
    /// allows, whether or not anything changed, as the broker may have lost the retained state.
    public mutating func resend() { sent = nil }

    private mutating func publish(_ state: FleetState, at now: TimeStamp) -> Step {
        sent = state
        sentAt = now
        // A change may come any time; this is only when the heartbeat is due.
        return Step(send: state, next: now + heartbeat)
    }
}
