/// When a setting changed by a reload (SIGHUP) takes effect.
public enum ReloadEffect: Int, Comparable, Sendable {
    /// At once, even in the round in progress (gesture thresholds, scoring, attract timings,
    /// calibration).
    case now
    /// From the next round on (layout and mode of rounds).
    case nextRound
    /// Only after a restart (the display and how devices are opened).
    case restart

    public static func < (a: ReloadEffect, b: ReloadEffect) -> Bool { a.rawValue < b.rawValue }
}

/// Which settings a running kiosk takes over from a reloaded configuration, and when.
public enum ReloadPolicy {
    /// The effect of changing `key` in a running kiosk.
    public static func effect(of key: ConfigKey) -> ReloadEffect {
        switch (key.section, key.name) {
        // Rules a round in progress can follow at once without moving anything on screen.
        case ("game", "hit_margin_mm"), ("game", "swipe_tolerance_deg"): return .now
        case ("attract", "timed_mode"): return .nextRound
        // The display's power follows the clock and touches, not its mode.
        case ("display", "sleep_after_idle_min"), ("display", "sleep_schedule"): return .now
        // The next frame is drawn with the new offset (or none), and touch follows it.
        case ("display", "pixel_shift"): return .now
        // The backlight layer sets the new level at once; the device is opened once.
        case ("display", "brightness"), ("display", "dim_after_idle_min"), ("display", "dim_brightness"): return .now
        // Devices are opened (and grabbed) once.
        case ("input", "grab"): return .restart
        // A new binary already waiting gets the new deadline.
        case ("kiosk", "update_restart_max_min"): return .now
        // The words and the start screen's look change at once; a round keeps its colours.
        case ("kiosk", "language"): return .now
        default: break
        }
        switch key.section {
        // Sounds are decoded again and the device reopened on the sound thread.
        case "gestures", "score", "attract", "input", "operator", "metrics", "hooks", "sounds": return .now
        case "game", "timed", "joystick", "modes": return .nextRound
        // Bonuses apply to the round in progress; the table's size and rows show at once.
        case "scoring": return .now
        case "branding", "text": return .now
        // The display's size, density and rotation are fixed for the process; so is anything
        // this table does not know yet.
        default: return .restart
        }
    }

    /// `running` with every setting that `loaded` changes and that may change up to `effect`
    /// taken from `loaded`; the others keep their running values.
    public static func merged(_ running: Settings, _ loaded: Settings, upTo effect: ReloadEffect,
                              schema: ConfigSchema = .standard) -> Settings {
        var result = running
        for key in schema.keys where Self.effect(of: key) <= effect {
            key.copy(from: loaded, to: &result)
        }
        return result
    }

    /// The keys (`section.name`) whose values differ between `old` and `new`, by effect.
    public static func changes(from old: Settings, to new: Settings,
                               schema: ConfigSchema = .standard) -> [ReloadEffect: [String]] {
        var result: [ReloadEffect: [String]] = [:]
        for key in schema.keys where key.sameAs == nil && key.render(old) != key.render(new) {
            result[effect(of: key), default: []].append(key.id)
        }
        return result
    }

    /// The one log line a reload writes: what changed and when it applies.
    public static func summary(_ changes: [ReloadEffect: [String]], files: Int) -> String {
        let source = files == 0 ? "no config files, built-in defaults" : "\(files) file\(files == 1 ? "" : "s")"
        guard !changes.isEmpty else { return "reloaded the configuration (\(source)): nothing changed" }
        var parts: [String] = []
        if let now = changes[.now] { parts.append(now.joined(separator: ", ") + " now") }
        if let next = changes[.nextRound] { parts.append(next.joined(separator: ", ") + " from the next round") }
        if let restart = changes[.restart] {
            parts.append(restart.joined(separator: ", ") + " need\(restart.count == 1 ? "s" : "") a restart")
        }
        return "reloaded the configuration (\(source)): " + parts.joined(separator: "; ")
    }
}
