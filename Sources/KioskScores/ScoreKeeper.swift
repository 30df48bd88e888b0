import KioskCore
import KioskLayers
import KioskPlatform

/// The score layer: turns the game's events into one `RoundRecord` per round played, hands them
/// to the writer thread, and shows the store's answers (high-score lists, the rank of a new high
/// score) on the start and round-over screens; a new high score is announced to the other layers
/// as `KioskEvent.highScore`. Everything here runs on the loop's thread and only posts to the
/// writer, so a slow disk never delays a frame.
public final class ScoreKeeper: KioskLayer {
    private let directory: String
    private weak var host: LayerHost?
    /// The writer thread; nil before `attach`, or when it could not start (the game goes on
    /// without saving).
    public private(set) var writer: ScoreWriter?
    /// The loop delivering the writer's answers.
    private var resultsWatch: LoopRegistration?
    private var recorder: TouchRecorder?

    /// The round in play as last told, and the wall clock when it started.
    private var open: (round: RoundFacts, started: WallTime)?
    private var board = ScoreBoard()
    private var scoring = ScoringSettings()
    /// Rounds recorded whose commit was reported.
    public private(set) var recorded: [Int64] = []

    /// Keeps scores in `directory`'s `scores.db`; the writer thread starts when attached (after
    /// the event loop exists: the thread inherits its signal mask).
    public init(directory: String) {
        self.directory = directory
    }

    public func attach(to host: LayerHost) {
        self.host = host
        scoring = host.settings.scoring
        let writer: ScoreWriter
        do {
            writer = try ScoreWriter(directory: directory, start: host.wallClock.local(at: host.loop.now))
        } catch {
            host.log(.error, "scores: cannot start the score writer (\(error)); the game goes on without saving")
            return
        }
        self.writer = writer
        resultsWatch = writer.results.attach(to: host.loop, name: "score results") { [unowned self] in handle($0) }
        // The touch heatmap's batches go through the same writer.
        recorder = TouchRecorder(host: host, writer: writer)
    }

    public func handle(_ event: KioskEvent, _ facts: EventFacts) {
        guard let writer else { return }
        recorder?.follow(event, at: facts.time)
        if let round = facts.round, round.id == open?.round.id { open?.round = round }
        switch event {
        case .game(.roundStarted):
            // A person taking over from the demo ends the demo round.
            close(as: nil, at: facts.time)
            if let round = facts.round { open = (round, facts.wall) }
        case .game(.roundOver):
            close(as: .finished, at: facts.time)
        case .game(.idleReturn), .game(.roundAbandoned):
            close(as: .abandoned, at: facts.time)
        case .screen(.start):
            // Maybe a new day: today's list starts empty at midnight.
            writer.post(.refresh(rows: max(scoring.boardRows, 1), at: local(facts.wall)))
        default:
            break
        }
    }

    public func reload(_ settings: Settings) { scoring = settings.scoring }

    /// Hands the round in play to the writer; demo rounds are always `demo`.
    private func close(as outcome: RoundOutcome?, at time: TimeStamp) {
        guard let (round, started) = open, let writer, let host else { return }
        open = nil
        let record = RoundRecord(started: started, duration: max(.zero, time - round.startTime),
                                 mode: round.mode, score: round.score, popped: round.popped,
                                 outcome: round.demo ? .demo : (outcome ?? .abandoned))
        writer.post(.record(record, roundStart: round.startTime, tableSize: scoring.highScores, rows: max(scoring.boardRows, 1),
                            at: host.wallClock.local(at: time)))
    }

    /// The local calendar at `wall`, as the loop's wall clock tells it.
    private func local(_ wall: WallTime) -> LocalTime {
        host?.wallClock.local(wall) ?? LocalTime(wall: wall, day: LocalDay(number: 0, start: wall), hour: 0, minute: 0, second: 0, zone: "")
    }

    func handle(_ results: [ScoreResult]) {
        for result in results {
            switch result {
            case .recorded(let id, let start, let mode, let score, let rank):
                recorded.append(id)
                if let rank {
                    board.celebration = ScoreBoard.Celebration(roundStart: start, rank: rank, score: score)
                    host?.log(.info, "new high score \(score), #\(rank)")
                    if let host { host.post(.highScore(HighScore(mode: mode, score: score, rank: rank, roundID: id)), at: host.loop.now) }
                }
            case .board(let b):
                board.lists = b.lists
            case .log(let level, let line):
                host?.log(level, line)
            }
        }
        host?.perform(.showScores(board), by: "the score layer")
    }

    /// The exit: the touch batch waiting and the round in play (as abandoned) are queued, the
    /// queue written, the thread joined.
    public func stop() {
        guard let writer, let host else { return }
        recorder?.flush()
        close(as: .abandoned, at: host.loop.now)
        writer.stop()
        handle(writer.results.take())
    }
}
