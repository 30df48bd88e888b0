internal import CSQLite
import Glibc
import KioskCore
import KioskPlatform

/// Why the store cannot be used, in one line for the log.
public struct ScoreStoreError: Error, CustomStringConvertible, Sendable {
    public var description: String
    /// The disk is full (writes may work again once space is freed).
    public var isFull = false
    /// Another connection held the lock longer than the store waits.
    public var isBusy = false

    init(_ description: String, isFull: Bool = false) {
        self.description = description
        self.isFull = isFull
    }

    init(_ error: SQLiteError) {
        description = "\(error)"
        isFull = error.isFull
        isBusy = error.primary == SQLITE_BUSY || error.primary == SQLITE_LOCKED
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

    /// Whether `durationMS` is one the kiosk could have measured (0 to 1,000,000 s); the commands
    /// show others, from a damaged or edited file, as unknown rather than compute with them.
    public var durationIsPlausible: Bool { ScoreStore.plausibleDurationMS.contains(durationMS) }

    /// The duration as the `scores` table shows it: `21.4 s`, or `? s` when not plausible.
    public var durationText: String {
        guard durationIsPlausible else { return "? s" }
        let tenths = (durationMS + 50) / 100
        return "\(tenths / 10).\(tenths % 10) s"
    }
}

/// The score database, `scores.db` in the state directory: one row per round played and the
/// high-score table per mode (a view over the finished rounds). Synchronous: the kiosk uses it
/// from the writer thread (`ScoreWriter`), the commands from their own.
///
/// Rollback journal (`journal_mode = TRUNCATE`) with `synchronous = FULL`: a commit that
/// returned is on the disk, a power cut at any moment leaves a database that opens, and a `-wal`
/// beside the file can only be a stray from another database (see doc/scores.md).
public final class ScoreStore {
    public static let fileName = "scores.db"
    /// 2 added `touch_cells` (the touch heatmap).
    public static let schemaVersion: Int64 = 2

    public let path: String
    let db: SQLiteDatabase
    /// `PRAGMA user_version` as opened: older schemas are read as they are by the commands.
    private(set) var version: Int64 = 0
    /// What opening did besides opening, for the log (a damaged file moved aside).
    public private(set) var notes: [String] = []
    /// What opening found that is no fault, for the log (a newer kiosk's database used as it is).
    public private(set) var notices: [String] = []

    /// The database file in `directory`.
    public static func path(in directory: String) -> String {
        joinPath(directory, fileName)
    }

    /// Opens (creating the folder and the file when missing) the store in `directory` for the
    /// kiosk. A file that is not a database or fails `PRAGMA quick_check` is moved aside as
    /// `scores.db.corrupt-TIMESTAMP` (with its `-wal`, `-shm`, `-journal`) and a fresh one made; `notes`
    /// says so. Throws when the folder or file cannot be written.
    /// A database of a newer kiosk (after a downgrade) is used as it is, its schema untouched,
    /// when this version can read and write it; otherwise it is set aside whole as
    /// `scores.db.newer-TIMESTAMP` for that version, and a fresh one made. `notices` or `notes` says which.
    /// A `-wal` beside the file is not this database's (it keeps none): it is renamed
    /// `scores.db-wal.stray-TIMESTAMP` before opening, so SQLite does not apply it, and `notes`
    /// says so. `busy` decides how long writes wait for another process's lock.
    public init(directory: String, now: WallTime = SystemWallClock.now(), busy: BusyPolicy = BusyPolicy()) throws(ScoreStoreError) {
        path = Self.path(in: directory)
        try Self.makeDirectory(directory)
        var st = stat()
        if lstat(path, &st) == 0 && (st.st_mode & S_IFMT) != S_IFREG {
            throw ScoreStoreError("\(echoed(path, limit: 200)): not a regular file")
        }
        if Self.hasStrayWAL(path) {
            let aside = try Self.moveStrayWALAside(path, now: now)
            notes.append("\(echoed(path, limit: 200))-wal: left from another database (\(Self.fileName) keeps no -wal); moved it to \(echoed(aside, limit: 200)) unapplied")
        }
        var opened: Int64
        do {
            (db, opened) = try Self.openChecked(path, busy: busy)
        } catch let error where error.context == Self.newerContext {
            let aside = try Self.moveAside(path, now: now, as: "newer")
            notes.append("\(echoed(path, limit: 200)): \(error.message); set it aside unchanged as \(echoed(aside, limit: 200)) "
                         + "(that version reads it again once it is renamed back) and started a fresh one")
            do { (db, opened) = try Self.openChecked(path, busy: busy) } catch { throw ScoreStoreError(error) }
        } catch let error where error.isCorrupt {
            let aside = try Self.moveAside(path, now: now)
            notes.append("\(echoed(path, limit: 200)): not a usable database (\(error.message)); moved it to \(echoed(aside, limit: 200)) and started a fresh one")
            do { (db, opened) = try Self.openChecked(path, busy: busy) } catch { throw ScoreStoreError(error) }
        } catch {
            throw ScoreStoreError(error)
        }
        if opened > Self.schemaVersion {
            notices.append("\(echoed(path, limit: 200)): schema version \(opened), from a newer bubble-kiosk (this one knows \(Self.schemaVersion)): "
                         + "read and written as it is, its schema untouched")
        }
        version = max(opened, Self.schemaVersion)
        do {
            try db.query("DELETE FROM rounds WHERE outcome = 'demo' AND started_ms < ?",
                         [.int((now - .seconds(Self.demoRetentionDays * 86_400)).unixMilliseconds)])
        } catch {
            throw ScoreStoreError(error)
        }
    }

