import KioskCore

/// One round as the statistics see it: its local day and hour.
public struct PlayedRound: Equatable, Sendable {
    /// `YYYY-MM-DD`, local time.
    public var day: String
    /// 0...23, local time.
    public var hour: Int
    public var mode: String
    public var score: Int
    public var durationMS: Int64
    public var outcome: RoundOutcome

    public init(day: String, hour: Int, mode: String, score: Int, durationMS: Int64, outcome: RoundOutcome) {
        self.day = day
        self.hour = hour
        self.mode = mode
        self.score = score
        self.durationMS = durationMS
        self.outcome = outcome
    }
}

/// What `bubble-kiosk stats` reports: is anyone using the kiosk? Rounds people played
/// (finished or abandoned; demo rounds are counted apart) per day and per hour of the day,
/// the median score and duration of the finished ones, and the shares of finished and abandoned.
public struct PlayStatistics: Equatable, Sendable {
    public var since: String?
    /// Rounds people played: finished + abandoned.
    public var rounds: Int
    public var finished: Int
    public var abandoned: Int
    public var demo: Int
    /// Of the rounds people played; nil when there were none.
    public var finishedShare: Double?
    public var abandonedShare: Double?
    /// Of the finished rounds; nil when there were none.
    public var medianScore: Double?
    public var medianDurationS: Double?
    /// Days with rounds, oldest first.
    public var perDay: [(day: String, rounds: Int)]
    /// All 24 hours of the day, 0 first.
    public var perHour: [Int]

    public init(_ all: [PlayedRound], since: String?) {
        self.since = since
        let played = all.filter { $0.outcome != .demo }
        let done = played.filter { $0.outcome == .finished }
        rounds = played.count
        finished = done.count
        abandoned = played.count - done.count
        demo = all.count - played.count
        finishedShare = rounds == 0 ? nil : Double(finished) / Double(rounds)
        abandonedShare = rounds == 0 ? nil : Double(abandoned) / Double(rounds)
        medianScore = Timing.median(done.map { Double($0.score) })
        // A duration no round can have (a damaged or edited file) would skew the median.
        medianDurationS = Timing.median(done.filter { ScoreStore.plausibleDurationMS.contains($0.durationMS) }
            .map { Double($0.durationMS) / 1000 })
        var days: [(String, Int)] = []
        for r in played {
            if days.last?.0 == r.day { days[days.count - 1].1 += 1 } else { days.append((r.day, 1)) }
        }
        // Rounds come ordered by start; a clock set back can repeat a day: merge, then sort.
        var merged: [String: Int] = [:]
        for (d, n) in days { merged[d, default: 0] += n }
        perDay = merged.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
        perHour = Array(repeating: 0, count: 24)
        for r in played where (0..<24).contains(r.hour) { perHour[r.hour] += 1 }
    }

    public static func == (a: PlayStatistics, b: PlayStatistics) -> Bool {
        a.since == b.since && a.rounds == b.rounds && a.finished == b.finished && a.abandoned == b.abandoned
            && a.demo == b.demo && a.medianScore == b.medianScore && a.medianDurationS == b.medianDurationS
            && a.perDay.map(\.day) == b.perDay.map(\.day) && a.perDay.map(\.rounds) == b.perDay.map(\.rounds)
            && a.perHour == b.perHour
    }
}
