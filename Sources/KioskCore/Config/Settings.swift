/// Gesture thresholds in physical units, so the feel is the same on any screen size.
/// Defaults are listed in doc/configuration.md (generated from the key table); the gestures'
/// sources are tabled in doc/game.md.
public struct GestureSettings: Equatable, Sendable {
    /// A contact that moves further than this from where it went down is no tap.
    public var tapSlopMM = 3.0
    /// A contact held longer than this is no tap.
    public var tapMax = Duration.milliseconds(500)
    /// Held this long without leaving the tap slop: a long press.
    public var longPress = Duration.milliseconds(500)
    /// Moving this far from the down position starts a drag.
    public var dragStartMM = 3.0
    /// A drag ending at least this far from where it started can be a swipe...
    public var swipeMinDistanceMM = 8.0
    /// ...if the finger still moves at least this fast when it lifts.
    public var swipeMinVelocityMMPerS = 20.0
    /// Window of samples for the velocity estimate.
    public var velocityWindow = Duration.milliseconds(100)
    /// A tap that starts within this time after the previous tap's end continues its count...
    public var multiTapInterval = Duration.milliseconds(300)
    /// ...if it lands within this distance of it.
    public var multiTapSlopMM = 16.0
    /// A re-touch this soon after a lift, where the finger lifted, is contact bounce: the same
    /// press goes on (0 turns merging off).
    public var bounce = Duration.milliseconds(25)

    public init() {}
}

/// Layout and rules of a round, sizes in millimetres.
public struct GameSettings: Equatable, Sendable {
    /// Bubbles in a classic round.
    public var bubbles = 10
    public var bubbleMinMM = 18.0
    public var bubbleMaxMM = 30.0
    /// Free border around the play field.
    public var marginMM = 4.0
    /// Height of the heads-up bar at the top, kept free of bubbles.
    public var hudHeightMM = 12.0
    /// Extra radius around a bubble that still counts as a hit, for fingers.
    public var hitMarginMM = 3.0
    /// A swipe pops a swipe bubble when within this many degrees of its arrow.
    public var swipeToleranceDeg = 30.0
    /// Relative weights of the bubble kinds among new bubbles; 0 turns a kind off.
    public var tapWeight = 2.0
    public var swipeWeight = 2.0
    public var dragWeight = 1.0
    /// Share of swipe bubbles among the tap and swipe bubbles (0...1). Setting it splits the
    /// tap and swipe weights' sum (1 when both are 0) anew, so old configs keep their meaning.
    public var swipeShare: Double {
        get { tapWeight + swipeWeight > 0 ? swipeWeight / (tapWeight + swipeWeight) : 0 }
        set {
            let total = tapWeight + swipeWeight > 0 ? tapWeight + swipeWeight : 1
            let share = min(max(newValue, 0), 1)
            swipeWeight = total * share
            tapWeight = total - swipeWeight
        }
    }
    /// Share of drag bubbles among all new bubbles (0...1).
    public var dragShare: Double {
        let total = tapWeight + swipeWeight + dragWeight
        return total > 0 ? dragWeight / total : 0
    }
    /// Tap bubbles need 1...maxTaps taps.
    public var maxTaps = 3

    public init() {}
}

/// The timed mode: bubbles keep coming until the countdown ends.
public struct TimedSettings: Equatable, Sendable {
    public var duration = Duration.seconds(60)
    public var startBubbles = 5
    public var spawnInterval = Duration.milliseconds(1500)
    public var maxBubbles = 12

    public init() {}
}

/// The joystick mode: steer a catcher with an on-screen joystick to collect drifting bubbles
/// before the countdown ends.
public struct JoystickSettings: Equatable, Sendable {
    public var duration = Duration.seconds(45)
    public var startBubbles = 6
    public var spawnInterval = Duration.milliseconds(1500)
    public var maxBubbles = 10
    /// The catcher's speed with the knob at the base's edge; slower in proportion nearer the centre.
    public var maxSpeedMMPerS = 120.0
    /// How fast bubbles drift (each its own direction, 60-100% of this).
    public var driftMMPerS = 12.0
    /// Radius of the joystick's base circle; the knob's travel.
    public var baseRadiusMM = 18.0
    /// Diameter of the catcher.
    public var catcherMM = 16.0

    public init() {}
}

/// The modes the start screen offers (one button each; a single mode keeps the one Start button).
public struct ModeSettings: Equatable, Sendable {
    public var classic = true
    public var timed = true
    public var joystick = true

    public init() {}
}

