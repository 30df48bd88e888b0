import CSQLite
import Glibc
import KioskCore
import KioskPlatform
import KioskTestSupport
import Testing
@testable import KioskScores

private func copyFile(_ from: String, _ to: String) throws {
    writeFile(to, try FileSystem.readBytes(from, limit: 1 << 26))
}

private func size(_ path: String) -> Int {
    var st = stat()
    return stat(path, &st) == 0 ? Int(st.st_size) : -1
}

/// A score database of the kiosk's schema in WAL mode, as kiosks before the rollback journal
/// kept it, left open (nothing checkpointed) so its `-wal` holds `rounds` rounds.
private func walDatabase(_ path: String, rounds: Int, score: Int64) throws -> SQLiteDatabase {
    let db = try SQLiteDatabase(path: path)
    _ = try db.query("PRAGMA journal_mode = WAL")
    try db.execute("PRAGMA wal_autocheckpoint = 0")
    try ScoreStore.createSchema(db)
    for i in 0..<rounds {
        try db.query("INSERT INTO rounds (started_ms, duration_ms, mode, score, popped, outcome) VALUES (?, 1000, 'classic', ?, 3, 'finished')",
                     [.int(Int64(i)), .int(score)])
    }
    return db
}

@Suite struct StrayWALTests {
    /// A backup of scores.db restored beside a -wal of another database: SQLite would apply it
    /// (3,001 rounds became 1, or a foreign 999,999 topped the table).
    @Test func aWALFromAnotherDatabaseIsMovedAsideUnapplied() throws {
        let dir = temporaryDirectory(), other = temporaryDirectory()
        let path = ScoreStore.path(in: dir)
        do {
            let store = try ScoreStore(directory: dir)
            try store.db.execute("BEGIN")
            for i in 0..<3001 {
                try store.db.query("INSERT INTO rounds (started_ms, duration_ms, mode, score, popped, outcome) VALUES (?, 1000, 'classic', ?, 3, 'finished')",
                                   [.int(Int64(i)), .int(Int64(i % 500))])
            }
            try store.db.execute("COMMIT")
        }
        #expect(!listing(dir).contains("scores.db-wal"), "the store keeps no -wal")
        try copyFile(path, other + "/backup.db")
        let foreign = try walDatabase(other + "/foreign.db", rounds: 1, score: 999_999)
        try copyFile(other + "/foreign.db-wal", path + "-wal")
        try copyFile(other + "/backup.db", path)

        // What SQLite alone does with these files (on a copy): the stray -wal is applied.
        let control = temporaryDirectory()
        try copyFile(path, control + "/scores.db")
        try copyFile(path + "-wal", control + "/scores.db-wal")
        let raw = try SQLiteDatabase(path: control + "/scores.db")
        let seen = (try? raw.query("SELECT count(*), max(score) FROM rounds").first) ?? []
        #expect(seen != [.int(3001), .int(499)], "the scenario no longer reproduces: \(seen)")
        raw.close()

        // The commands refuse to read it and say what the kiosk will do.
        do {
            _ = try ScoreStore(existingIn: dir)
            Issue.record("read a store beside a stray -wal")
        } catch {
            #expect(error.description.contains("scores.db-wal: left from another database"), "\(error)")
            #expect(error.description.contains("the kiosk will move it aside unapplied"), "\(error)")
        }
        #expect(listing(dir).contains("scores.db-wal"), "the commands move nothing")

        let store = try ScoreStore(directory: dir, now: WallTime(unixMilliseconds: 1_796_110_200_000))
        #expect(store.notes.count == 1, "\(store.notes)")
        #expect(store.notes.first?.contains("left from another database") == true)
        #expect(listing(dir).contains("scores.db-wal.stray-20261201T073000Z"))
        #expect(!listing(dir).contains("scores.db-wal"))
        #expect(try store.roundIDs().count == 3001)
        #expect(try store.highScores(mode: .classic, limit: 1).first?.score == 499)
        #expect(try store.integrityCheck() == ["ok"])
        foreign.close()
    }

