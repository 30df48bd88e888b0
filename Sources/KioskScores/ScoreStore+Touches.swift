import KioskCore

/// The touch heatmap in the store: table `touch_cells`, touch-downs per local day and cell of
/// `TouchHeatmap`'s grid (`col`, `row` from the top left), added up batch by batch.
extension ScoreStore {
    /// Adds a batch of touch-downs to the day `wallMS` (wall clock) falls on, in local time, in
    /// one transaction.
    public func addTouches(_ batch: TouchHeatmap, wallMS: Int64) throws(ScoreStoreError) {
        let cells = batch.cells
        guard !cells.isEmpty else { return }
        do throws(SQLiteError) {
            try db.transaction { () throws(SQLiteError) in
                for c in cells {
                    try db.query("""
                        INSERT INTO touch_cells (day, col, row, touches)
                        VALUES (date(?1 / 1000, 'unixepoch', 'localtime'), ?2, ?3, ?4)
                        ON CONFLICT (day, col, row) DO UPDATE SET touches = touches + excluded.touches
                        """, [.int(wallMS), .int(Int64(c.column)), .int(Int64(c.row)), .int(Int64(c.count))])
                }
            }
        } catch {
            throw ScoreStoreError(error)
        }
    }

    /// The heatmap of the last `days` local days up to the day of `nowMS` (today is day 1), or of
    /// every day when nil; and the days that had touches.
    public func touchHeatmap(days: Int?, nowMS: Int64) throws(ScoreStoreError) -> (map: TouchHeatmap, days: Int) {
        var map = TouchHeatmap()
        // A store of schema 1, read as it is by the commands, has no heatmap yet.
        guard version >= 2 else { return (map, 0) }
        do {
            let since: SQLiteValue = days.map {
                .text("\(-(max($0, 1) - 1)) days")
            } ?? .null
            let filter = "?1 IS NULL OR day >= date(?2 / 1000, 'unixepoch', 'localtime', ?1)"
            let rows = try db.query("SELECT col, row, SUM(touches) FROM touch_cells WHERE \(filter) GROUP BY col, row",
                                    [since, .int(nowMS)])
            for r in rows { map.add(column: Int(r[0].int), row: Int(r[1].int), count: Int(r[2].int)) }
            let count = try db.query("SELECT COUNT(DISTINCT day) FROM touch_cells WHERE \(filter)", [since, .int(nowMS)])
            return (map, Int(count.first?.first?.int ?? 0))
        } catch {
            throw ScoreStoreError(error)
        }
    }
}
