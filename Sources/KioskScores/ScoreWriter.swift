import Glibc
import KioskCore
import KioskPlatform

/// What the loop asks of the score writer thread.
public enum ScoreRequest: Sendable {
    /// Store a round; `roundStart` (the kiosk's clock) says which round the answer is about.
    case record(RoundRecord, roundStart: TimeStamp, tableSize: Int, rows: Int)
    /// Read the high-score lists again (the start screen came back: maybe a new day).
    case refresh(rows: Int)
    /// Add a batch of touch-downs to the touch heatmap of the day `wallMS` falls on.
    case touches(TouchHeatmap, wallMS: Int64)
    /// Finish what is queued, close the database and end the thread.
    case stop
}

/// What the score writer thread answers, delivered on the loop's thread.
public enum ScoreResult: Sendable {
    /// A round's commit returned: its id, and its rank when it made the high-score table.
    case recorded(id: Int64, roundStart: TimeStamp, mode: Round.Mode, score: Int, rank: Int?)
    /// The high-score lists as they are now.
    case board(ScoreBoard)
    /// One line for the log (opening, moving a damaged file aside, a failure reported once).
    case log(Console.Level, String)
}

/// The score store on a thread of its own: the loop posts rounds and never waits for the disk;
/// answers come back through `results` (attach it to the loop). The thread opens the database
/// itself, so even a slow check at start delays no frame.
///
/// Failures are reported once: a folder that cannot be written, a full disk. The thread tries
/// again with the next round and says so when saving works again.
public final class ScoreWriter {
    public let requests: Mailbox<ScoreRequest>
    public let results: Mailbox<ScoreResult>
    public let directory: String
    private var thread: WorkerThread?

    public init(directory: String, wallClock: @escaping @Sendable () -> Int64 = wallClockMS) throws {
        self.directory = directory
        requests = try Mailbox(name: "score requests")
        results = try Mailbox(name: "score results")
        let requests = requests, results = results
        thread = try WorkerThread(name: "score-writer") {
            ScoreWriter.serve(directory: directory, requests: requests, results: results, wallClock: wallClock)
        }
    }

    deinit { stop() }

    /// Queues a request; never blocks.
    public func post(_ request: ScoreRequest) { requests.post(request) }

    /// Lets the thread finish what is queued, then joins it. Idempotent.
    public func stop() {
        guard let t = thread else { return }
        thread = nil
        requests.post(.stop)
        t.join()
    }

    private static func serve(directory: String, requests: Mailbox<ScoreRequest>, results: Mailbox<ScoreResult>,
                              wallClock: @Sendable () -> Int64) {
        var store: ScoreStore?
        /// The failure already reported, so it is said once until saving works again.
        var failing = false
        func open() {
            do {
                let s = try ScoreStore(directory: directory, now: wallClock())
                for note in s.notes { results.post(.log(.error, "scores: " + note)) }
                if failing { results.post(.log(.notice, "scores: saving again in \(echoed(s.path, limit: 200))")) }
                failing = false
                store = s
            } catch {
                if !failing {
                    results.post(.log(.error, "scores: cannot save scores (\(error)); the game goes on without saving"))
                }
                failing = true
            }
        }
        func board(_ rows: Int) {
            guard let s = store else { return }
            if let b = try? s.board(rows: max(rows, 1), todayStartMS: localMidnightMS(of: wallClock())) {
                results.post(.board(b))
            }
        }
        open()
        board(10)
        while true {
            for request in requests.wait() {
                switch request {
                case .stop:
                    return
                case .refresh(let rows):
                    if store == nil { open() }
                    board(rows)
                case .touches(let batch, let wallMS):
                    if store == nil { open() }
                    guard let s = store else { continue }
                    do {
                        try s.addTouches(batch, wallMS: wallMS)
                    } catch {
                        if !failing {
                            let why = error.isFull ? "the disk is full" : "\(error)"
                            results.post(.log(.error, "scores: cannot save the touch heatmap (\(why)); the game goes on without saving"))
                        }
                        failing = true
                    }
                case .record(let record, let start, let tableSize, let rows):
                    if store == nil { open() }
                    guard let s = store else { continue }
                    do {
                        let (id, rank) = try s.record(record, tableSize: tableSize)
                        if failing { results.post(.log(.notice, "scores: saving again in \(echoed(s.path, limit: 200))")) }
                        failing = false
                        results.post(.recorded(id: id, roundStart: start, mode: record.mode, score: record.score, rank: rank))
                        if rows > 0 { board(rows) }
                    } catch {
                        if !failing {
                            let why = error.isFull ? "the disk is full" : "\(error)"
                            results.post(.log(.error, "scores: cannot save a round (\(why)); the game goes on without saving"))
                        }
                        failing = true
                    }
                }
            }
        }
    }
}
