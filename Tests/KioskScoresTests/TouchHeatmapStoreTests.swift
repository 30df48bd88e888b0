import Glibc
import KioskCore
import KioskPlatform
import KioskTestSupport
import Testing
@testable import KioskScores

/// The touch heatmap in scores.db: table `touch_cells`, per local day and cell.
@Suite struct TouchHeatmapStoreTests {
    /// Noon, local time, on a day some days from a fixed one.
    static func noon(_ day: Int) -> LocalTime {
        let midnight = localTime(1_764_000_000_000).day.start
        return SystemWallClock().local(midnight + .seconds(day * 86_400 + 43_200))
    }

    static func batch(_ cells: [(Int, Int, Int)]) -> TouchHeatmap {
        var map = TouchHeatmap()
        for (c, r, n) in cells { map.add(column: c, row: r, count: n) }
        return map
    }

    @Test func batchesAddUpPerDayAndCell() throws {
        let dir = temporaryDirectory()
        let store = try ScoreStore(directory: dir)
        try store.addTouches(Self.batch([(0, 0, 2), (31, 31, 1)]), day: Self.noon(0).day)
        try store.addTouches(Self.batch([(0, 0, 3)]), day: Self.noon(0).day)
        try store.addTouches(Self.batch([(5, 6, 4)]), day: Self.noon(2).day)
        try store.addTouches(TouchHeatmap(), day: Self.noon(2).day)
        let rows = try store.db.query("SELECT day, col, row, touches FROM touch_cells ORDER BY day, col")
        #expect(rows.count == 3)
        #expect(rows[0][3].int == 5)
        let all = try store.touchHeatmap(days: nil, today: Self.noon(2).day)
        #expect(all.days == 2 && all.map.total == 10 && all.map[0, 0] == 5 && all.map[31, 31] == 1 && all.map[5, 6] == 4)
        let today = try store.touchHeatmap(days: 1, today: Self.noon(2).day)
        #expect(today.days == 1 && today.map.total == 4)
        let three = try store.touchHeatmap(days: 3, today: Self.noon(2).day)
        #expect(three.days == 2 && three.map.total == 10)
        let two = try store.touchHeatmap(days: 2, today: Self.noon(2).day)
        #expect(two.map.total == 4)
        // Read back through the commands' way of opening.
        let reader = try #require(try ScoreStore(existingIn: dir))
        #expect(try reader.touchHeatmap(days: nil, today: Self.noon(2).day).map == all.map)
    }

    /// A database of the first schema (no touch_cells) gets the table when opened.
    @Test func anOlderDatabaseGainsTheTable() throws {
        let dir = temporaryDirectory()
        do {
            let store = try ScoreStore(directory: dir)
            try store.db.execute("DROP TABLE touch_cells; PRAGMA user_version = 1")
        }
        let store = try ScoreStore(directory: dir)
        try store.addTouches(Self.batch([(1, 1, 1)]), day: Self.noon(0).day)
        #expect(try store.touchHeatmap(days: nil, today: Self.noon(0).day).map.total == 1)
        #expect(try store.db.query("PRAGMA user_version").first?.first?.int == ScoreStore.schemaVersion)
    }

    /// Rows a damaged or hand-edited file may hold (cells off the grid, negative counts) are left out.
    @Test func rowsOffTheGridAreIgnored() throws {
        let dir = temporaryDirectory()
        let store = try ScoreStore(directory: dir)
        try store.db.execute("INSERT INTO touch_cells VALUES ('2026-12-01', 40, 2, 9), ('2026-12-01', 2, -1, 9), ('2026-12-01', 3, 3, -4), ('2026-12-01', 4, 4, 2)")
        let map = try store.touchHeatmap(days: nil, today: Self.noon(0).day).map
        #expect(map.total == 2 && map[4, 4] == 2)
    }

    @Test func theWriterThreadStoresBatches() throws {
        let dir = temporaryDirectory()
        let writer = try ScoreWriter(directory: dir, start: Self.noon(0))
        writer.post(.touches(Self.batch([(3, 4, 2)]), day: Self.noon(0).day))
        writer.post(.touches(Self.batch([(3, 4, 1)]), day: Self.noon(0).day))
        writer.stop()
        #expect(!writer.results.take().contains { if case .log = $0 { true } else { false } })
        let store = try #require(try ScoreStore(existingIn: dir))
        #expect(try store.touchHeatmap(days: nil, today: Self.noon(0).day).map[3, 4] == 3)
    }

    /// A corrupt file: one line (moved aside), and the batches go into the fresh database.
    @Test func aCorruptDatabaseIsOneLineAndTheBatchesGoOn() throws {
        let dir = temporaryDirectory()
        writeFile(ScoreStore.path(in: dir), [UInt8](repeating: 0x42, count: 4096))
        let writer = try ScoreWriter(directory: dir, start: Self.noon(0))
        writer.post(.touches(Self.batch([(0, 1, 1)]), day: Self.noon(0).day))
        writer.stop()
        let logs = logLines(writer.results.take())
        #expect(logs.count == 1 && logs[0].contains("moved it to"), "\(logs)")
        let store = try #require(try ScoreStore(existingIn: dir))
        #expect(try store.touchHeatmap(days: nil, today: Self.noon(0).day).map.total == 1)
    }

    /// A folder that cannot be written: one line, the batches are dropped, nothing crashes.
    @Test func anUnwritableFolderIsOneLine() throws {
        let dir = makeUnwritableDirectory("bubble-kiosk-scores")
        let writer = try ScoreWriter(directory: dir, start: Self.noon(0))
        for _ in 0..<4 { writer.post(.touches(Self.batch([(0, 0, 1)]), day: Self.noon(0).day)) }
        writer.stop()
        let logs = logLines(writer.results.take())
        #expect(logs.count == 1 && logs[0].contains("the game goes on without saving"), "\(logs)")
    }
}
