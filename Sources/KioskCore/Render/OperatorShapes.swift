/// Lines through points: touch trails, grid lines, swipe arrows of the touch-test screen.
/// Drawn with round caps and joins, so a trail of one point is a dot.
public struct PolylineShape: Equatable, Sendable {
    public var points: [Vector2]
    public var color: RGBColor
    /// Stroke width in pixels.
    public var width: Double
    /// Joins the last point to the first.
    public var closed: Bool

    public init(points: [Vector2], color: RGBColor, width: Double, closed: Bool = false) {
        self.points = points
        self.color = color
        self.width = width
        self.closed = closed
    }

    /// The points' box grown by half the stroke (round caps reach that far) and antialiasing.
    public var bounds: PixelRect {
        guard let first = points.first else { return PixelRect(x: 0, y: 0, width: 0, height: 0) }
        var lo = first, hi = first
        for p in points.dropFirst() {
            lo = Vector2(min(lo.x, p.x), min(lo.y, p.y))
            hi = Vector2(max(hi.x, p.x), max(hi.y, p.y))
        }
        let pad = max(width, 0) / 2 + 2
        return PixelRect(enclosing: Rect(x: lo.x - pad, y: lo.y - pad, width: hi.x - lo.x + 2 * pad, height: hi.y - lo.y + 2 * pad))
    }
}

/// A grid of cells over `rect`, each filled by its value on a colour ramp (the heatmap):
/// 0 draws nothing, then dark blue through yellow to red at 1.
public struct CellGridShape: Equatable, Sendable {
    public var rect: Rect
    public var columns: Int
    public var rows: Int
    /// `columns * rows` values in 0...1, row by row from the top left.
    public var values: [Double]
    /// Opacity of the fills.
    public var opacity: Double

    public init(rect: Rect, columns: Int, rows: Int, values: [Double], opacity: Double = 0.85) {
        self.rect = rect
        self.columns = max(columns, 0)
        self.rows = max(rows, 0)
        self.values = values
        self.opacity = opacity
    }

    public var bounds: PixelRect { PixelRect(enclosing: rect).outset(by: 1) }

    /// The ramp's colour for `value` (clamped to 0...1): blue, cyan, yellow, red.
    public static func rampColor(_ value: Double) -> RGBColor {
        let stops = [RGBColor(hex: 0x1E_3A_8A), RGBColor(hex: 0x06_B6_D4), RGBColor(hex: 0xFA_CC_15), RGBColor(hex: 0xDC_26_26)]
        let v = value.isNaN ? 0 : min(max(value, 0), 1) * Double(stops.count - 1)
        let i = min(Int(v), stops.count - 2)
        return stops[i].mixed(with: stops[i + 1], amount: v - Double(i))
    }
}
