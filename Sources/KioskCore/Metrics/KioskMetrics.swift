/// The kiosk's fleet metrics as values: counters fed by the kiosk's events, and the families
/// they make together with what the runtime knows at the moment of writing (`LiveFigures`).
///
/// Names follow Prometheus' conventions: a `bubble_kiosk_` prefix, snake_case, base units
/// (seconds), `_total` on counters, labels for the mode and the kind. Every label combination
/// that can happen is written from the start (as 0), so `rate()` and `increase()` see the first
/// round too.
public struct KioskMetrics: Sendable {
    /// Round modes as labelled: `classic`, `timed`, `joystick`, and `demo` for the attract mode's rounds.
    public static let modes = ["classic", "timed", "joystick", "demo"]
    public static let kinds = ["tap", "swipe", "drag"]
    /// How a round ended: `finished` (cleared, or the countdown ran out), `abandoned` (the idle
    /// return), `interrupted` (a demo that a person took over).
    public static let outcomes: [(mode: String, outcome: String)] = [
        ("classic", "finished"), ("classic", "abandoned"), ("timed", "finished"), ("timed", "abandoned"),
        ("joystick", "finished"), ("joystick", "abandoned"),
        ("demo", "finished"), ("demo", "interrupted"),
    ]

    /// When the kiosk started.
    public let startTime: WallTime
    public private(set) var roundsStarted: [String: Int] = [:]
    /// Ended rounds by `"mode outcome"`.
    public private(set) var roundsPlayed: [String: Int] = [:]
    /// Pops by `"mode kind"`.
    public private(set) var popped: [String: Int] = [:]
    /// Contacts that went down on a real touchscreen.
    public private(set) var touches = 0
    /// Contacts the stuck-touch filter dropped.
    public private(set) var stuckTouches = 0
    /// How often the display was switched off since the start.
    public private(set) var displaySleeps = 0

    /// Tells new contacts: a tracking id not down in the device's last frame.
    private var downs = TouchDownTracker()

    public init(startTime: WallTime) {
        self.startTime = startTime
    }

    /// Counts one event.
    public mutating func note(_ event: KioskEvent, _ facts: EventFacts) {
        /// A round's mode label: `demo` for the attract mode's rounds.
        func label(_ round: RoundFacts?) -> String? { round.map { $0.demo ? "demo" : $0.mode.rawValue } }
        switch event {
        case .touch(let frame):
            touches += downs.newContacts(in: frame).count
        case .game(.roundStarted):
            if facts.replaced?.demo == true { roundsPlayed["demo interrupted", default: 0] += 1 }
            roundsStarted[label(facts.round) ?? "classic", default: 0] += 1
        case .game(.popped):
            popped["\(label(facts.round) ?? "classic") \(facts.bubble?.kind ?? "tap")", default: 0] += 1
        case .game(.roundOver):
            if let mode = label(facts.round) { roundsPlayed["\(mode) finished", default: 0] += 1 }
        case .game(.idleReturn), .game(.roundAbandoned):
            // A demo given up for the touch-test screen is interrupted, like one a person took over.
            if let mode = label(facts.round) { roundsPlayed[mode == "demo" ? "demo interrupted" : "\(mode) abandoned", default: 0] += 1 }
        case .stuckTouch:
            stuckTouches += 1
        case .displaySleep(let asleep):
            // Announced only when it changes.
            if asleep { displaySleeps += 1 }
        case .game, .screen, .firstFrame, .displayLost, .touchscreenLost, .touchTest, .operatorGesture, .highScore:
            break
        }
    }

    /// What the runtime knows when the file is written.
    public struct LiveFigures: Sendable {
        public var displayUp: Bool
        /// Screens showing the game; 0 while the kiosk waits for a display.
        public var screens: Int
        /// Touchscreens in use; nil for inputs that do not look for devices (replays, none).
        public var touchscreens: Int?
        public var screen: KioskGame.Screen
        public var frames: Int
        /// Render and present time of each frame.
        public var frameTimes: SampleRing
        /// Input-to-screen latency.
        public var latencies: SampleRing
        /// The display is switched off to sleep.
        public var displayAsleep: Bool
        /// The latest touch on a real touchscreen; nil when none since the start.
        public var lastTouch: WallTime?
        /// The TV says it is on (true) or in standby (false) over HDMI-CEC; nil: no adapter in
        /// use, or no answer.
        public var tvPowerOn: Bool?

        public init(displayUp: Bool, screens: Int = 1, touchscreens: Int?, screen: KioskGame.Screen, frames: Int,
                    frameTimes: SampleRing, latencies: SampleRing, displayAsleep: Bool = false, lastTouch: WallTime? = nil) {
            self.displayUp = displayUp
            self.screens = screens
            self.touchscreens = touchscreens
            self.screen = screen
            self.frames = frames
            self.frameTimes = frameTimes
            self.latencies = latencies
            self.displayAsleep = displayAsleep
            self.lastTouch = lastTouch
        }
    }