extension Settings {
    /// The modes the start screen offers, in button order: classic, timed, joystick, each when
    /// `[modes]` has it on. `[attract] timed_mode = true` (the older key) puts timed in
    /// classic's place. Never empty: with every mode off, classic.
    public var offeredModes: [Round.Mode] {
        var out: [Round.Mode] = []
        if modes.classic {
            out.append(attract.timedMode ? .timed : .classic)
        }
        if modes.timed && !out.contains(.timed) { out.append(.timed) }
        if modes.joystick { out.append(.joystick) }
        return out.isEmpty ? [.classic] : out
    }
}

/// Points, kept in the config so operators can tune them.
public struct ScoreSettings: Equatable, Sendable {
    /// Per tap a tap bubble needed, paid when it pops.
    public var tapBubble = 10
    /// Per swipe bubble popped.
    public var swipeBubble = 20
    /// Per drag bubble dropped into the goal.
    public var dragBubble = 20
    /// For clearing a classic round.
    public var roundBonus = 50
    /// Added (usually 0 or negative) for a tap or swipe that hits no bubble.
    public var miss = 0

    public init() {}
}

/// Display facts the core needs.
public struct DisplaySettings: Equatable, Sendable {
    /// Pixel density override; nil means: ask the display, else `fallbackPxPerMM`.
    public var pxPerMM: Double? = nil
    /// Used when neither the config nor the display gives a density (about 100 dpi, a 22" 1080p).
    public static let fallbackPxPerMM = 4.0
    /// Degrees clockwise the picture is turned on the panel (0, 90, 180, 270); touch follows.
    public var rotation = 0
    /// Minutes the start screen stays untouched, with the attract demo off, before the display
    /// sleeps; 0: never.
    public var sleepAfterIdle = Duration.zero
    /// When the display sleeps by weekday, date and local time (`DisplaySleepPolicy`).
    public var sleepSchedule = SleepSchedule.none
    /// Which connected screens show the game: `first`, `all`, or names (`OutputSelection`).
    public var outputs = "first"
    /// `outputs` parsed; `first` for text the config's check would have refused.
    public var outputSelection: OutputSelection { OutputSelection(parsing: outputs) ?? .first }
    /// Move the picture a few pixels every few minutes against burn-in (`PixelShift`).
    public var pixelShift = true
    /// The backlight device (`BacklightChoice`'s words): auto, none, a name or a directory.
    public var backlight = "auto"
    /// Backlight level in percent of its maximum; nil: as the panel was found.
    public var brightness: Double? = nil
    /// Minutes without a touch before the backlight dims; 0: never.
    public var dimAfterIdle = Duration.zero
    /// Dimmed level in percent of the maximum.
    public var dimBrightness = 20.0
    /// The HDMI-CEC adapter that switches the TV (`CECChoice`'s words): auto, off, or a device.
    public var cec = "auto"
    /// What the TV calls the kiosk (its OSD name).
    public var cecName = "bubble-kiosk"

    public init() {}
}

/// The unattended kiosk: idle return, round-over screen, and the attract demo.
public struct AttractSettings: Equatable, Sendable {
    /// Nobody touched the screen this long mid-round: back to the start screen.
    public var idleTimeout = Duration.seconds(45)
    /// How long the round-over screen stays before the start screen returns.
    public var roundOver = Duration.seconds(10)
    /// Play a demo round with ghost fingers when the start screen has been idle.
    public var demo = true
    /// Start screen idle this long before the demo begins.
    public var demoAfter = Duration.seconds(15)
    /// Real rounds use the timed mode instead of the classic one.
    public var timedMode = false

    public init() {}
}

/// The machine the kiosk runs on: its console, and how it takes an upgrade.
public struct KioskSettings: Equatable, Sendable {
    /// A keyboard's keys may switch VTs away from the game and reach the console; false (the
    /// default) turns the kiosk's VT's keyboard off while it runs (`ConsoleKeyboardPolicy`).
    public var allowVTSwitch = false
    /// A new program file installed: the longest wait for a moment nobody plays before the
    /// kiosk restarts into it (`UpdateRestartPolicy`); zero restarts at once.
    public var updateRestartMax = Duration.seconds(10 * 60)
    /// The language of the screens: a shipped catalogue's name (`de`, `zh_CN`), or `auto` for
    /// the system's (LANG); English when the one asked for is not shipped.
    public var language = "en"

    public init() {}
}

/// Touchscreen handling.
public struct InputSettings: Equatable, Sendable {
    /// Grab touchscreens exclusively (EVIOCGRAB).
    public var grab = false
    /// libinput-style calibration matrix `a b c d e f` on normalized coordinates.
    public var calibration: [Double] = [1, 0, 0, 0, 1, 0]
    /// A contact still this long is stuck (water, a sticker) and dropped until it lifts; 0 is off.
    /// `stuckAfterS` as a span; the config table keeps the key in seconds.
    public var stuckAfter = Duration.seconds(20)
    /// ..."still" meaning within this distance of where it came to rest.
    public var stuckRadiusMM = 4.0

