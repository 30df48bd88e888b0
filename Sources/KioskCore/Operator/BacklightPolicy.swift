/// What the panel's backlight should show: `[display] brightness`, dimmed to `dim_brightness`
/// after `dim_after_idle_min` without activity, and powered down (`bl_power`) while the display
/// sleeps. A pure function of the settings, the latest activity and the sleep, on the loop's
/// time; it says when to look again, so the backlight layer arms one timer and otherwise sleeps.
///
/// Levels are the device's raw units (0...max_brightness), linear in the percentages: sysfs
/// says nothing of how bright a raw step looks, so the kiosk does not guess a curve.
public struct BacklightPolicy: Equatable, Sendable {
    /// The answer for one moment.
    public struct Decision: Equatable, Sendable {
        /// The raw level for `brightness`; nil: leave it as it is.
        public var level: Int?
        /// The backlight's power (`bl_power` 0); false only while the display sleeps.
        public var powerOn: Bool
        /// The level is the dim one.
        public var dimmed: Bool
        /// When the answer changes without activity or sleep (the dim deadline); nil: never.
        public var recheck: TimeStamp?

        public init(level: Int?, powerOn: Bool, dimmed: Bool, recheck: TimeStamp?) {
            self.level = level
            self.powerOn = powerOn
            self.dimmed = dimmed
            self.recheck = recheck
        }
    }

    /// Percent of the device's maximum while in use; nil: as the panel was found.
    public var brightness: Double?
    /// Time without activity before dimming; zero: never.
    public var dimAfterIdle: Duration
    /// Percent of the maximum when dimmed (never above the level in use).
    public var dimBrightness: Double

    public init(brightness: Double?, dimAfterIdle: Duration, dimBrightness: Double) {
        self.brightness = brightness
        self.dimAfterIdle = dimAfterIdle
        self.dimBrightness = dimBrightness
    }

    public init(_ settings: DisplaySettings) {
        self.init(brightness: settings.brightness, dimAfterIdle: settings.dimAfterIdle,
                  dimBrightness: settings.dimBrightness)
    }

    /// Raw units for `percent` of `maximum`, to the nearest step (halves up). A positive percent
    /// is never 0, so a dim panel is never black; 0 or less is 0; above 100 is `maximum`.
    public static func level(percent: Double, maximum: Int) -> Int {
        guard maximum > 0, percent > 0 else { return 0 }
        guard percent < 100 else { return maximum }
        let raw = (percent / 100 * Double(maximum)).rounded(.toNearestOrAwayFromZero)
        return min(max(Int(raw), 1), maximum)
    }

    /// `level` as a percentage of `maximum`, for log lines.
    public static func percent(level: Int, maximum: Int) -> Double {
        maximum > 0 ? Double(level) * 100 / Double(maximum) : 0
    }

    /// The level, power and next look at `now`.
    /// - Parameters:
    ///   - lastActivity: the latest touch or wake (or the start).
    ///   - asleep: the display sleeps (`KioskEvent.displaySleep`).
    ///   - found: the raw level the panel had when the kiosk took it.
    ///   - maximum: the device's `max_brightness`.
    public func decide(lastActivity: TimeStamp, asleep: Bool, at now: TimeStamp, found: Int, maximum: Int) -> Decision {
        var decision = awake(lastActivity: lastActivity, at: now, found: found, maximum: maximum)
        // Asleep, the level stays as it was (never brighter: a panel without bl_power may still
        // glow) and nothing is due until a touch or the wake.
        if asleep {
            decision.powerOn = false
            decision.recheck = nil
        }
        return decision
    }

    private func awake(lastActivity: TimeStamp, at now: TimeStamp, found: Int, maximum: Int) -> Decision {
        let normal = brightness.map { Self.level(percent: $0, maximum: maximum) }
        guard dimAfterIdle > .zero else { return Decision(level: normal, powerOn: true, dimmed: false, recheck: nil) }
        let due = lastActivity + dimAfterIdle
        guard now >= due else { return Decision(level: normal, powerOn: true, dimmed: false, recheck: due) }
        // Never brighter than in use, never black (a panel found at 0 stays at least at 1).
        let dim = max(min(Self.level(percent: dimBrightness, maximum: maximum), normal ?? found), min(1, maximum))
        return Decision(level: dim, powerOn: true, dimmed: true, recheck: nil)
    }
}

/// `[display] backlight`: which device the kiosk drives.
public enum BacklightChoice: Equatable, Sendable {
    /// The first device under /sys/class/backlight, if any.
    case auto
    /// No backlight control.
    case none
    /// /sys/class/backlight/NAME.
    case named(String)
    /// A directory holding the same files (tests, boards with the device elsewhere).
    case directory(String)

    public init?(_ text: String) {
        switch text {
        case "auto": self = .auto
        case "none": self = .none
        case _ where text.hasPrefix("/"): self = .directory(text)
        case "", ".", "..": return nil
        case _ where text.contains("/"): return nil
        default: self = .named(text)
        }
    }

    /// What the key accepts, for messages.
    public static let expectation = "auto, none, a device name under /sys/class/backlight or an absolute path to its directory"

    /// Nil when `text` is a choice, else what is expected (`ConfigKind.text`'s check).
    public static func problem(_ text: String) -> String? {
        BacklightChoice(text) == nil ? expectation : nil
    }
}
