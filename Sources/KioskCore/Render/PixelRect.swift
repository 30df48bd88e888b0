/// An axis-aligned rectangle of whole pixels: x in `x..<maxX`, y in `y..<maxY`.
public struct PixelRect: Hashable, Sendable, CustomStringConvertible {
    public var x: Int
    public var y: Int
    public var width: Int
    public var height: Int

    public init(x: Int, y: Int, width: Int, height: Int) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    /// The smallest pixel rectangle covering `rect` (rounded outwards).
    public init(enclosing rect: Rect) {
        // Saturating: a shape far off screen (or a NaN that slipped through) must not trap.
        func edge(_ v: Double) -> Int { v.isNaN ? 0 : Int(min(max(v, -1e9), 1e9)) }
        let x0 = edge(rect.x.rounded(.down)), y0 = edge(rect.y.rounded(.down))
        let x1 = edge(rect.maxX.rounded(.up)), y1 = edge(rect.maxY.rounded(.up))
        self.init(x: x0, y: y0, width: max(0, x1 - x0), height: max(0, y1 - y0))
    }

    /// The square covering `center ± halfExtent`, rounded outwards.
    public init(around center: Vector2, halfExtent h: Double) {
        self.init(enclosing: Rect(x: center.x - h, y: center.y - h, width: 2 * h, height: 2 * h))
    }

    public var maxX: Int { x + width }
    public var maxY: Int { y + height }
    public var area: Int { width * height }
    public var isEmpty: Bool { width <= 0 || height <= 0 }

    public func intersects(_ o: PixelRect) -> Bool {
        x < o.maxX && o.x < maxX && y < o.maxY && o.y < maxY && !isEmpty && !o.isEmpty
    }

    /// The common part, or nil when they do not overlap.
    public func intersection(_ o: PixelRect) -> PixelRect? {
        let x0 = max(x, o.x), y0 = max(y, o.y), x1 = min(maxX, o.maxX), y1 = min(maxY, o.maxY)
        guard x1 > x0, y1 > y0 else { return nil }
        return PixelRect(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
    }

    /// The bounding box of both.
    public func union(_ o: PixelRect) -> PixelRect {
        if isEmpty { return o }
        if o.isEmpty { return self }
        let x0 = min(x, o.x), y0 = min(y, o.y)
        return PixelRect(x: x0, y: y0, width: max(maxX, o.maxX) - x0, height: max(maxY, o.maxY) - y0)
    }

    public func contains(_ o: PixelRect) -> Bool {
        o.x >= x && o.y >= y && o.maxX <= maxX && o.maxY <= maxY
    }

    public func outset(by d: Int) -> PixelRect {
        PixelRect(x: x - d, y: y - d, width: width + 2 * d, height: height + 2 * d)
    }

    public var description: String { "\(width)x\(height)+\(x)+\(y)" }

    /// For rectangles stacked in drawing order (the first at the bottom): whether no rectangle
    /// before each one reaches into it, so it lies on the bare background.
    public static func nothingBelow(inStack rects: [PixelRect]) -> [Bool] {
        let overlaps = StackOverlaps(rects)
        return rects.indices.map(overlaps.nothingBelow)
    }
}

/// Rectangles stacked in drawing order (the first at the bottom), and for each the earlier ones
/// that reach into it: the renderer copies an item with nothing below it rather than blend it,
/// and looks closer at the items below one whose box only grazes them.
///
/// Found by a sweep along x: each rectangle is checked only against those still overlapping
/// its left edge, so a screen of 400 bubbles costs a few thousand checks, not 80,000.
public struct StackOverlaps: Sendable {
    /// Rectangle i's earlier neighbours are `lower[first[i]..<first[i + 1]]`.
    private var first: [Int]
    private var lower: [Int]

    public init(_ rects: [PixelRect]) {
        let order = rects.indices.filter { !rects[$0].isEmpty }.sorted { rects[$0].x < rects[$1].x }
        var pairs: [(upper: Int, lower: Int)] = []
        pairs.reserveCapacity(order.count)  // a screen of bubbles has about one pair a bubble
        var open: [Int] = []
        for i in order {
            let r = rects[i]
            open.removeAll { rects[$0].maxX <= r.x }
            for j in open where rects[j].y < r.maxY && r.y < rects[j].maxY {
                pairs.append(j < i ? (i, j) : (j, i))
            }
            open.append(i)
        }
        // Grouped by the upper rectangle (a counting sort).
        first = [Int](repeating: 0, count: rects.count + 1)
        for p in pairs { first[p.upper + 1] += 1 }
        for i in rects.indices { first[i + 1] += first[i] }
        var next = first
        lower = [Int](repeating: 0, count: pairs.count)
        for p in pairs {
            lower[next[p.upper]] = p.lower
            next[p.upper] += 1
        }
    }

    /// Whether no earlier rectangle reaches into rectangle `i`.
    public func nothingBelow(_ i: Int) -> Bool { first[i] == first[i + 1] }

    /// The earlier rectangles that reach into rectangle `i`, in no particular order.
    public func below(_ i: Int) -> ArraySlice<Int> { lower[first[i]..<first[i + 1]] }
}
