import CSQLite
import Glibc
import KioskCore
import KioskPlatform
import Testing
@testable import KioskScores
import KioskTestSupport

/// A fresh folder under /tmp for one test.
func temporaryDirectory() -> String { makeTemporaryDirectory("bubble-kiosk-scores") }

/// The log lines among a score writer's results.
func logLines(_ results: [ScoreResult]) -> [String] {
    results.compactMap { if case .log(_, let l) = $0 { l } else { nil } }
}

func listing(_ dir: String) -> [String] {
    (try? FileSystem.listDirectory(dir))?.sorted() ?? []
}

func record(_ score: Int, mode: Round.Mode = .classic, outcome: RoundOutcome = .finished,
            startedMS: Int64 = 1_764_000_000_000, durationMS: Int64 = 20_000, popped: Int = 10) -> RoundRecord {
    RoundRecord(started: WallTime(unixMilliseconds: startedMS), duration: .milliseconds(durationMS), mode: mode, score: score,
                popped: popped, outcome: outcome)
}

/// The machine's local time at `ms` (now when nil), as the score writer's requests carry it.
func localTime(_ ms: Int64? = nil) -> LocalTime {
    SystemWallClock().local(ms.map { WallTime(unixMilliseconds: $0) } ?? SystemWallClock.now())
}

@Suite struct ScoreStoreTests {
    @Test func keepsRoundsAndRanksHighScores() throws {
        let dir = temporaryDirectory()
        let store = try ScoreStore(directory: dir)
        #expect(store.notes.isEmpty)
        #expect(try store.record(record(100), tableSize: 3).rank == 1)
        #expect(try store.record(record(300), tableSize: 3).rank == 1)
        #expect(try store.record(record(100), tableSize: 3).rank == 3, "a tie goes to the earlier round")
        #expect(try store.record(record(50), tableSize: 3).rank == nil, "fourth: not in a table of three")
        #expect(try store.record(record(999, outcome: .abandoned), tableSize: 3).rank == nil)
        #expect(try store.record(record(999, outcome: .demo), tableSize: 3).rank == nil)
        #expect(try store.record(record(20, mode: .timed), tableSize: 3).rank == 1, "each mode has its own table")
        let table = try store.highScores(mode: .classic, limit: 10)
        #expect(table.map(\.score) == [300, 100, 100, 50])
        #expect(table.map(\.rank) == [1, 2, 3, 4])
        #expect(table.map(\.roundID) == [2, 1, 3, 4])
        #expect(try store.highScores(mode: nil, limit: 2).map(\.score) == [300, 100, 20])
        #expect(try store.roundIDs() == [1, 2, 3, 4, 5, 6, 7])
    }

    @Test func usesARollbackJournalAndFullSynchronous() throws {
        let dir = temporaryDirectory()
        let store = try ScoreStore(directory: dir)
        #expect(try store.db.query("PRAGMA journal_mode").first?.first?.text == "truncate")
        // 2 = FULL: every commit is on the disk when it returns.
        #expect(try store.db.query("PRAGMA synchronous").first?.first?.int == 2)
        #expect(try store.integrityCheck() == ["ok"])
    }