    /// Opens an existing store for the operator commands (`scores`, `stats`, `touch-heatmap`):
    /// read-only, or with `writable` read-write (`scores --reset`), but never creating, upgrading
    /// or repairing anything. Nil when there is no file yet or it holds no tables yet. Throws,
    /// saying what is wrong and what the kiosk will do about it, when the state folder is not a
    /// folder, or `scores.db` is no file, no score database (`verdict`, as the kiosk judges it)
    /// or has a stray `-wal` beside it.
    public init?(existingIn directory: String, writable: Bool = false) throws(ScoreStoreError) {
        path = Self.path(in: directory)
        let shown = echoed(path, limit: 200)
        var st = stat()
        if stat(directory, &st) != 0 {
            if errno == ENOENT { return nil }
            throw ScoreStoreError("\(SystemError("stat", directory))")
        }
        guard (st.st_mode & S_IFMT) == S_IFDIR else {
            throw ScoreStoreError("\(echoed(directory, limit: 200)): not a directory (the state folder holding \(Self.fileName))")
        }
        if lstat(path, &st) != 0 {
            if errno == ENOENT { return nil }
            throw ScoreStoreError("\(SystemError("lstat", path))")
        }
        guard (st.st_mode & S_IFMT) == S_IFREG else {
            throw ScoreStoreError("\(shown): not a regular file; the kiosk cannot save scores until it is removed")
        }
        if Self.hasStrayWAL(path) {
            throw ScoreStoreError("\(shown)-wal: left from another database (\(Self.fileName) keeps no -wal); "
                                  + "the kiosk will move it aside unapplied (\(Self.fileName)-wal.stray-TIMESTAMP) when it starts")
        }
        let verdict: Verdict
        do {
            db = try SQLiteDatabase(path: path, readOnly: !writable, create: false)
            // The kiosk may hold the write lock for a moment.
            try db.execute("PRAGMA busy_timeout = 5000")
            verdict = try Self.verdict(db)
        } catch {
            // SQLITE_READONLY_ROLLBACK: a hot journal, which a read-only connection cannot undo.
            if error.code == SQLITE_READONLY | (3 << 8) {
                throw ScoreStoreError("\(shown): a commit was cut off (by a crash or power cut) and \(Self.fileName)-journal "
                                      + "still holds what undoes it; the kiosk rolls it back when it starts (SQLite \(error.code))")
            }
            throw ScoreStoreError(error)
        }
        switch verdict {
        case .blank:
            return nil
        case .unusable(let why):
            throw ScoreStoreError("\(shown): not a score database (\(why)); the kiosk will move it aside "
                                  + "(\(Self.fileName).corrupt-TIMESTAMP) and start a new one when it starts")
        case .usable(let v):
            version = v
        }
    }

    /// What a `scores.db` holds, as the kiosk judges it when it opens the file.
    public enum Verdict: Equatable, Sendable {
        /// Nothing yet (a zero-length file, or a database without tables): the kiosk makes the tables.
        case blank
        /// A score database of this schema version or an older one the kiosk upgrades.
        case usable(version: Int64)
        /// Damaged, not a database, or another program's: the kiosk moves it aside.
        case unusable(String)
    }

