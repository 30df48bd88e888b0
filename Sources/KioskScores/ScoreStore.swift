import CSQLite
import Glibc
import KioskCore
import KioskPlatform

/// Why the store cannot be used, in one line for the log.
public struct ScoreStoreError: Error, CustomStringConvertible, Sendable {
    public var description: String
    /// The disk is full (writes may work again once space is freed).
    public var isFull = false

    init(_ description: String, isFull: Bool = false) {
        self.description = description
        self.isFull = isFull
    }

    init(_ error: SQLiteError) {
        description = "\(error)"
        isFull = error.isFull
    }
}

/// One place in the high-score table.
public struct HighScoreEntry: Equatable, Sendable {
    public var rank: Int
    public var roundID: Int64
    public var mode: Round.Mode
    public var score: Int
    public var startedMS: Int64
    /// Local time of the start, `YYYY-MM-DDTHH:MM:SS`.
    public var startedLocal: String
    public var durationMS: Int64
    public var popped: Int
}

/// The score database, `scores.db` in the state directory: one row per round played and the
/// high-score table per mode (a view over the finished rounds). Synchronous: the kiosk uses it
/// from the writer thread (`ScoreWriter`), the commands from their own.
///
/// WAL journal with `synchronous = FULL`: a commit that returned is on the disk, and a power
/// cut at any moment leaves a database that opens (see the README).
public final class ScoreStore {
    public static let fileName = "scores.db"
    /// 2 added `touch_cells` (the touch heatmap).
    public static let schemaVersion: Int64 = 2

    public let path: String
    let db: SQLiteDatabase
    /// What opening did besides opening, for the log (a damaged file moved aside).
    public private(set) var notes: [String] = []

    /// The database file in `directory`.
    public static func path(in directory: String) -> String {
        directory.hasSuffix("/") ? directory + fileName : directory + "/" + fileName
    }

    /// Opens (creating the folder and the file when missing) the store in `directory` for the
    /// kiosk. A file that is not a database or fails `PRAGMA quick_check` is moved aside as
    /// `scores.db.corrupt-TIMESTAMP` (with its `-wal` and `-shm`) and a fresh one made; `notes`
    /// says so. Throws when the folder or file cannot be written.
    public init(directory: String, now: Int64 = wallClockMS()) throws(ScoreStoreError) {
        path = Self.path(in: directory)
        try Self.makeDirectory(directory)
        var st = stat()
        if lstat(path, &st) == 0 && (st.st_mode & S_IFMT) != S_IFREG {
            throw ScoreStoreError("\(echoed(path, limit: 200)): not a regular file")
        }
        do {
            db = try Self.openChecked(path)
        } catch let error where error.isCorrupt {
            let aside = try Self.moveAside(path, now: now)
            notes.append("\(echoed(path, limit: 200)): not a usable database (\(error.message)); moved it to \(echoed(aside, limit: 200)) and started a fresh one")
            do { db = try Self.openChecked(path) } catch { throw ScoreStoreError(error) }
        } catch {
            throw ScoreStoreError(error)
        }
        do {
            try db.query("DELETE FROM rounds WHERE outcome = 'demo' AND started_ms < ?",
                         [.int(now - Self.demoRetentionDays * 86_400_000)])
        } catch {
            throw ScoreStoreError(error)
        }
    }

    /// Opens an existing store without creating or repairing anything (the `scores` and
    /// `stats` commands); nil when there is no file yet.
    public init?(existingIn directory: String) throws(ScoreStoreError) {
        path = Self.path(in: directory)
        guard FileSystem.exists(path) else { return nil }
        do {
            db = try SQLiteDatabase(path: path, create: false)
            try db.execute("PRAGMA busy_timeout = 5000")
            try Self.createSchema(db)
        } catch {
            throw ScoreStoreError(error)
        }
    }

    /// `mkdir -p`: the folder and any missing parents, mode 0755.
    static func makeDirectory(_ directory: String) throws(ScoreStoreError) {
        guard !FileSystem.isDirectory(directory) else { return }
        var prefix = directory.hasPrefix("/") ? "" : "."
        for part in directory.split(separator: "/") {
            prefix += "/" + part
            if mkdir(prefix, 0o755) != 0 && errno != EEXIST {
                throw ScoreStoreError("\(SystemError("mkdir", prefix))")
            }
        }
        guard FileSystem.isDirectory(directory) else { throw ScoreStoreError("\(SystemError("mkdir", directory, errno: ENOTDIR))") }
    }

    /// Demo rounds are kept this long (the attract mode plays thousands a day); people's rounds
    /// are kept for ever.
    public static let demoRetentionDays: Int64 = 90

