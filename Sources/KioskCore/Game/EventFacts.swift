/// The round an event belongs to, as it stood once the event's batch was applied.
public struct RoundFacts: Equatable, Sendable {
    /// The round's number since the kiosk started, demo rounds included: 1, 2, ... (`Round.number`).
    public var id: Int
    public var mode: Round.Mode
    /// The attract demo plays it by itself.
    public var demo: Bool
    public var startTime: TimeStamp
    public var score: Int
    /// The combo's step at the last pop (0: a pop on its own).
    public var combo: Int
    /// Points from combos so far, part of `score`.
    public var comboBonus: Int
    /// Points for clearing a classic round under par, part of `score`.
    public var timeBonus: Int
    public var popped: Int
    /// Bubbles in the round so far, popped or not.
    public var bubbles: Int

    init(demo: Bool, _ round: Round) {
        id = round.number
        self.demo = demo
        mode = round.mode
        startTime = round.startTime
        score = round.score
        combo = round.combo
        comboBonus = round.comboBonus
        timeBonus = round.timeBonus
        popped = round.bubbles.reduce(0) { $0 + ($1.isPopped ? 1 : 0) }
        bubbles = round.bubbles.count
    }
}

/// The bubble an event is about (a tap, pop, wrong swipe or spawn).
public struct BubbleFacts: Equatable, Sendable {
    public var id: Int
    /// `tap`, `swipe`, `drag`...: `Bubble.kindName`.
    public var kind: String
    /// The points a pop was worth; nil for the other events.
    public var points: Int?

    public init(id: Int, kind: String, points: Int?) {
        self.id = id
        self.kind = kind
        self.points = points
    }
}

/// What every layer needs to know about an event besides the event itself, so that no layer
/// reads the game back or keeps its own copy of "which round is this", what is on screen or
/// what time it is.
public struct EventFacts: Equatable, Sendable {
    public var time: TimeStamp
    /// The wall clock's reading at `time` (hooks' `time`, the score store's rounds).
    public var wall: WallTime
    /// The game's screen after the event.
    public var screen: KioskGame.Screen
    /// What the kiosk shows after the event (the game's screen, or the touch test, or nothing).
    public var onScreen: OnScreen
    /// The round the event belongs to: the one in play, or the one the event ended (round over,
    /// idle return, given up). Nil on the start screen between rounds.
    public var round: RoundFacts?
    /// For a round starting: the round still in play it replaced (a person took over the demo).
    public var replaced: RoundFacts?
    public var bubble: BubbleFacts?

    public init(time: TimeStamp, wall: WallTime = .epoch, screen: KioskGame.Screen, onScreen: OnScreen? = nil,
                round: RoundFacts? = nil, replaced: RoundFacts? = nil, bubble: BubbleFacts? = nil) {
        self.time = time
        self.wall = wall
        self.screen = screen
        self.onScreen = onScreen ?? .game(screen)
        self.round = round
        self.replaced = replaced
        self.bubble = bubble
    }
}

/// Builds each event's facts from the game as the runtime announces it: it remembers the round
/// an ending event is about (the game has dropped it by then). Rounds are known by their number.
public struct EventFactsTracker: Sendable {
    /// The latest round, and whether an event ended it.
    private var current: RoundFacts?
    private var ended = false
    /// The latest round's bubbles, to name a bubble the game no longer holds.
    private var lastRound: Round?
    /// Rounds started as told (the latest round's number when the game numbered them).
    public private(set) var roundsStarted = 0

    public init() {}

    public mutating func facts(for event: KioskEvent, game: KioskGame, at time: TimeStamp, wall: WallTime = .epoch,
                               onScreen: OnScreen? = nil) -> EventFacts {
        facts(for: event, screen: game.screen, round: game.round, at: time, wall: wall, onScreen: onScreen)
    }

    /// - Parameters:
    ///   - screen: the game's screen after the event.
    ///   - round: the game's round after the event (the new one for a round starting; nil once
    ///     the game dropped it).
    public mutating func facts(for event: KioskEvent, screen: KioskGame.Screen, round: Round?,
                               at time: TimeStamp, wall: WallTime = .epoch, onScreen: OnScreen? = nil) -> EventFacts {
        var facts = EventFacts(time: time, wall: wall, screen: screen, onScreen: onScreen)
        if case .game(.roundStarted(let demo)) = event, let round {
            if let current, !ended { facts.replaced = current }
            roundsStarted = max(roundsStarted + 1, round.number)
            current = RoundFacts(demo: demo, round)
            ended = false
        } else if let round, let c = current, round.number == c.id {
            current = RoundFacts(demo: c.demo, round)
        }
        if let round { lastRound = round }
        let endsRound: Bool
        switch event {
        case .game(.roundOver), .game(.idleReturn), .game(.roundAbandoned): endsRound = true
        default: endsRound = false
        }
        let stillShown = round != nil && round?.number == current?.id
        if !ended || endsRound || stillShown { facts.round = current }
        if endsRound { ended = true }
        if case .game(let e) = event, let (id, points) = Self.bubble(of: e) {
            let known = (round ?? lastRound)?.bubbles.first { $0.id == id }
            facts.bubble = BubbleFacts(id: id, kind: known?.kindName ?? "tap", points: points)
        }
        return facts
    }

    private static func bubble(of event: GameEvent) -> (Int, Int?)? {
        switch event {
        case .tapped(let id, _), .wrongDirection(let id), .spawned(let id): return (id, nil)
        case .popped(let id, let points): return (id, points)
        case .missed, .roundOver, .roundStarted, .idleReturn, .roundAbandoned: return nil
        }
    }
}
