import Glibc
import KioskCore
import KioskPlatform
import Synchronization

/// A count two threads change.
private final class Counter: Sendable {
    private let count = Mutex(0)
    func add(_ n: Int) { count.withLock { $0 += n } }
    var value: Int { count.withLock { $0 } }
}

/// What the loop asks of the score writer thread. Each request says what "now" and "today" are
/// on the loop's wall clock, so the thread reads no clock of its own.
public enum ScoreRequest: Sendable {
    /// Store a round; `roundStart` (the kiosk's clock) says which round the answer is about.
    case record(RoundRecord, roundStart: TimeStamp, tableSize: Int, rows: Int, at: LocalTime)
    /// Read the high-score lists again (the start screen came back: maybe a new day).
    case refresh(rows: Int, at: LocalTime)
    /// Add a batch of touch-downs to the touch heatmap of `day`.
    case touches(TouchHeatmap, day: LocalDay)
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
    /// Shared with the thread's connection: cut lock waits short once stopping.
    private let busy: BusyPolicy
    /// Rounds posted and not yet saved, reported failed or dropped.
    private let unsettled = Counter()
    /// Posted by the thread as it returns, so `stop` can wait for it with a limit.
    private let finished: Mailbox<Bool>

    /// How long `stop` waits for the queue at most: under the service manager's stop timeout,
    /// even when another process holds the database's lock or the disk hangs.
    public static let stopLimit = Duration.seconds(2)

    /// - Parameter start: the local time now; the first lists the thread reads are of its day.
    public init(directory: String, start: LocalTime) throws {
        self.directory = directory
        requests = try Mailbox(name: "score requests")
        results = try Mailbox(name: "score results")
        finished = try Mailbox(name: "score writer end")
        busy = BusyPolicy()
        let requests = requests, results = results, finished = finished, busy = busy, unsettled = unsettled
        thread = try WorkerThread(name: "score-writer") {
            ScoreWriter.serve(directory: directory, requests: requests, results: results, start: start,
                              busy: busy, settled: { unsettled.add(-1) })
            finished.post(true)
        }
    }

    deinit { stop() }

    /// Queues a request; never blocks.
    public func post(_ request: ScoreRequest) {
        if case .record = request { unsettled.add(1) }
        requests.post(request)
    }

    /// Lets the thread finish what is queued, waiting `limit` at most in all: once stopping,
    /// each write waits for another process's lock briefly, and what is left when the time is up
    /// is dropped with one log line (in `results`) saying how many rounds were not saved.
    /// Idempotent.
    public func stop(limit: Duration = ScoreWriter.stopLimit) {
        guard let t = thread else { return }
        thread = nil
        let deadline = EventLoop.now() + limit
        busy.stop(by: deadline)
        requests.post(.stop)
        // The thread drops what is left at the deadline; past it, allow a little for a
        // statement in progress (an fsync) before giving up on the thread.
        let giveUp = deadline.adding(microseconds: 500_000)
        while true {
            let remaining = min(max(giveUp - EventLoop.now(), .zero), .seconds(60))
            if !finished.wait(timeout: remaining).isEmpty {
                t.join()
                return
            }
            if EventLoop.now() >= giveUp { break }
        }
        // Stuck in SQLite or the kernel: the process is ending, the thread is left behind.
        let left = unsettled.value
        results.post(.log(.error, "scores: the score writer did not finish within \(Int(limit.inSeconds)) s at exit; "
                          + "\(left) round\(left == 1 ? "" : "s") not saved"))
    }

    private static func serve(directory: String, requests: Mailbox<ScoreRequest>, results: Mailbox<ScoreResult>,
                              start: LocalTime, busy: BusyPolicy, settled: () -> Void) {
        var store: ScoreStore?
        /// The failure already reported, so it is said once until saving works again.
        var failing = false
        /// Rounds dropped while stopping, reported in one line at the end.
        var dropped = 0
        /// The last open failed on another process's lock (not a folder that cannot be written).
        var openWasBusy = false
        /// The latest local time a request brought.
        var now = start
        func open() {
            openWasBusy = false
            do {
                let s = try ScoreStore(directory: directory, now: now.wall, busy: busy)
                for note in s.notes { results.post(.log(.error, "scores: " + note)) }
                for notice in s.notices { results.post(.log(.notice, "scores: " + notice)) }
                if failing { results.post(.log(.notice, "scores: saving again in \(echoed(s.path, limit: 200))")) }
                failing = false
                store = s
            } catch {
                openWasBusy = error.isBusy
                if !failing {
                    results.post(.log(.error, "scores: cannot save scores (\(error)); the game goes on without saving"))
                }
                failing = true
            }
        }
        func board(_ rows: Int) {
            guard let s = store else { return }
            if let b = try? s.board(rows: max(rows, 1), today: now.day, runStart: start.wall) {
                results.post(.board(b))
            }
        }
        open()
        board(10)
        while true {
            for request in requests.wait() {
                // Out of time while stopping: what is left is dropped, not tried.
                if busy.isStopping && busy.isPastDeadline {
                    if case .record = request {
                        dropped += 1
                        settled()
                    }
                    if case .stop = request {} else { continue }
                }
                switch request {
                case .stop:
                    if dropped > 0 {
                        results.post(.log(.error, "scores: \(dropped) round\(dropped == 1 ? "" : "s") not saved: "
                                          + "the database stayed locked by another process at exit"))
                    }
                    return
                case .refresh(let rows, let at):
                    now = at
                    if store == nil { open() }
                    board(rows)
                case .touches(let batch, let day):
                    if store == nil { open() }
                    guard let s = store else { continue }
                    do {
                        try s.addTouches(batch, day: day)
                    } catch {
                        if !failing {
                            let why = error.isFull ? "the disk is full" : "\(error)"
                            results.post(.log(.error, "scores: cannot save the touch heatmap (\(why)); the game goes on without saving"))
                        }
                        failing = true
                    }
                case .record(let record, let start, let tableSize, let rows, let at):
                    defer { settled() }
                    now = at
                    if store == nil { open() }
                    guard let s = store else {
                        if busy.isStopping && openWasBusy { dropped += 1 }
                        continue
                    }
                    do {
                        let (id, rank) = try s.record(record, tableSize: tableSize)
                        if failing { results.post(.log(.notice, "scores: saving again in \(echoed(s.path, limit: 200))")) }
                        failing = false
                        results.post(.recorded(id: id, roundStart: start, mode: record.mode, score: record.score, rank: rank))
                        if rows > 0 { board(rows) }
                    } catch {
                        // At exit the rounds the lock kept out are counted in one line, not one each.
                        if busy.isStopping && error.isBusy {
                            dropped += 1
                            continue
                        }
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
