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
    /// `event` and `time` first, then the event's own fields, in order.
    public private(set) var fields: [(String, JSON)]

    /// Field names: lowercase letters, digits and `_` (they become variable names).
    public static func isFieldName(_ name: String) -> Bool {
        !name.isEmpty && ConfigParser.isIdentifier(name)
    }

    /// - Parameters:
    ///   - time: Unix time in seconds (the realtime clock when the event fired).
    ///   - fields: the event's data; names that are no field names, or `event`/`time`, are left out.
    public init(_ event: HookEvent, time: Double, fields: [(String, JSON)] = []) {
        self.event = event
        var all: [(String, JSON)] = [("event", .string(event.rawValue)), ("time", JSON.rounded(time, 3))]
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

/// Turns the kiosk's events into hook runs and their data. It follows the game across events,
/// since some facts are gone by the time an event is seen (the idle return has already
/// dropped the round whose score it abandons; a demo's last pop ends it).
public struct HookEventMapper: Sendable {
    /// The round in progress as last seen: mode, score, and whether the demo plays it.
    private var mode: String?
    private var score = 0
    private var demo = false

    public init() {}

    /// The hook to run for `event` and its fields (without `event` and `time`), or nil.
    public mutating func map(_ event: KioskEvent, game: KioskGame) -> (HookEvent, [(String, JSON)])? {
        defer { remember(game) }
        switch event {
        case .game(.roundStarted(let isDemo)):
            demo = isDemo
            score = game.round?.score ?? 0
            mode = game.round?.mode.rawValue
            guard !isDemo else { return nil }
            return (.roundStart, modeField)
        case .game(.popped(let id, let points)):
            guard !demo else { return nil }
            score = game.round?.score ?? score + points
            var fields = modeField + [("score", .int(score)), ("points", .int(points)), ("id", .int(id))]
            if let bubble = game.round?.bubbles.first(where: { $0.id == id }) {
                fields.append(("kind", .string(bubble.kindName)))
            }
            return (.pop, fields)
        case .game(.roundOver(let final)):
            guard !demo else { return nil }
            score = final
            var fields = modeField + [("score", .int(final))]
            if let round = game.round { fields.append(("popped", .int(round.bubbles.filter(\.isPopped).count))) }
            return (.roundOver, fields)
        case .game(.idleReturn):
            let fields = modeField + [("score", .int(score))]
            mode = nil
            return (.idle, fields)
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
        case .game, .screen, .touch, .touchTest, .stuckTouch, .operatorGesture, .displaySleep:
            return nil
        }
    }

    private var modeField: [(String, JSON)] { mode.map { [("mode", .string($0))] } ?? [] }

    private mutating func remember(_ game: KioskGame) {
        guard let round = game.round, !demo, !game.isDemo else { return }
        score = round.score
        mode = round.mode.rawValue
    }
}
