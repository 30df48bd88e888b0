/// The sounds the kiosk plays, one file each in `[sounds]`.
public enum SoundEffect: String, CaseIterable, Sendable {
    case pop, swipe, roundStart, roundOver, highScore

    /// The `[sounds]` key naming its file, and the default file's base name.
    public var configName: String {
        switch self {
        case .pop: return "pop"
        case .swipe: return "swipe"
        case .roundStart: return "round_start"
        case .roundOver: return "round_over"
        case .highScore: return "high_score"
        }
    }
}

/// Which kiosk event plays which sound: a tap bubble's pop, a swipe bubble's pop, a person's
/// round starting and ending. The attract demo stays silent (a kiosk that plays by itself all
/// day should not beep by itself all day). New high scores are played by whoever knows about
/// them (`SoundEffect.highScore`).
public struct SoundCues: Sendable {
    /// Inside a demo round: its pops and its end make no sound.
    public private(set) var inDemo = false

    public init() {}

    /// The sound `event` plays, if any; `round` is the round in play (to tell a bubble's kind).
    public mutating func effect(for event: KioskEvent, round: Round?) -> SoundEffect? {
        guard case .game(let game) = event else { return nil }
        switch game {
        case .roundStarted(let demo):
            inDemo = demo
            return demo ? nil : .roundStart
        case .popped(let id, _):
            if inDemo { return nil }
            if let bubble = round?.bubbles.first(where: { $0.id == id }), case .swipe = bubble.kind { return .swipe }
            return .pop
        case .roundOver:
            return inDemo ? nil : .roundOver
        case .idleReturn, .roundAbandoned:
            inDemo = false
            return nil
        case .tapped, .wrongDirection, .missed, .spawned:
            return nil
        }
    }
}