    private static func openChecked(_ path: String) throws(SQLiteError) -> SQLiteDatabase {
        let db = try SQLiteDatabase(path: path)
        // A command (`scores --reset`) may hold the write lock for a moment.
        try db.execute("PRAGMA busy_timeout = 5000")
        let check = try db.query("PRAGMA quick_check").map { $0.first?.text ?? "" }
        guard check == ["ok"] else {
            throw SQLiteError(context: "quick_check", path: path, code: SQLITE_CORRUPT,
                              message: String(check.prefix(3).joined(separator: "; ").prefix(200)), errno: 0)
        }
        let mode = try db.query("PRAGMA journal_mode = WAL").first?.first?.text ?? ""
        guard mode == "wal" else {
            throw SQLiteError(context: "journal_mode", path: path, code: SQLITE_CANTOPEN,
                              message: "cannot use WAL (journal mode \(mode))", errno: 0)
        }
        try db.execute("PRAGMA synchronous = FULL")
        try createSchema(db)
        return db
    }

    static func createSchema(_ db: SQLiteDatabase) throws(SQLiteError) {
        // Made already: nothing to write (the commands open the kiosk's file without writing).
        if try db.query("PRAGMA user_version").first?.first?.int == schemaVersion { return }
        try db.execute(context: "creating the tables", """
            CREATE TABLE IF NOT EXISTS rounds (
                id INTEGER PRIMARY KEY,
                started_ms INTEGER NOT NULL,
                duration_ms INTEGER NOT NULL,
                mode TEXT NOT NULL,
                score INTEGER NOT NULL,
                popped INTEGER NOT NULL,
                outcome TEXT NOT NULL CHECK (outcome IN ('finished', 'abandoned', 'demo')),
                ranked INTEGER NOT NULL DEFAULT 1
            );
            CREATE INDEX IF NOT EXISTS rounds_by_score ON rounds (mode, score DESC) WHERE ranked = 1;
            CREATE INDEX IF NOT EXISTS rounds_by_start ON rounds (started_ms);
            CREATE TABLE IF NOT EXISTS touch_cells (
                day TEXT NOT NULL,
                col INTEGER NOT NULL,
                row INTEGER NOT NULL,
                touches INTEGER NOT NULL,
                PRIMARY KEY (day, col, row)
            ) WITHOUT ROWID;
            CREATE VIEW IF NOT EXISTS high_scores AS
                SELECT mode, ROW_NUMBER() OVER (PARTITION BY mode ORDER BY score DESC, id) AS rank,
                       score, id AS round_id, started_ms, duration_ms, popped
                FROM rounds WHERE ranked = 1;
            PRAGMA user_version = \(schemaVersion);
            """)
    }

    /// Renames the damaged file and its journal files to `PATH.corrupt-YYYYMMDDTHHMMSSZ[-N]`.
    static func moveAside(_ path: String, now: Int64) throws(ScoreStoreError) -> String {
        var t = time_t(now / 1000)
        var tm = tm()
        gmtime_r(&t, &tm)
        func two(_ v: Int32) -> String { v < 10 ? "0\(v)" : "\(v)" }
        let stamp = "\(tm.tm_year + 1900)\(two(tm.tm_mon + 1))\(two(tm.tm_mday))T\(two(tm.tm_hour))\(two(tm.tm_min))\(two(tm.tm_sec))Z"
        var target = "\(path).corrupt-\(stamp)"
        var n = 2
        while FileSystem.exists(target) {
            target = "\(path).corrupt-\(stamp)-\(n)"
            n += 1
        }
        guard rename(path, target) == 0 else { throw ScoreStoreError("\(SystemError("rename", path))") }
        for suffix in ["-wal", "-shm"] where FileSystem.exists(path + suffix) {
            if rename(path + suffix, target + suffix) != 0 { unlink(path + suffix) }
        }
        return target
    }

    /// Stores one round in its own transaction; returns its id and, when it entered the
    /// high-score table of `tableSize` places, its rank. Returns once the commit is durable.
    public func record(_ r: RoundRecord, tableSize: Int) throws(ScoreStoreError) -> (id: Int64, rank: Int?) {
        do throws(SQLiteError) {
            return try db.transaction { () throws(SQLiteError) -> (id: Int64, rank: Int?) in
                try db.query("INSERT INTO rounds (started_ms, duration_ms, mode, score, popped, outcome, ranked) VALUES (?, ?, ?, ?, ?, ?, ?)",
                             [.int(r.startedMS), .int(r.durationMS), .text(r.mode.rawValue), .int(Int64(r.score)),
                              .int(Int64(r.popped)), .text(r.outcome.rawValue), .int(r.isRanked ? 1 : 0)])
                let id = db.lastInsertRowID
                var rank: Int?
                if r.isRanked {
                    let better = try db.query("SELECT count(*) FROM rounds WHERE ranked = 1 AND mode = ? AND score >= ? AND id <> ?",
                                              [.text(r.mode.rawValue), .int(Int64(r.score)), .int(id)])
                    let place = Int(better.first?.first?.int ?? 0) + 1
                    rank = place <= tableSize ? place : nil
                }
                return (id, rank)
            }
        } catch {
            throw ScoreStoreError(error)
        }
    }