    @Test func boardListsTodayAndAllTime() throws {
        let dir = temporaryDirectory()
        let store = try ScoreStore(directory: dir)
        let today: Int64 = 1_764_000_000_000
        _ = try store.record(record(500, startedMS: today - 86_400_000), tableSize: 10)
        _ = try store.record(record(120, startedMS: today + 1000), tableSize: 10)
        _ = try store.record(record(80, startedMS: today + 2000), tableSize: 10)
        _ = try store.record(record(900, outcome: .demo, startedMS: today + 3000), tableSize: 10)
        let day = LocalDay(number: 7, start: WallTime(unixMilliseconds: today))
        let board = try store.board(rows: 2, today: day, runStart: WallTime(unixMilliseconds: today + 1500))
        #expect(board[.classic] == ScoreBoard.Lists(today: [120, 80], allTime: [500, 120]))
        #expect(board.lists[.timed] == nil)
        // Before the run's start today: the 120 only (yesterday's 500 is another day, the 80
        // came after the start, the demo is nobody's).
        #expect(board.roundsBeforeStart == ScoreBoard.DayCount(day: 7, rounds: 1))
        _ = try store.record(record(10, outcome: .abandoned, startedMS: today + 1200), tableSize: 10)
        #expect(try store.board(rows: 2, today: day, runStart: WallTime(unixMilliseconds: today + 1500)).roundsBeforeStart?.rounds == 2,
                "a round left mid-way was still started by someone")
    }

    @Test func resetClearsTheTableButKeepsTheStatistics() throws {
        let dir = temporaryDirectory()
        let store = try ScoreStore(directory: dir)
        _ = try store.record(record(100), tableSize: 10)
        _ = try store.record(record(40, mode: .timed), tableSize: 10)
        #expect(try store.reset(mode: .classic) == 1)
        #expect(try store.highScores(mode: nil, limit: 10).map(\.score) == [40])
        #expect(try store.record(record(10), tableSize: 10).rank == 1, "the old 100 no longer counts")
        #expect(try store.reset(mode: nil) == 2)
        #expect(try store.highScores(mode: nil, limit: 10).isEmpty)
        #expect(try store.rounds(since: nil).count == 3)
    }

    @Test func statisticsPerDayAndHour() throws {
        let rounds = [
            PlayedRound(day: "2026-11-29", hour: 9, mode: "classic", score: 100, durationMS: 20_000, outcome: .finished),
            PlayedRound(day: "2026-11-29", hour: 9, mode: "classic", score: 300, durationMS: 40_000, outcome: .finished),
            PlayedRound(day: "2026-11-30", hour: 14, mode: "classic", score: 10, durationMS: 45_000, outcome: .abandoned),
            PlayedRound(day: "2026-11-30", hour: 14, mode: "classic", score: 200, durationMS: 30_000, outcome: .finished),
            PlayedRound(day: "2026-11-30", hour: 3, mode: "classic", score: 90, durationMS: 30_000, outcome: .demo),
        ]
        let s = PlayStatistics(rounds, since: nil)
        #expect(s.rounds == 4 && s.finished == 3 && s.abandoned == 1 && s.demo == 1)
        #expect(s.finishedShare == 0.75 && s.abandonedShare == 0.25)
        #expect(s.medianScore == 200 && s.medianDurationS == 30)
        #expect(s.perDay.map(\.day) == ["2026-11-29", "2026-11-30"] && s.perDay.map(\.rounds) == [2, 2])
        #expect(s.perHour[9] == 2 && s.perHour[14] == 2 && s.perHour[3] == 0 && s.perHour.count == 24)
        let none = PlayStatistics([], since: "2026-12-01")
        #expect(none.rounds == 0 && none.medianScore == nil && none.finishedShare == nil)
        #expect(Timing.median([1, 2, 3, 10]) == 2.5)
    }

    @Test func roundsSinceALocalDate() throws {
        let dir = temporaryDirectory()
        let store = try ScoreStore(directory: dir)
        let noon = localTime().day.start.unixMilliseconds + 12 * 3_600_000
        _ = try store.record(record(1, startedMS: noon - 3 * 86_400_000), tableSize: 10)
        _ = try store.record(record(2, startedMS: noon), tableSize: 10)
        let all = try store.rounds(since: nil)
        #expect(all.count == 2 && all[1].hour == 12)
        let recent = try store.rounds(since: all[1].day)
        #expect(recent.map(\.score) == [2])
    }

    // MARK: damaged files, read-only and full folders

    @Test func aFileOfGarbageIsMovedAsideAndAFreshStoreMade() throws {
        let dir = temporaryDirectory()
        let path = ScoreStore.path(in: dir)
        var rng = SeededGenerator(seed: 9)
        writeFile(path, (0..<8192).map { _ in UInt8(truncatingIfNeeded: rng.next()) })
        // 2026-12-01 07:30:00 UTC.
        let store = try ScoreStore(directory: dir, now: WallTime(unixMilliseconds: 1_796_110_200_000))
        #expect(store.notes.count == 1)
        #expect(store.notes.first?.contains("not a usable database") == true)
        #expect(store.notes.first?.contains("scores.db.corrupt-20261201T073000Z") == true, "\(store.notes)")
        #expect(listing(dir).contains("scores.db.corrupt-20261201T073000Z"))
        #expect(try store.record(record(10), tableSize: 10).id == 1)
        #expect(try store.integrityCheck() == ["ok"])
    }

    @Test func aTruncatedDatabaseIsMovedAside() throws {
        let dir = temporaryDirectory()
        let path = ScoreStore.path(in: dir)
        do {
            let store = try ScoreStore(directory: dir)
            try store.db.execute("BEGIN")
            for i in 0..<3000 { _ = try store.db.query("INSERT INTO rounds (started_ms, duration_ms, mode, score, popped, outcome) VALUES (?, 1000, 'classic', ?, 3, 'finished')", [.int(Int64(i)), .int(Int64(i))]) }
            try store.db.execute("COMMIT")
            try store.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        }
        var st = stat()
        stat(path, &st)
        #expect(st.st_size > 40_000)
        #expect(truncate(path, off_t(st.st_size / 2)) == 0)
        unlink(path + "-wal")
        unlink(path + "-shm")
        let store = try ScoreStore(directory: dir, now: WallTime(unixMilliseconds: 1_796_110_200_000))
        #expect(store.notes.count == 1, "\(store.notes)")
        #expect(listing(dir).contains("scores.db.corrupt-20261201T073000Z"))
        #expect(try store.roundIDs().isEmpty)
        // A second damage in the same second gets a name of its own.
        store.db.close()
        writeFile(path, Array("not a database at all".utf8) + [UInt8](repeating: 7, count: 5000))
        let again = try ScoreStore(directory: dir, now: WallTime(unixMilliseconds: 1_796_110_200_000))
        #expect(again.notes.count == 1)
        #expect(listing(dir).contains("scores.db.corrupt-20261201T073000Z-2"))
    }

    // MARK: a newer kiosk's database, after a downgrade

    /// A newer schema that only adds (a column with a default, a table): read and written as it
    /// is, its user_version and additions kept, one note.
    @Test func aNewerSchemaThatOnlyAddsIsUsedAsItIs() throws {
        let dir = temporaryDirectory()
        do {
            let store = try ScoreStore(directory: dir)
            _ = try store.record(record(30), tableSize: 10)
            try store.db.execute("""
                ALTER TABLE rounds ADD COLUMN venue TEXT NOT NULL DEFAULT 'hall';
                CREATE TABLE prizes (round_id INTEGER, prize TEXT);
                INSERT INTO prizes VALUES (1, 'a balloon');
                PRAGMA user_version = 3;
                """)
        }
        let store = try ScoreStore(directory: dir)
        #expect(store.notes.isEmpty)
        #expect(store.notices == ["\(dir)/scores.db: schema version 3, from a newer bubble-kiosk (this one knows 2): read and written as it is, its schema untouched"])
        #expect(try store.record(record(50), tableSize: 10) == (id: 2, rank: 1))
        #expect(try store.highScores(mode: .classic, limit: 10).map(\.score) == [50, 30])
        #expect(try store.db.query("PRAGMA user_version").first?.first?.int == 3)
        #expect(try store.db.query("SELECT venue FROM rounds WHERE id = 2").first?.first?.text == "hall")
        #expect(try store.db.query("SELECT prize FROM prizes").first?.first?.text == "a balloon")
        #expect(listing(dir) == ["scores.db", "scores.db-journal"] || listing(dir) == ["scores.db"])
    }

    /// A newer schema this version cannot write (here a rule that refuses its rows) is set aside
    /// whole, with a line that says why and where, and never changed; a fresh store goes on.
    @Test func aNewerSchemaItCannotWriteIsSetAsideUnchanged() throws {
        let dir = temporaryDirectory()
        let path = ScoreStore.path(in: dir)
        do {
            let store = try ScoreStore(directory: dir)
            _ = try store.record(record(30), tableSize: 10)
            try store.db.execute("""
                CREATE TRIGGER rounds_need_a_venue BEFORE INSERT ON rounds BEGIN SELECT RAISE(ABORT, 'a round needs a venue'); END;
                PRAGMA user_version = 3;
                """)
        }
        let before = try FileSystem.readBytes(path, limit: 1 << 24)
        // 2026-12-01 07:30:00 UTC.
        let store = try ScoreStore(directory: dir, now: WallTime(unixMilliseconds: 1_796_110_200_000))
        #expect(store.notes == ["\(dir)/scores.db: schema version 3, from a newer bubble-kiosk, which this one (schema 2) cannot write "
                                + "(a round needs a venue); set it aside unchanged as \(dir)/scores.db.newer-20261201T073000Z "
                                + "(that version reads it again once it is renamed back) and started a fresh one"])
        #expect(try FileSystem.readBytes(path + ".newer-20261201T073000Z", limit: 1 << 24) == before)
        #expect(try store.roundIDs().isEmpty)
        #expect(try store.record(record(10), tableSize: 10).id == 1)
        #expect(try store.db.query("PRAGMA user_version").first?.first?.int == ScoreStore.schemaVersion)
    }

    @Test func aFolderThatCannotBeWrittenIsReported() throws {
        let dir = makeUnwritableDirectory("bubble-kiosk-scores")
        #expect(throws: ScoreStoreError.self) { try ScoreStore(directory: dir) }
        // A folder that cannot even be made.
        let file = temporaryDirectory() + "/plain"
        writeFile(file, [1])
        do {
            _ = try ScoreStore(directory: file + "/state")
            Issue.record("opened a store under a plain file")
        } catch {
            #expect(error.description.contains("mkdir"), "\(error)")
        }
    }

    @Test func aFullDiskFailsTheCommitAndTheStoreGoesOn() throws {
        let dir = temporaryDirectory()
        let store = try ScoreStore(directory: dir)
        _ = try store.record(record(1), tableSize: 10)
        // SQLite answers SQLITE_FULL when the database may grow no further, as on a full disk.
        let pages = try store.db.query("PRAGMA page_count").first?.first?.int ?? 0
        try store.db.execute("PRAGMA max_page_count = \(pages)")
        var failure: ScoreStoreError?
        for i in 0..<2000 {
            do { _ = try store.record(record(i, durationMS: Int64(i)), tableSize: 10) } catch {
                failure = error
                break
            }
        }
        let error = try #require(failure)
        #expect(error.isFull, "\(error)")
        try store.db.execute("PRAGMA max_page_count = 1000000")
        #expect(try store.integrityCheck() == ["ok"])
        #expect(try store.record(record(5), tableSize: 10).id > 1, "space again: saving goes on")
    }

    @Test func oldDemoRoundsArePrunedAtOpenAndFoldersMade() throws {
        let dir = temporaryDirectory() + "/state/bubble-kiosk"
        let now: Int64 = 1_796_110_200_000
        let day: Int64 = 86_400_000
        do {
            let store = try ScoreStore(directory: dir, now: WallTime(unixMilliseconds: now))
            _ = try store.record(record(1, outcome: .demo, startedMS: now - 91 * day), tableSize: 10)
            _ = try store.record(record(2, outcome: .demo, startedMS: now - 89 * day), tableSize: 10)
            _ = try store.record(record(3, outcome: .finished, startedMS: now - 400 * day), tableSize: 10)
        }
        let store = try ScoreStore(directory: dir, now: WallTime(unixMilliseconds: now))
        #expect(try store.rounds(since: nil).map(\.score) == [3, 2], "people's rounds stay; demos for 90 days")
    }

    @Test func openingExistingNeverCreates() throws {
        let dir = temporaryDirectory()
        #expect(try ScoreStore(existingIn: dir) == nil)
        #expect(listing(dir).isEmpty)
    }
}

