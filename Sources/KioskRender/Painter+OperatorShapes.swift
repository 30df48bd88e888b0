internal import CCairo
import KioskCore

/// The operator screens' shapes (the touch-test screen and the heatmap): panels, trails and
/// grid lines, heatmap cells, all in frame coordinates.
extension Painter {
    /// A filled rectangle in frame coordinates, with optional rounded corners.
    static func panel(_ cr: OpaquePointer, _ p: PanelShape) {
        let rect = p.rect
        let r = min(p.cornerRadius, rect.width / 2, rect.height / 2)
        cairo_new_path(cr)
        if r <= 0 {
            cairo_rectangle(cr, rect.x, rect.y, rect.width, rect.height)
        } else {
            let half = Double.pi / 2
            cairo_arc(cr, rect.maxX - r, rect.y + r, r, -half, 0)
            cairo_arc(cr, rect.maxX - r, rect.maxY - r, r, 0, half)
            cairo_arc(cr, rect.x + r, rect.maxY - r, r, half, 2 * half)
            cairo_arc(cr, rect.x + r, rect.y + r, r, 2 * half, 3 * half)
            cairo_close_path(cr)
        }
        setColor(cr, p.color)
        cairo_fill(cr)
    }

    /// Lines through the points in frame coordinates, round caps and joins.
    static func polyline(_ cr: OpaquePointer, _ l: PolylineShape) {
        // A non-finite coordinate would put the context into a lasting error state.
        guard let first = l.points.first, l.width > 0,
              l.points.allSatisfy({ $0.x.isFinite && $0.y.isFinite }) else { return }
        cairo_new_path(cr)
        cairo_move_to(cr, first.x, first.y)
        // One point: a zero-length segment, which a round cap draws as a dot.
        if l.points.count == 1 { cairo_line_to(cr, first.x, first.y) }
        for p in l.points.dropFirst() { cairo_line_to(cr, p.x, p.y) }
        if l.closed { cairo_close_path(cr) }
        cairo_set_line_cap(cr, CAIRO_LINE_CAP_ROUND)
        cairo_set_line_join(cr, CAIRO_LINE_JOIN_ROUND)
        cairo_set_line_width(cr, l.width)
        setColor(cr, l.color)
        cairo_stroke(cr)
    }

    /// A heatmap's cells in frame coordinates: each non-zero value a box of its ramp colour.
    static func cells(_ cr: OpaquePointer, _ g: CellGridShape) {
        guard g.columns > 0, g.rows > 0 else { return }
        let w = g.rect.width / Double(g.columns), h = g.rect.height / Double(g.rows)
        guard w > 0, h > 0 else { return }
        // Only the cells inside the clip: a damaged strip repaints a few cells, not all of them.
        var x0 = 0.0, y0 = 0.0, x1 = 0.0, y1 = 0.0
        cairo_clip_extents(cr, &x0, &y0, &x1, &y1)
        func index(_ v: Double, _ n: Int) -> Int { v.isNaN ? 0 : Int(min(max(v, 0), Double(n)).rounded(.down)) }
        let c0 = index((x0 - g.rect.x) / w, g.columns), r0 = index((y0 - g.rect.y) / h, g.rows)
        let columns = c0..<max(c0, index((x1 - g.rect.x) / w + 1, g.columns))
        let rows = r0..<max(r0, index((y1 - g.rect.y) / h + 1, g.rows))
        for row in rows {
            for column in columns {
                let i = row * g.columns + column
                guard i < g.values.count, g.values[i] > 0 else { continue }
                let c = CellGridShape.rampColor(g.values[i])
                cairo_rectangle(cr, g.rect.x + Double(column) * w, g.rect.y + Double(row) * h, w, h)
                setColor(cr, c, alpha: g.opacity)
                cairo_fill(cr)
            }
        }
    }
}