    public init() {}
}

/// What operators use to look after a kiosk from afar.
public struct OperatorSettings: Equatable, Sendable {
    /// Where SIGUSR1 writes a screenshot; nil: `screenshot.png` in the state directory when one
    /// is set, else in the working directory.
    public var screenshotPath: String? = nil
    /// The touch-test screen closes after this many seconds without a touch.
    /// `touchTestTimeoutS` as a span; the config table keeps the key in seconds.
    public var touchTestTimeout = Duration.seconds(60)
    /// Which gesture opens the touch-test screen (`TouchTestGestureSetting`'s names).
    public var touchTestGesture = TouchTestGestureSetting.fiveFingerHold.rawValue
    /// Which gesture asks for the operator reset (`ResetGestureSetting`'s names).
    public var resetGesture = ResetGestureSetting.fourCorners.rawValue
    /// Side of the corner squares the corner gestures use.
    public var cornerMM = 25.0
    /// A press in a corner counts once held this long.
    /// `cornerHoldS` as a span; the config table keeps the key in seconds.
    public var cornerHold = Duration.seconds(2)
    /// The four corner presses of the reset all within this time.
    /// `resetWithinS` as a span; the config table keeps the key in seconds.
    public var resetWithin = Duration.seconds(10)

    public var touchTest: TouchTestGestureSetting { TouchTestGestureSetting(rawValue: touchTestGesture) ?? .fiveFingerHold }
    public var reset: ResetGestureSetting { ResetGestureSetting(rawValue: resetGesture) ?? .fourCorners }

    public init() {}
}

/// Fleet metrics: a file for Prometheus node_exporter's textfile collector.
public struct MetricsSettings: Equatable, Sendable {
    /// Where the metrics go (a `*.prom` file in node_exporter's textfile folder); nil: off.
    public var textfile: String? = nil
    /// Seconds between rewrites of the file.
    /// `intervalS` as a span; the config table keeps the key in seconds.
    public var interval = Duration.seconds(5)

    public init() {}
}

/// Programs the kiosk runs when things happen (`[hooks]`): a command line per event (empty:
/// none), and the limits every run is held to.
public struct HookSettings: Equatable, Sendable {
    public var start = ""
    public var roundStart = ""
    public var pop = ""
    public var roundOver = ""
    public var highScore = ""
    public var idle = ""
    public var reset = ""
    public var displayLost = ""
    public var touchscreenLost = ""
    /// A run still going after this long has its process group sent SIGTERM, then SIGKILL.
    /// `timeoutS` as a span; the config table keeps the key in seconds.
    public var timeout = Duration.seconds(10)
    /// Hooks running at once; more are dropped.
    public var maxRunning = 4
    /// Runs of one event in any minute; more are dropped.
    public var perEventPerMinute = 60

    public init() {}

    /// The command line configured for `event`; empty when none.
    public func command(for event: HookEvent) -> String {
        switch event {
        case .start: return start
        case .roundStart: return roundStart
        case .pop: return pop
        case .roundOver: return roundOver
        case .highScore: return highScore
        case .idle: return idle
        case .reset: return reset
        case .displayLost: return displayLost
        case .touchscreenLost: return touchscreenLost
        }
    }
}

/// Bonuses on top of `[score]` and the high-score table (`[scoring]`).
public struct ScoringSettings: Equatable, Sendable {
    /// A pop this soon after the previous one continues a combo.
    public var comboWindow = Duration.milliseconds(1500)
    /// Extra points per combo step on each pop of a combo; 0 turns combos off.
    public var comboBonus = 0
    /// The combo's step stops growing here.
    public var comboMaxSteps = 5
    /// A classic round cleared faster than this earns the time bonus...
    public var parTime = Duration.seconds(30)
    /// ...of this many points per whole second under par; 0 turns it off.
    public var timeBonusPerSecond = 0
    /// Ranks in the high-score table (per mode).
    public var highScores = 10
    /// Top scores the start screen lists for today and for all time.
    public var boardRows = 3

    public init() {}
}

/// Sound effects (`[sounds]`): which file each event plays, how loud, through which ALSA device.
public struct SoundSettings: Equatable, Sendable {
    /// Play sounds at all.
    public var enabled = true
    /// Multiplies every sound, 0 (silent) to 1 (as recorded).
    public var volume = 0.8
    /// The ALSA PCM device (`default`, `hw:0,0`, `plughw:CARD=PCH`, `dmix`, ...).
    public var device = "default"
    /// Per effect: `auto` (the default sound), `none`, or an absolute path to a sound file.
    public var pop = "auto"
    public var swipe = "auto"
    public var roundStart = "auto"
    public var roundOver = "auto"
    public var highScore = "auto"