@Suite struct ScoreWriterTests {
    /// Waits (really) for results until `done` says enough, at most 10 s: the wait is on the
    /// writer's mailbox, so it ends as soon as an answer comes.
    static func collect(_ writer: ScoreWriter, until done: ([ScoreResult]) -> Bool) -> [ScoreResult] {
        var all: [ScoreResult] = []
        _ = eventually(within: .seconds(10), every: .milliseconds(100),
                       waiting: { all += writer.results.wait(timeout: $0) }) { done(all) }
        return all
    }

    @Test func recordsOffTheCallersThreadAndAnswersWithRankAndBoard() throws {
        let dir = temporaryDirectory()
        let writer = try ScoreWriter(directory: dir, start: localTime(1_764_000_000_000))
        writer.post(.record(record(70, startedMS: 1_764_000_000_000), roundStart: TimeStamp(milliseconds: 5), tableSize: 10, rows: 3, at: localTime()))
        writer.post(.record(record(90, startedMS: 1_764_000_000_000), roundStart: TimeStamp(milliseconds: 9), tableSize: 10, rows: 3, at: localTime()))
        var results = Self.collect(writer) { r in r.filter { if case .recorded = $0 { true } else { false } }.count == 2 }
        writer.stop()
        results += writer.results.take()
        let ranks: [Int?] = results.compactMap { if case .recorded(_, _, _, _, let rank) = $0 { rank } else { nil } }
        #expect(ranks == [1, 1])
        let boards: [ScoreBoard] = results.compactMap { if case .board(let b) = $0 { b } else { nil } }
        #expect(boards.last?[.classic].allTime == [90, 70])
        #expect(!results.contains { if case .log = $0 { true } else { false } })
    }