    /// Today's (from local midnight, `todayStartMS`) and all-time best scores of each mode.
    public func board(rows: Int, todayStartMS: Int64) throws(ScoreStoreError) -> ScoreBoard {
        var board = ScoreBoard()
        do {
            for mode in Round.Mode.allCases {
                let all = try db.query("SELECT score FROM rounds WHERE ranked = 1 AND mode = ? ORDER BY score DESC, id LIMIT ?",
                                       [.text(mode.rawValue), .int(Int64(rows))]).map { Int($0[0].int) }
                let today = try db.query("SELECT score FROM rounds WHERE ranked = 1 AND mode = ? AND started_ms >= ? ORDER BY score DESC, id LIMIT ?",
                                         [.text(mode.rawValue), .int(todayStartMS), .int(Int64(rows))]).map { Int($0[0].int) }
                if !all.isEmpty || !today.isEmpty { board.lists[mode] = ScoreBoard.Lists(today: today, allTime: all) }
            }
        } catch {
            throw ScoreStoreError(error)
        }
        return board
    }

    /// The high-score table, best first, of one mode or all.
    public func highScores(mode: Round.Mode?, limit: Int) throws(ScoreStoreError) -> [HighScoreEntry] {
        var result: [HighScoreEntry] = []
        do {
            for m in mode.map({ [$0] }) ?? Round.Mode.allCases {
                let rows = try db.query("""
                    SELECT rank, round_id, score, started_ms,
                           strftime('%Y-%m-%dT%H:%M:%S', started_ms / 1000, 'unixepoch', 'localtime'), duration_ms, popped
                    FROM high_scores WHERE mode = ? ORDER BY rank, round_id LIMIT ?
                    """, [.text(m.rawValue), .int(Int64(limit))])
                result += rows.map { r in
                    HighScoreEntry(rank: Int(r[0].int), roundID: r[1].int, mode: m, score: Int(r[2].int),
                                   startedMS: r[3].int, startedLocal: r[4].text, durationMS: r[5].int, popped: Int(r[6].int))
                }
            }
        } catch {
            throw ScoreStoreError(error)
        }
        return result
    }

    /// Clears the high-score table (of one mode or all); the rounds stay for the statistics.
    /// Returns how many rounds left the table.
    @discardableResult
    public func reset(mode: Round.Mode?) throws(ScoreStoreError) -> Int {
        do {
            if let mode {
                try db.query("UPDATE rounds SET ranked = 0 WHERE ranked = 1 AND mode = ?", [.text(mode.rawValue)])
            } else {
                try db.query("UPDATE rounds SET ranked = 0 WHERE ranked = 1")
            }
            return Int(try db.query("SELECT changes()").first?.first?.int ?? 0)
        } catch {
            throw ScoreStoreError(error)
        }
    }

    /// Every round since a local date (`YYYY-MM-DD`), or all, for the statistics.
    public func rounds(since date: String?) throws(ScoreStoreError) -> [PlayedRound] {
        do {
            let rows = try db.query("""
                SELECT date(started_ms / 1000, 'unixepoch', 'localtime') AS day,
                       CAST(strftime('%H', started_ms / 1000, 'unixepoch', 'localtime') AS INTEGER),
                       mode, score, duration_ms, outcome
                FROM rounds WHERE ?1 IS NULL OR date(started_ms / 1000, 'unixepoch', 'localtime') >= ?1
                ORDER BY started_ms, id
                """, [date.map { .text($0) } ?? .null])
            return rows.map { r in
                PlayedRound(day: r[0].text, hour: Int(r[1].int), mode: r[2].text, score: Int(r[3].int),
                            durationMS: r[4].int, outcome: RoundOutcome(rawValue: r[5].text) ?? .finished)
            }
        } catch {
            throw ScoreStoreError(error)
        }
    }

    /// `PRAGMA integrity_check`'s answer: `["ok"]` for a sound database.
    public func integrityCheck() throws(ScoreStoreError) -> [String] {
        do { return try db.query("PRAGMA integrity_check").map { $0.first?.text ?? "" } } catch { throw ScoreStoreError(error) }
    }

    /// Every round id stored, ascending (tests).
    public func roundIDs() throws(ScoreStoreError) -> [Int64] {
        do { return try db.query("SELECT id FROM rounds ORDER BY id").map { $0[0].int } } catch { throw ScoreStoreError(error) }
    }
}

/// Milliseconds since the Unix epoch, wall clock.
public func wallClockMS() -> Int64 {
    var ts = timespec()
    clock_gettime(CLOCK_REALTIME, &ts)
    return Int64(ts.tv_sec) * 1000 + Int64(ts.tv_nsec) / 1_000_000
}

/// Local midnight of the day `ms` (wall clock) falls on, in milliseconds since the epoch.
public func localMidnightMS(of ms: Int64) -> Int64 {
    var t = time_t(ms / 1000)
    var tm = tm()
    localtime_r(&t, &tm)
    tm.tm_hour = 0
    tm.tm_min = 0
    tm.tm_sec = 0
    tm.tm_isdst = -1
    return Int64(mktime(&tm)) * 1000
}
