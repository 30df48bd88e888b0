/// What the kiosk shows, ranked once: a display it may not draw on first (none connected, lost,
/// switched away, asleep), then the touch-test screen, then the game's screen. The runtime
/// stores it and changes it in one place; the service status, the `--status` line, the metrics
/// and fleet control read their names here, and none ranks the flags again.
public enum OnScreen: Equatable, Sendable {
    /// No screen is connected: the kiosk waits for one, the game goes on.
    case noScreen
    case displayLost
    case switchedAway
    case asleep(DisplaySleepPolicy.Reason)
    case touchTest
    case game(KioskGame.Screen)

    /// The kiosk can show nothing now (`--status`'s `display_state=`, the metrics' display_up 0).
    public var isDark: Bool {
        switch self {
        case .noScreen, .displayLost, .switchedAway, .asleep: return true
        case .touchTest, .game: return false
        }
    }

    /// `display_state=` of the `--status` line while nothing can be drawn; nil while it can.
    public var displayStateName: String? {
        switch self {
        case .noScreen: return "no-screen"
        case .displayLost: return "lost"
        case .switchedAway: return "vt-away"
        case .asleep: return "asleep"
        case .touchTest, .game: return nil
        }
    }

    /// `screen=` of the `--status` line: what is drawn, also behind a blank display.
    public static func statusName(game: KioskGame.Screen, touchTestOpen: Bool) -> String {
        if touchTestOpen { return "touch-test" }
        switch game {
        case .start: return "start"
        case .playing(let demo): return demo ? "demo" : "playing"
        case .roundOver: return "round-over"
        }
    }

    /// The `screen` field of fleet control's state: what a person in front of the kiosk sees.
    public var fleetScreen: FleetState.Screen {
        switch self {
        case .noScreen, .displayLost, .switchedAway: return .noDisplay
        case .asleep: return .asleep
        case .touchTest: return .touchTest
        case .game(.start): return .start
        case .game(.playing(demo: true)): return .demo
        case .game(.playing(demo: false)): return .playing
        case .game(.roundOver): return .roundOver
        }
    }

    /// What the kiosk does, in a few words for `systemctl status` (`STATUS=`).
    /// - Parameters:
    ///   - score: the round's score, for the playing and round-over screens.
    ///   - touchscreens: touchscreens in use (0: the kiosk waits for one).
    public func serviceStatus(score: Int, touchscreens: Int?) -> String {
        switch self {
        case .noScreen: return "waiting for a display"
        case .displayLost: return "display lost"
        case .switchedAway: return "VT switched away"
        case .asleep(let reason): return reason.statusText
        case .touchTest: return "touch test"
        case .game where touchscreens == 0: return "waiting for a touchscreen"
        case .game(.start): return "start screen"
        case .game(.playing(demo: true)): return "demo"
        case .game(.playing(demo: false)): return "playing, score \(score)"
        case .game(.roundOver): return "round over, score \(score)"
        }
    }
}

extension DisplaySleepPolicy.Reason {
    /// `display asleep (schedule Mon-Fri 22:00-07:00)` / `display asleep (idle)`: STATUS= and the log.
    public var statusText: String {
        switch self {
        case .idle: return "display asleep (idle)"
        case .schedule(let clause): return "display asleep (schedule \(clause))"
        case .remote: return "display asleep (remote)"
        case .tv: return "display asleep (the TV went to standby)"
        }
    }
}