    /// A kiosk of before the rollback journal, stopped by a power cut: its own -wal is applied,
    /// then the file leaves WAL mode.
    @Test func anOlderKiosksOwnWALIsAppliedAndWALModeLeft() throws {
        let old = temporaryDirectory(), dir = temporaryDirectory()
        let db = try walDatabase(old + "/scores.db", rounds: 5, score: 42)
        try copyFile(old + "/scores.db", dir + "/scores.db")
        try copyFile(old + "/scores.db-wal", dir + "/scores.db-wal")
        db.close()
        let store = try ScoreStore(directory: dir)
        #expect(store.notes.isEmpty, "\(store.notes)")
        #expect(try store.roundIDs().count == 5)
        #expect(try store.db.query("PRAGMA journal_mode").first?.first?.text == "truncate")
        #expect(!listing(dir).contains("scores.db-wal"))
        // From now on a -wal beside it is a stray.
        #expect(ScoreStore.hasStrayWAL(store.path) == false)
        writeFile(store.path + "-wal", [1, 2, 3])
        #expect(ScoreStore.hasStrayWAL(store.path))
    }
}

@Suite struct ReadOnlyOpenTests {
    private func foreignDatabase(_ path: String) throws {
        let db = try SQLiteDatabase(path: path)
        try db.execute("CREATE TABLE contacts (name TEXT); INSERT INTO contacts VALUES ('x')")
        db.close()
    }

    /// Whether `run`'s open keeps the file (nothing moved aside) and whether the commands read it:
    /// the two must agree.
    private func judged(_ prepare: (String) throws -> Void) throws -> (command: String, run: String) {
        let a = temporaryDirectory(), b = temporaryDirectory()
        try prepare(ScoreStore.path(in: a))
        try prepare(ScoreStore.path(in: b))
        let before = try FileSystem.readBytes(ScoreStore.path(in: a), limit: 1 << 24)
        let files = listing(a)
        let command: String
        do {
            command = try ScoreStore(existingIn: a) == nil ? "nothing yet" : "read"
        } catch {
            command = error.description.contains("the kiosk will move it aside") ? "refused" : "error: \(error)"
        }
        #expect(try FileSystem.readBytes(ScoreStore.path(in: a), limit: 1 << 24) == before, "the command wrote")
        #expect(listing(a) == files, "the command made files: \(listing(a))")
        let store = try ScoreStore(directory: b)
        let run = store.notes.contains { $0.contains("moved it to") || $0.contains("set it aside") } ? "moved aside" : "kept"
        return (command, run)
    }

    @Test func theCommandsAndTheKioskAgreeWhatIsUsable() throws {
        // A zero-length file: SQLite's empty database; the kiosk makes the tables in it.
        #expect(try judged { writeFile($0, []) } == ("nothing yet", "kept"))
        #expect(try judged { writeFile($0, [UInt8](repeating: 0x41, count: 4096)) } == ("refused", "moved aside"))
        #expect(try judged { try self.foreignDatabase($0) } == ("refused", "moved aside"))
        #expect(try judged { p in
            let db = try SQLiteDatabase(path: p)
            try ScoreStore.createSchema(db)
            try db.execute("PRAGMA user_version = 99")
        } == ("read", "kept"))
        #expect(try judged { p in _ = try ScoreStore(directory: String(p.dropLast(ScoreStore.fileName.count + 1))) }
                == ("read", "kept"))
    }

    @Test func aForeignDatabaseIsNamedAndUntouchedByTheCommands() throws {
        let dir = temporaryDirectory()
        try foreignDatabase(ScoreStore.path(in: dir))
        do {
            _ = try ScoreStore(existingIn: dir, writable: true)
            Issue.record("opened another program's database")
        } catch {
            #expect(error.description == "\(dir)/scores.db: not a score database (no rounds table: another program's database); "
                    + "the kiosk will move it aside (scores.db.corrupt-TIMESTAMP) and start a new one when it starts")
        }
        let db = try SQLiteDatabase(path: ScoreStore.path(in: dir), readOnly: true, create: false)
        #expect(try db.query("SELECT name FROM sqlite_master").map { $0.first?.text ?? "" } == ["contacts"])
    }

    /// A commit cut off by a crash leaves a hot journal: the commands cannot roll it back
    /// read-only and say so; the kiosk rolls it back.
    @Test func aCutOffCommitIsExplained() throws {
        let dir = temporaryDirectory(), copy = temporaryDirectory()
        let store = try ScoreStore(directory: dir)
        for i in 0..<300 { _ = try store.record(record(i), tableSize: 10) }
        // A transaction bigger than the cache spills: the file changes before the commit.
        try store.db.execute("PRAGMA cache_size = 2")
        try store.db.execute("BEGIN IMMEDIATE")
        try store.db.execute("UPDATE rounds SET score = score + 1000, popped = popped + 1")
        try copyFile(store.path, copy + "/scores.db")
        try copyFile(store.path + "-journal", copy + "/scores.db-journal")
        try store.db.execute("ROLLBACK")
        #expect(size(copy + "/scores.db-journal") > 0)
        do {
            _ = try ScoreStore(existingIn: copy)
            Issue.record("read a file with a hot journal")
        } catch {
            #expect(error.description.contains("the kiosk rolls it back when it starts"), "\(error)")
        }
        let kiosk = try ScoreStore(directory: copy)
        #expect(kiosk.notes.isEmpty)
        #expect(try kiosk.highScores(mode: .classic, limit: 1).first?.score == 299)
    }

    @Test func aStateDirectoryThatIsNoDirectoryIsAnError() throws {
        let file = temporaryDirectory() + "/plain"
        writeFile(file, [1])
        for path in [file, "/dev/zero"] {
            do {
                _ = try ScoreStore(existingIn: path)
                Issue.record("\(path) read as a state folder")
            } catch {
                #expect(error.description.hasPrefix("\(path): not a directory"), "\(error)")
            }
        }
        #expect(try ScoreStore(existingIn: temporaryDirectory() + "/missing") == nil)
    }
}