    public init() {}

    /// The file setting for `effect`.
    public func file(for effect: SoundEffect) -> String {
        switch effect {
        case .pop: return pop
        case .swipe: return swipe
        case .roundStart: return roundStart
        case .roundOver: return roundOver
        case .highScore: return highScore
        }
    }

    /// What a sound file key accepts: nil when `text` is fine, else what is expected.
    public static func fileProblem(_ text: String) -> String? {
        text == "auto" || text == "none" || text.hasPrefix("/") ? nil : fileExpectation
    }
    public static let fileExpectation = "'auto', 'none' or an absolute path to a sound file"
}

/// Fleet control over MQTT (`[mqtt]`): off while `broker` is empty.
public struct MQTTSettings: Equatable, Sendable {
    /// `mqtt://HOST[:PORT]` or `mqtts://HOST[:PORT]` (`MQTTBroker`); empty: no MQTT.
    public var broker = ""
    /// PEM files: the CA that signed the broker's certificate (nil: the system's CAs), and an
    /// optional client certificate with its key.
    public var caFile: String? = nil
    public var certFile: String? = nil
    public var keyFile: String? = nil
    public var username = ""
    /// A file holding the password (systemd's `LoadCredential=`); never the password itself.
    public var passwordFile: String? = nil
    /// Empty: the host name, reduced to `[a-z0-9_-]` (`FleetNames.nodeID(fromHostName:)`).
    public var nodeID = ""
    /// Empty: `bubble-kiosk/NODE_ID`.
    public var topicPrefix = ""
    /// Empty turns Home Assistant discovery off.
    public var discoveryPrefix = FleetNames.defaultDiscoveryPrefix
    public var keepalive = Duration.seconds(30)
    /// After losing a connection that had lasted, the first try comes at a random time from 0 to
    /// this many seconds, so a fleet does not come back all at once (`ReconnectBackoff.spread`).
    public var reconnectSpread = Duration.seconds(10)

    public init() {}

    /// The broker, nil when MQTT is off (the key's check refused anything unusable).
    public var endpoint: MQTTBroker? {
        if case .success(let broker) = MQTTBroker.parse(broker) { return broker }
        return nil
    }

    /// What `node_id` accepts: empty (the host name) or `[a-z0-9_-]`, as Home Assistant wants.
    @Sendable public static func nodeIDProblem(_ text: String) -> String? {
        let ok = text.utf8.count <= FleetNames.maxNodeIDLength
            && text.unicodeScalars.allSatisfy { ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "_" || $0 == "-" }
        return ok ? nil : "lowercase letters, digits, _ and - (at most \(FleetNames.maxNodeIDLength)), or nothing for the host name"
    }

    /// What `broker` accepts: nothing (off) or a broker address.
    @Sendable public static func brokerProblem(_ text: String) -> String? {
        text.isEmpty ? nil : MQTTBroker.problem(text)
    }

    /// What `topic_prefix` accepts: nothing (the default) or a usable prefix.
    @Sendable public static func topicPrefixProblem(_ text: String) -> String? {
        if text.isEmpty { return nil }
        return FleetNames.topicPrefixProblem(text).map { "an MQTT topic prefix such as bubble-kiosk/hall-1 (this one \($0))" }
    }

    @Sendable public static func discoveryPrefixProblem(_ text: String) -> String? {
        FleetNames.discoveryPrefixProblem(text).map { "an MQTT topic prefix such as homeassistant, or nothing for no discovery (this one \($0))" }
    }
}

/// Every setting of the kiosk, with built-in defaults so no config file is needed.
public struct Settings: Equatable, Sendable {
    public var kiosk = KioskSettings()
    public var display = DisplaySettings()
    public var gestures = GestureSettings()
    public var game = GameSettings()
    public var timed = TimedSettings()
    public var joystick = JoystickSettings()
    public var modes = ModeSettings()
    public var score = ScoreSettings()
    public var attract = AttractSettings()
    public var input = InputSettings()
    public var `operator` = OperatorSettings()
    public var metrics = MetricsSettings()
    public var hooks = HookSettings()
    public var scoring = ScoringSettings()
    public var sounds = SoundSettings()
    public var mqtt = MQTTSettings()
    public var branding = BrandingSettings()
    /// The operator's wording for any message (`[text]`), over the language's.
    public var text = TextOverrides()

    public init() {}
}