    /// The one judgement of a file `run` and the commands share: `PRAGMA quick_check`, then the
    /// schema version and the `rounds` table. Reads only. Throws for what says nothing about
    /// the file (a lock held too long, an I/O error).
    static func verdict(_ db: SQLiteDatabase) throws(SQLiteError) -> Verdict {
        do {
            let check = try db.query("PRAGMA quick_check").map { $0.first?.text ?? "" }
            guard check == ["ok"] else { return .unusable(String(check.prefix(3).joined(separator: "; ").prefix(200))) }
            let version = try db.query("PRAGMA user_version").first?.first?.int ?? 0
            let objects = try db.query("SELECT count(*) FROM sqlite_master").first?.first?.int ?? 0
            if objects == 0 && version == 0 { return .blank }
            let columns = Set(try db.query("SELECT name FROM pragma_table_info('rounds')").map { $0.first?.text ?? "" })
            if columns.isEmpty { return .unusable("no rounds table: another program's database") }
            let missing = ["id", "started_ms", "duration_ms", "mode", "score", "popped", "outcome", "ranked"]
                .filter { !columns.contains($0) }
            if !missing.isEmpty { return .unusable("table rounds has no \(missing.joined(separator: ", "))") }
            return .usable(version: version)
        } catch let error where error.isCorrupt {
            return .unusable(error.message)
        }
    }

    /// Whether a `-wal` lies beside `path` while the database keeps none: the file's header
    /// (bytes 18 and 19, 2 in WAL mode) says rollback journal, or there is no database. Since
    /// the kiosk left WAL mode, such a file is another database's (a backup restored beside an
    /// old `-wal`); SQLite cannot tell and would apply it.
    static func hasStrayWAL(_ path: String) -> Bool {
        var st = stat()
        guard lstat(path + "-wal", &st) == 0 else { return false }
        var header = [UInt8](repeating: 0, count: 20)
        // No readable database beside it: nothing it could belong to.
        let file: FileDescriptor
        do { file = try FileSystem.openRegularFile(path) } catch { return true }
        let fd = file.rawValue
        let n = header.withUnsafeMutableBytes { buf in uninterrupted { read(fd, buf.baseAddress, 20) } }
        // A legacy WAL database (the kiosk used WAL until it left it): its -wal is its own.
        return !(n == 20 && header[18] == 2 && header[19] == 2)
    }

    /// Renames a stray `-wal` to `PATH-wal.stray-TIMESTAMP` (and removes the `-shm` that indexes it).
    static func moveStrayWALAside(_ path: String, now: WallTime) throws(ScoreStoreError) -> String {
        let target = uniqueName(path + "-wal.stray-" + ClockText.compactUTC(now))
        guard rename(path + "-wal", target) == 0 else { throw ScoreStoreError("\(SystemError("rename", path + "-wal"))") }
        unlink(path + "-shm")
        return target
    }

