/// What a hook can be run for: the keys of `[hooks]`.
public enum HookEvent: String, CaseIterable, Sendable {
    /// The kiosk started: its first frame is on the screen.
    case start
    /// A person started a round (demo rounds run no hooks).
    case roundStart = "round_start"
    /// A bubble popped in a person's round.
    case pop
    /// A person's round ended.
    case roundOver = "round_over"
    /// A new high score (raised by the score keeping).
    case highScore = "high_score"
    /// Nobody touched the screen for the idle timeout mid-round: back to the start screen.
    case idle
    /// The operator reset (raised by whoever performs it).
    case reset
    /// The display was lost (DRM master taken away, not a VT switch).
    case displayLost = "display_lost"
    /// A touchscreen went away (unplugged, or it failed).
    case touchscreenLost = "touchscreen_lost"
}

/// What one run of a hook is told: ordered fields, given as `BUBBLE_<FIELD>` environment
/// variables and as one JSON object on standard input.
public struct HookPayload: Equatable, Sendable {
    public let event: HookEvent
    /// When the event happened.
    public let time: WallTime
    /// `event` and `time` first, then the event's own fields, in order.
    public private(set) var fields: [(String, JSON)]

    /// Field names: lowercase letters, digits and `_` (they become variable names).
    public static func isFieldName(_ name: String) -> Bool {
        !name.isEmpty && ConfigParser.isIdentifier(name)
    }

    /// - Parameters:
    ///   - time: the wall clock when the event fired (Unix seconds in the payload).
    ///   - fields: the event's data; names that are no field names, or `event`/`time`, are left out.
    public init(_ event: HookEvent, time: WallTime, fields: [(String, JSON)] = []) {
        self.event = event
        self.time = time
        var all: [(String, JSON)] = [("event", .string(event.rawValue)), ("time", JSON.rounded(time.unixSeconds, 3))]
        for (name, value) in fields where Self.isFieldName(name) && !all.contains(where: { $0.0 == name }) {
            all.append((name, value))
        }
        self.fields = all
    }

    public static func == (a: HookPayload, b: HookPayload) -> Bool { a.json == b.json }

    /// The JSON line for standard input, newline included.
    public var json: String { JSON.object(fields).text + "\n" }

    /// `BUBBLE_EVENT=pop`, `BUBBLE_SCORE=30`, ...: strings as they are, numbers as in the JSON,
    /// booleans `true`/`false`, null empty, lists and objects as their JSON text.
    public var environment: [String] {
        fields.map { name, value in "BUBBLE_\(name.uppercased())=\(Self.text(value))" }
    }

    public func value(_ name: String) -> JSON? { fields.first { $0.0 == name }?.1 }

    static func text(_ value: JSON) -> String {
        switch value {
        case .null: return ""
        // A C string ends at NUL: no value may hold one.
        case .string(let s): return s.contains("\0") ? String(s.unicodeScalars.filter { $0 != "\0" }.map(Character.init)) : s
        default: return value.text
        }
    }
}

/// Turns the kiosk's events into hook runs and their data, from the event and its facts alone.
public enum HookEventMapper {
    /// The hook to run for `event` and its fields (without `event` and `time`), or nil. Demo
    /// rounds run no hooks.
    public static func map(_ event: KioskEvent, _ facts: EventFacts) -> (HookEvent, [(String, JSON)])? {
        let round = facts.round
        let person = round.map { !$0.demo } ?? false
        let mode: [(String, JSON)] = round.map { [("mode", .string($0.mode.rawValue))] } ?? []
        switch event {
        case .game(.roundStarted):
            return person ? (.roundStart, mode) : nil
        case .game(.popped(let id, let points)):
            guard person, let round else { return nil }
            var fields = mode + [("score", .int(round.score)), ("points", .int(points)), ("id", .int(id))]
            if let bubble = facts.bubble { fields.append(("kind", .string(bubble.kind))) }
            return (.pop, fields)
        case .game(.roundOver(let final)):
            guard person, let round else { return nil }
            return (.roundOver, mode + [("score", .int(final)), ("popped", .int(round.popped))])
        case .game(.idleReturn):
            // The demo never idles out; the start screen's idle return has no round.
            guard round == nil || person else { return nil }
            return (.idle, mode + [("score", .int(round?.score ?? 0))])
        case .firstFrame:
            return (.start, [])
        case .displayLost(let reason):
            return (.displayLost, [("reason", .string(reason))])
        case .touchscreenLost(let device, let remaining):
            var fields: [(String, JSON)] = [("device", .int(device))]
            if let remaining { fields.append(("touchscreens", .int(remaining))) }
            return (.touchscreenLost, fields)
        case .operatorGesture(let g) where g.action == .reset:
            return (.reset, [("gesture", .string(g.kind.rawValue)), ("device", .int(g.device))])
        case .highScore(let high):
            return (.highScore, high.hookFields)
        case .game, .screen, .touch, .touchTest, .stuckTouch, .operatorGesture, .displaySleep:
            return nil
        }
    }
}
