import KioskCore

/// The touch heatmap in the store: table `touch_cells`, touch-downs per local day and cell of
/// `TouchHeatmap`'s grid (`col`, `row` from the top left), added up batch by batch.
extension ScoreStore {
    /// Adds a batch of touch-downs to the local day `day`, in one transaction.
    public func addTouches(_ batch: TouchHeatmap, day: LocalDay) throws(ScoreStoreError) {
        let cells = batch.cells
        guard !cells.isEmpty else { return }
        do throws(SQLiteError) {
            try db.transaction { () throws(SQLiteError) in
                for c in cells {
                    try db.query("""
                        INSERT INTO touch_cells (day, col, row, touches)
                        VALUES (?1, ?2, ?3, ?4)
                        ON CONFLICT (day, col, row) DO UPDATE SET touches = touches + excluded.touches
                        """, [.text(day.date), .int(Int64(c.column)), .int(Int64(c.row)), .int(Int64(c.count))])
                }
            }
        } catch {
            throw ScoreStoreError(error)
        }
    }

    /// The heatmap of the last `days` local days up to `today` (today is day 1), or of every day
    /// when nil; and the days that had touches.
    public func touchHeatmap(days: Int?, today: LocalDay) throws(ScoreStoreError) -> (map: TouchHeatmap, days: Int) {
        var map = TouchHeatmap()
        // A store of schema 1, read as it is by the commands, has no heatmap yet.
        guard version >= 2 else { return (map, 0) }
        do {
            let since: SQLiteValue = days.map {
                .text("\(-(max($0, 1) - 1)) days")
            } ?? .null
            let filter = "?1 IS NULL OR day >= date(?2, ?1)"
            let rows = try db.query("SELECT col, row, SUM(touches) FROM touch_cells WHERE \(filter) GROUP BY col, row",
                                    [since, .text(today.date)])
            for r in rows { map.add(column: Int(r[0].int), row: Int(r[1].int), count: Int(r[2].int)) }
            let count = try db.query("SELECT COUNT(DISTINCT day) FROM touch_cells WHERE \(filter)", [since, .text(today.date)])
            return (map, Int(count.first?.first?.int ?? 0))
        } catch {
            throw ScoreStoreError(error)
        }
    }
}