    @Test func aFolderThatCannotBeWrittenIsReportedOnceAndRoundsAreDropped() throws {
        let dir = makeUnwritableDirectory("bubble-kiosk-scores")
        let writer = try ScoreWriter(directory: dir, start: localTime())
        for i in 0..<5 { writer.post(.record(record(i), roundStart: .zero, tableSize: 10, rows: 3, at: localTime())) }
        writer.post(.refresh(rows: 3, at: localTime()))
        writer.stop()
        let logs = logLines(writer.results.take())
        #expect(logs.count == 1, "\(logs)")
        #expect(logs.first?.contains("cannot save scores") == true)
        #expect(logs.first?.contains("the game goes on without saving") == true)
    }

    @Test func aNewerKiosksFileIsANoticeThroughTheWriterAndKeepsItsRounds() throws {
        let dir = temporaryDirectory()
        do {
            let store = try ScoreStore(directory: dir)
            _ = try store.record(record(40), tableSize: 10)
            try store.db.execute("PRAGMA user_version = 3")
        }
        let writer = try ScoreWriter(directory: dir, start: localTime())
        writer.post(.record(record(12), roundStart: .zero, tableSize: 10, rows: 3, at: localTime()))
        writer.stop()
        let results = writer.results.take()
        let levels = results.compactMap { if case .log(let level, let l) = $0 { "\(level) \(l)" } else { nil } }
        #expect(levels.count == 1 && levels[0].hasPrefix("notice scores: ") && levels[0].contains("schema version 3"), "\(levels)")
        #expect(results.contains { if case .recorded(2, _, .classic, 12, 2) = $0 { true } else { false } }, "\(results)")
    }

    @Test func aCorruptFileIsReportedOnceThroughTheWriter() throws {
        let dir = temporaryDirectory()
        writeFile(ScoreStore.path(in: dir), [UInt8](repeating: 0x41, count: 4096))
        let writer = try ScoreWriter(directory: dir, start: localTime())
        writer.post(.record(record(12), roundStart: .zero, tableSize: 10, rows: 3, at: localTime()))
        writer.stop()
        let results = writer.results.take()
        let logs = logLines(results)
        #expect(logs.count == 1 && logs[0].contains("moved it to"), "\(logs)")
        #expect(results.contains { if case .recorded(1, _, .classic, 12, 1) = $0 { true } else { false } })
    }
}
