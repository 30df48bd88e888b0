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
/// round starting and ending, a new high score. The attract demo stays silent (a kiosk that
/// plays by itself all day should not beep by itself all day).
public enum SoundCues {
    /// The sound `event` plays, if any.
    public static func effect(for event: KioskEvent, _ facts: EventFacts) -> SoundEffect? {
        if case .highScore = event { return .highScore }
        guard case .game(let game) = event, let round = facts.round, !round.demo else { return nil }
        switch game {
        case .roundStarted: return .roundStart
        case .popped: return facts.bubble?.kind == "swipe" ? .swipe : .pop
        case .roundOver: return .roundOver
        case .idleReturn, .roundAbandoned, .tapped, .wrongDirection, .missed, .spawned: return nil
        }
    }
}