    /// `name`, or `name-2`, `name-3`... when taken.
    static func uniqueName(_ name: String) -> String {
        var target = name
        var n = 2
        while FileSystem.exists(target) {
            target = "\(name)-\(n)"
            n += 1
        }
        return target
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

    /// Round durations the kiosk can have stored; see `HighScoreEntry.durationIsPlausible`.
    public static let plausibleDurationMS: ClosedRange<Int64> = 0...1_000_000_000

    /// Demo rounds are kept this long (the attract mode plays thousands a day); people's rounds
    /// are kept for ever.
    public static let demoRetentionDays: Int64 = 90

    /// The context of the error `openChecked` throws for a newer schema it cannot write.
    static let newerContext = "newer schema"

    /// The database at `path`, checked and set up for the kiosk, and its schema version as found.
    private static func openChecked(_ path: String, busy: BusyPolicy) throws(SQLiteError) -> (SQLiteDatabase, Int64) {
        let db = try SQLiteDatabase(path: path)
        // A command (`scores --reset`) or another process may hold the lock for a moment.
        db.setBusyPolicy(busy)
        let found: Int64
        switch try verdict(db) {
        case .unusable(let why): throw SQLiteError(context: "check", path: path, code: SQLITE_NOTADB, message: why, errno: 0)
        case .usable(let v): found = v
        case .blank: found = 0
        }
        if found > schemaVersion { try probeWrites(db, version: found) }
        // Leaves WAL mode (a database of an older kiosk: its -wal is applied and removed here).
        // A rollback journal keeps nothing beside the file between commits, so a -wal found
        // there later is a stray. TRUNCATE with FULL syncs the emptied journal at each commit.
        let mode = try db.query("PRAGMA journal_mode = TRUNCATE").first?.first?.text ?? ""
        guard mode == "truncate" || mode == "wal" else {
            throw SQLiteError(context: "journal_mode", path: path, code: SQLITE_CANTOPEN,
                              message: "cannot use a rollback journal (journal mode \(mode))", errno: 0)
        }
        try db.execute("PRAGMA synchronous = FULL")
        try createSchema(db)
        return (db, found)
    }

    /// Whether this version can use a newer kiosk's database (the same tables, more added, as a
    /// newer schema should be): a round, a touch cell and the high-score view, written and read
    /// in a savepoint that is rolled back. Throws `newerContext` saying what failed.
    static func probeWrites(_ db: SQLiteDatabase, version: Int64) throws(SQLiteError) {
        try db.execute("SAVEPOINT newer_schema_probe")
        defer { try? db.execute("ROLLBACK TO newer_schema_probe; RELEASE newer_schema_probe") }
        do {
            try db.query("INSERT INTO rounds (started_ms, duration_ms, mode, score, popped, outcome, ranked) VALUES (0, 0, 'classic', 0, 0, 'demo', 0)")
            try db.query("""
                INSERT INTO touch_cells (day, col, row, touches) VALUES ('0000-00-00', 0, 0, 1)
                ON CONFLICT (day, col, row) DO UPDATE SET touches = touches + excluded.touches
                """)
            try db.query("SELECT mode, rank, score, round_id, started_ms, duration_ms, popped FROM high_scores LIMIT 1")
        } catch {
            throw SQLiteError(context: newerContext, path: db.path, code: SQLITE_NOTADB,
                              message: "schema version \(version), from a newer bubble-kiosk, which this one "
                                  + "(schema \(schemaVersion)) cannot write (\(error.message))", errno: 0)
        }
    }

    static func createSchema(_ db: SQLiteDatabase) throws(SQLiteError) {
        // Made already: nothing to write (the commands open the kiosk's file without writing).
        // A newer kiosk's schema is left as it is (its user_version stays: it is that version's).
        if try (db.query("PRAGMA user_version").first?.first?.int ?? 0) >= schemaVersion { return }
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

    /// Renames the damaged file and its journal files to `PATH.corrupt-YYYYMMDDTHHMMSSZ[-N]`
    /// (`PATH.newer-...` for a newer kiosk's database).
    static func moveAside(_ path: String, now: WallTime, as kind: String = "corrupt") throws(ScoreStoreError) -> String {
        let target = uniqueName("\(path).\(kind)-\(ClockText.compactUTC(now))")
        guard rename(path, target) == 0 else { throw ScoreStoreError("\(SystemError("rename", path))") }
        for suffix in ["-wal", "-shm", "-journal"] where FileSystem.exists(path + suffix) {
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
                             [.int(r.started.unixMilliseconds), .int(Int64(r.duration.inMilliseconds.rounded())), .text(r.mode.rawValue), .int(Int64(r.score)),
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

    /// Today's (from `today`'s local midnight) and all-time best scores of each mode, and the
    /// rounds people started today before `runStart` (the kiosk's start).
    public func board(rows: Int, today: LocalDay, runStart: WallTime) throws(ScoreStoreError) -> ScoreBoard {
        var board = ScoreBoard()
        let todayStart = SQLiteValue.int(today.start.unixMilliseconds)
        do {
            let before = try db.query("SELECT count(*) FROM rounds WHERE outcome <> 'demo' AND started_ms >= ? AND started_ms < ?",
                                      [todayStart, .int(runStart.unixMilliseconds)])
            board.roundsBeforeStart = ScoreBoard.DayCount(day: today.number, rounds: Int(before.first?.first?.int ?? 0))
            for mode in Round.Mode.allCases {
                let all = try db.query("SELECT score FROM rounds WHERE ranked = 1 AND mode = ? ORDER BY score DESC, id LIMIT ?",
                                       [.text(mode.rawValue), .int(Int64(rows))]).map { Int($0[0].int) }
                let today = try db.query("SELECT score FROM rounds WHERE ranked = 1 AND mode = ? AND started_ms >= ? ORDER BY score DESC, id LIMIT ?",
                                         [.text(mode.rawValue), todayStart, .int(Int64(rows))]).map { Int($0[0].int) }
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
