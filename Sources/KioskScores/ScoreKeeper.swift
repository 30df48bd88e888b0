import KioskCore
import KioskPlatform
import KioskRuntime

/// The runtime's score layer: turns the game's events into one `RoundRecord` per round played,
/// hands them to the writer thread, and shows the store's answers (high-score lists, the rank
/// of a new high score) on the start and round-over screens. Everything here runs on the loop's
/// thread and only posts to the writer, so a slow disk never delays a frame.
public final class ScoreKeeper {
    let runtime: KioskRuntime
    public let writer: ScoreWriter
    private let wallClock: () -> Int64

    /// The round in play.
    private struct Current {
        var startedMS: Int64
        var start: TimeStamp
        var mode: Round.Mode
        var demo: Bool
        var score = 0
        var popped = 0
    }
    private var current: Current?
    private var board = ScoreBoard()
    /// Rounds recorded whose commit was reported.
    public private(set) var recorded: [Int64] = []

    /// A round that made the high-score table, as the store reported it.
    public struct HighScore: Equatable, Sendable {
        public var mode: Round.Mode
        public var score: Int
        /// 1 the best.
        public var rank: Int
        public var roundID: Int64

        /// The `high_score` hook's data: `BUBBLE_MODE`, `BUBBLE_SCORE`, `BUBBLE_RANK`, `BUBBLE_ROUND_ID`.
        public var hookFields: [(String, JSON)] {
            [("mode", .string(mode.rawValue)), ("score", .int(score)), ("rank", .int(rank)), ("round_id", .int(Int(roundID)))]
        }
    }

    /// Called on the loop's thread for each new high score, once its commit returned (the
    /// `high_score` hook).
    public var onHighScore: ((HighScore) -> Void)?

    /// Starts the writer thread on `directory`'s `scores.db` and follows `runtime`'s events.
    /// Start it after the event loop exists (the thread inherits its signal mask). When the
    /// thread cannot start, says so once and returns nil: the game goes on without saving.
    @discardableResult
    public static func attach(to runtime: KioskRuntime, directory: String,
                              wallClock: @escaping @Sendable () -> Int64 = wallClockMS) -> ScoreKeeper? {
        let writer: ScoreWriter
        do {
            writer = try ScoreWriter(directory: directory, wallClock: wallClock)
        } catch {
            runtime.log(.error, "scores: cannot start the score writer (\(error)); the game goes on without saving")
            return nil
        }
        let keeper = ScoreKeeper(runtime: runtime, writer: writer, wallClock: wallClock)
        keeper.writer.results.attach(to: runtime.loop, name: "score results") { [unowned keeper] in keeper.handle($0) }
        runtime.observe { [unowned keeper] event, time in keeper.follow(event, at: time) }
        // The touch heatmap's batches go through the same writer; its last batch before the stop.
        TouchRecorder.attach(to: runtime, writer: writer, wallClock: wallClock)
        runtime.observeExit { [keeper] in keeper.stop() }
        return keeper
    }

    private init(runtime: KioskRuntime, writer: ScoreWriter, wallClock: @escaping () -> Int64) {
        self.runtime = runtime
        self.writer = writer
        self.wallClock = wallClock
    }

    private var scoring: ScoringSettings { runtime.session.game.settings.scoring }

    func follow(_ event: KioskEvent, at time: TimeStamp) {
        switch event {
        case .game(.roundStarted(let demo)):
            // A person taking over from the demo ends the demo round.
            close(as: nil, at: time)
            if let round = runtime.session.game.round {
                current = Current(startedMS: wallClock(), start: round.startTime, mode: round.mode, demo: demo)
            }
        case .game(.popped):
            current?.popped += 1
            snapshotScore()
        case .game(.roundOver(let score)):
            current?.score = score
            close(as: .finished, at: time)
        case .game(.idleReturn), .game(.roundAbandoned):
            close(as: .abandoned, at: time)
        case .game:
            snapshotScore()
        case .screen(.start):
            // Maybe a new day: today's list starts empty at midnight.
            writer.post(.refresh(rows: max(scoring.boardRows, 1)))
        default:
            break
        }
    }

    private func snapshotScore() {
        guard let c = current, let round = runtime.session.game.round, round.startTime == c.start else { return }
        current?.score = round.score
    }

    /// Hands the round in play to the writer; demo rounds are always `demo`.
    private func close(as outcome: RoundOutcome?, at time: TimeStamp) {
        guard let c = current else { return }
        current = nil
        let record = RoundRecord(startedMS: c.startedMS, durationMS: Int64(max(0, time.milliseconds(since: c.start)).rounded()),
                                 mode: c.mode, score: c.score, popped: c.popped,
                                 outcome: c.demo ? .demo : (outcome ?? .abandoned))
        writer.post(.record(record, roundStart: c.start, tableSize: scoring.highScores, rows: max(scoring.boardRows, 1)))
    }

    func handle(_ results: [ScoreResult]) {
        for result in results {
            switch result {
            case .recorded(let id, let start, let mode, let score, let rank):
                recorded.append(id)
                if let rank {
                    board.celebration = ScoreBoard.Celebration(roundStart: start, rank: rank, score: score)
                    runtime.log(.info, "new high score \(score), #\(rank)")
                    onHighScore?(HighScore(mode: mode, score: score, rank: rank, roundID: id))
                }
            case .board(let b):
                board.lists = b.lists
            case .log(let level, let line):
                runtime.log(level, line)
            }
        }
        runtime.scoreBoard = board
    }

    /// The exit: the round in play is stored as abandoned, the queue written, the thread joined.
    public func stop() {
        close(as: .abandoned, at: runtime.loop.now)
        writer.stop()
        handle(writer.results.take())
    }
}
