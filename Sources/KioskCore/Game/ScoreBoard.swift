/// How a round ended, as the score store keeps it.
public enum RoundOutcome: String, Sendable, CaseIterable {
    /// Played to its end: the classic round cleared, the timed round's countdown run out.
    case finished
    /// Left mid-round: the idle return (or the kiosk stopped) took it away.
    case abandoned
    /// The attract mode played it by itself.
    case demo
}

/// One round played, as the score store keeps it.
public struct RoundRecord: Equatable, Sendable {
    /// When it started, on the wall clock.
    public var started: WallTime
    public var duration: Duration
    public var mode: Round.Mode
    public var score: Int
    public var popped: Int
    public var outcome: RoundOutcome

    public init(started: WallTime, duration: Duration, mode: Round.Mode, score: Int, popped: Int, outcome: RoundOutcome) {
        self.started = started
        self.duration = duration
        self.mode = mode
        self.score = score
        self.popped = popped
        self.outcome = outcome
    }

    /// Whether it can enter the high-score table: a finished round a person played.
    public var isRanked: Bool { outcome == .finished }
}

/// The high scores the start and round-over screens show: per mode, today's and all-time best
/// scores (best first), and the rank the last round reached. Filled in from the score store's
/// answers; empty (the screens show no table) until the store has answered or when it has none.
public struct ScoreBoard: Equatable, Sendable {
    public struct Lists: Equatable, Sendable {
        public var today: [Int]
        public var allTime: [Int]

        public init(today: [Int] = [], allTime: [Int] = []) {
            self.today = today
            self.allTime = allTime
        }
    }

    /// A round that made the high-score table.
    public struct Celebration: Equatable, Sendable {
        /// The round's start on the kiosk's clock (which round it was).
        public var roundStart: TimeStamp
        /// Its place in the all-time table of its mode, 1 the best.
        public var rank: Int
        public var score: Int

        public init(roundStart: TimeStamp, rank: Int, score: Int) {
            self.roundStart = roundStart
            self.rank = rank
            self.score = score
        }
    }

    /// Rounds people started on one local day (days as `DailyCount` counts them).
    public struct DayCount: Equatable, Sendable {
        public var day: Int
        public var rounds: Int

        public init(day: Int, rounds: Int) {
            self.day = day
            self.rounds = rounds
        }
    }

    public var lists: [Round.Mode: Lists]
    public var celebration: Celebration?
    /// Rounds people started today before this kiosk process started, as the store counts
    /// them: what a restart at noon adds to the rounds it counts itself. Nil until the store
    /// answered.
    public var roundsBeforeStart: DayCount?

    public init(lists: [Round.Mode: Lists] = [:], celebration: Celebration? = nil, roundsBeforeStart: DayCount? = nil) {
        self.lists = lists
        self.celebration = celebration
        self.roundsBeforeStart = roundsBeforeStart
    }

    public subscript(mode: Round.Mode) -> Lists { lists[mode] ?? Lists() }

    /// The rank `score` would take among `allTime` (ties go to the earlier round), or nil when
    /// it does not make a table of `size` places.
    public static func rank(of score: Int, among allTime: [Int], size: Int) -> Int? {
        let rank = allTime.count { $0 >= score } + 1
        return rank <= size ? rank : nil
    }
}