@Suite struct StoredValueTests {
    /// A stored duration near 2^63 trapped the `scores` table (SIGILL); negative ones printed as
    /// `-99999999999999.-9 s`.
    @Test func absurdStoredValuesAreShownAsUnknown() throws {
        let dir = temporaryDirectory()
        let store = try ScoreStore(directory: dir)
        for (score, duration) in [(SQLiteValue.int(300), SQLiteValue.int(.max)), (.int(200), .int(-999_999_999_999_999)),
                                  (.double(1e300), .int(.min)), (.double(-.infinity), .double(1e300)), (.int(100), .int(21_449))] {
            try store.db.query("INSERT INTO rounds (started_ms, duration_ms, mode, score, popped, outcome) VALUES (1764000000000, ?, 'classic', ?, 1, 'finished')",
                               [duration, score])
        }
        #expect(try store.integrityCheck() == ["ok"])
        let table = try store.highScores(mode: .classic, limit: 10)
        #expect(table.count == 5)
        #expect(table.map(\.durationText) == ["? s", "? s", "? s", "21.4 s", "? s"], "\(table.map(\.durationMS))")
        #expect(table.first?.score == Int.max && table.last?.score == Int.min, "a REAL too big for an integer saturates")
        let stats = PlayStatistics(try store.rounds(since: nil), since: nil)
        #expect(stats.finished == 5)
        #expect(stats.medianDurationS == 21.449, "only the plausible durations count")
        #expect(SQLiteValue.double(.nan).int == 0 && SQLiteValue.double(-1e300).int == .min)
    }
}

/// Tagged for timing: the stop is to return within a bound of real time.
@Suite(.tags(.timing)) struct WriterStopTests {
    /// With another process holding the write lock, each queued round waited the 5 s busy
    /// timeout at exit and the stop joined without a limit.
    @Test func theStopIsBoundedWhileTheDatabaseIsLocked() throws {
        let dir = temporaryDirectory()
        let writer = try ScoreWriter(directory: dir, start: localTime())
        // The thread answers with the (empty) board once it opened the store.
        let opened = ScoreWriterTests.collect(writer) { r in r.contains { if case .board = $0 { true } else { false } } }
        #expect(logLines(opened).isEmpty, "\(logLines(opened))")
        let other = try SQLiteDatabase(path: ScoreStore.path(in: dir))
        try other.execute("BEGIN IMMEDIATE")
        for i in 0..<3 { writer.post(.record(record(i), roundStart: .zero, tableSize: 10, rows: 3, at: localTime())) }
        let clock = ContinuousClock()
        let started = clock.now
        writer.stop(limit: .seconds(1))
        let elapsed = clock.now - started
        let logs = logLines(writer.results.take())
        #expect(logs.contains("scores: 3 rounds not saved: the database stayed locked by another process at exit"), "\(logs)")
        #expect(logs.count == 1, "\(logs)")
        // Limit 1 s plus 0.5 s for a statement in progress; before, 15 s.
        #expect(elapsed < .seconds(6), "\(elapsed)")
        try other.execute("ROLLBACK")
        other.close()
    }
}