    /// Every family, in a fixed order.
    public func families(_ live: LiveFigures) -> [MetricFamily] {
        typealias S = MetricFamily.Sample
        typealias L = MetricFamily.Label
        func seconds(_ name: String, _ help: String, _ ring: SampleRing) -> MetricFamily {
            // Samples are whole microseconds: rounding keeps the text free of binary fraction noise.
            func s(_ d: Duration) -> Double { Double(d.wholeMicroseconds) / 1_000_000 }
            return .summary(name, help: help, recent: ring.samples.map(s), count: ring.totalCount, sum: s(ring.totalSum))
        }
        let screenName: String
        switch live.screen {
        case .start: screenName = "start"
        case .playing(let demo): screenName = demo ? "demo" : "playing"
        case .roundOver: screenName = "round_over"
        }
        var result: [MetricFamily] = [
            MetricFamily("bubble_kiosk_start_time_seconds", .gauge,
                         help: "When the kiosk process started, in seconds since the Unix epoch.",
                         [S([], startTime.unixSeconds)]),
            MetricFamily("bubble_kiosk_rounds_started_total", .counter,
                         help: "Rounds started, by mode (classic, timed, joystick, or demo for the attract mode).",
                         Self.modes.map { S([L("mode", $0)], Double(roundsStarted[$0] ?? 0)) }),
            MetricFamily("bubble_kiosk_rounds_played_total", .counter,
                         help: "Rounds that ended, by mode and outcome (finished, abandoned by the idle return, interrupted demo).",
                         Self.outcomes.map { S([L("mode", $0.mode), L("outcome", $0.outcome)],
                                               Double(roundsPlayed["\($0.mode) \($0.outcome)"] ?? 0)) }),
            MetricFamily("bubble_kiosk_bubbles_popped_total", .counter,
                         help: "Bubbles popped, by round mode and bubble kind (tap, swipe, drag).",
                         Self.modes.flatMap { mode in
                             Self.kinds.map { S([L("mode", mode), L("kind", $0)], Double(popped["\(mode) \($0)"] ?? 0)) }
                         }),
            MetricFamily("bubble_kiosk_touches_total", .counter,
                         help: "Contacts that went down on a touchscreen (fingers, not frames).",
                         [S([], Double(touches))]),
            MetricFamily("bubble_kiosk_stuck_touches_total", .counter,
                         help: "Contacts held still past [input] stuck_after_s (water, a sticker) and dropped from the game.",
                         [S([], Double(stuckTouches))]),
            MetricFamily("bubble_kiosk_last_touch_timestamp_seconds", .gauge,
                         help: "The latest touch, in seconds since the Unix epoch; 0 when none since the start.",
                         [S([], live.lastTouch?.unixSeconds ?? 0)]),
            MetricFamily("bubble_kiosk_frames_total", .counter,
                         help: "Frames presented on the display.",
                         [S([], Double(live.frames))]),
            seconds("bubble_kiosk_frame_time_seconds",
                    "Time to render and present a frame; quantiles over the latest 4096 frames.", live.frameTimes),
            seconds("bubble_kiosk_input_latency_seconds",
                    "Input-to-screen latency, from the input event to the frame showing it; quantiles over the latest 4096.",
                    live.latencies),
            MetricFamily("bubble_kiosk_display_up", .gauge,
                         help: "1 while the kiosk shows on its display, 0 while the display is lost, the VT switched away or no screen is connected.",
                         [S([], live.displayUp ? 1 : 0)]),
            MetricFamily("bubble_kiosk_display_screens", .gauge,
                         help: "Screens showing the game (the main one and its mirrors); 0 while the kiosk waits for a display.",
                         [S([], Double(live.screens))]),
            MetricFamily("bubble_kiosk_display_asleep", .gauge,
                         help: "1 while the display is switched off by the sleep schedule or the idle start screen, else 0.",
                         [S([], live.displayAsleep ? 1 : 0)]),
            MetricFamily("bubble_kiosk_display_sleeps_total", .counter,
                         help: "Times the display was switched off to sleep.",
                         [S([], Double(displaySleeps))]),
        ]
        if let on = live.tvPowerOn {
            result.append(MetricFamily("bubble_kiosk_tv_power_on", .gauge,
                                       help: "1 while the TV says over HDMI-CEC that it is on, 0 while in standby; absent without a CEC adapter or an answer.",
                                       [S([], on ? 1 : 0)]))
        }
        if let n = live.touchscreens {
            result.append(MetricFamily("bubble_kiosk_touchscreens", .gauge,
                                       help: "Touchscreens in use.", [S([], Double(n))]))
        }
        result.append(MetricFamily("bubble_kiosk_screen", .gauge,
                                   help: "1 for the screen shown now (start, playing, demo, round_over), else 0.",
                                   ["start", "playing", "demo", "round_over"].map { S([L("screen", $0)], $0 == screenName ? 1 : 0) }))
        return result
    }

    /// The file's text.
    public func exposition(_ live: LiveFigures) -> String {
        PrometheusText.render(families(live))
    }
}
