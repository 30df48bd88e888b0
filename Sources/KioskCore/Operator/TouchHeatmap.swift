/// Where touches landed: touch-downs counted per cell of a fixed grid over the game's picture,
/// in coordinates normalised to 0...1, so maps of screens of any size (or rotation) add up.
/// It finds dead zones (cells nobody ever reaches) and worn spots (cells everyone hits).
public struct TouchHeatmap: Equatable, Sendable {
    /// The grid: fixed, because stored counts from every day and kiosk share it.
    public static let columns = 32
    public static let rows = 32

    /// `columns * rows` counts, row by row from the top left.
    public private(set) var counts: [Int]

    public init() { counts = Array(repeating: 0, count: Self.columns * Self.rows) }

    /// The cell of a normalised position: x and y in 0...1 (1 itself belongs to the last cell);
    /// nil for anything outside or not a number.
    public static func cell(normalized p: Vector2) -> (column: Int, row: Int)? {
        guard p.x >= 0, p.x <= 1, p.y >= 0, p.y <= 1 else { return nil }  // NaN fails too
        return (min(Int(p.x * Double(columns)), columns - 1), min(Int(p.y * Double(rows)), rows - 1))
    }

    /// The cell of a position in game pixels on a screen of `size`.
    public static func cell(of p: Vector2, in size: PixelSize) -> (column: Int, row: Int)? {
        guard size.width > 0, size.height > 0 else { return nil }
        return cell(normalized: Vector2(p.x / Double(size.width), p.y / Double(size.height)))
    }

    /// Counts a touch-down at `p` (game pixels on a screen of `size`); positions off the
    /// screen are not counted. Returns whether it was.
    @discardableResult
    public mutating func add(_ p: Vector2, in size: PixelSize) -> Bool {
        guard let c = Self.cell(of: p, in: size) else { return false }
        add(column: c.column, row: c.row)
        return true
    }

    /// Adds `count` to a cell; cells outside the grid and negative counts are ignored (a
    /// damaged database must not break the map).
    public mutating func add(column: Int, row: Int, count: Int = 1) {
        guard (0..<Self.columns).contains(column), (0..<Self.rows).contains(row), count > 0 else { return }
        let i = row * Self.columns + column
        counts[i] = counts[i] > Int.max - count ? Int.max : counts[i] + count
    }

    /// What was counted since `earlier`, a map this one grew from (cells it cannot have grown
    /// from count 0).
    public func counted(since earlier: TouchHeatmap) -> TouchHeatmap {
        var delta = TouchHeatmap()
        for i in counts.indices where counts[i] > earlier.counts[i] { delta.counts[i] = counts[i] - earlier.counts[i] }
        return delta
    }

    /// Adds every count of `other`.
    public mutating func merge(_ other: TouchHeatmap) {
        for c in other.cells { add(column: c.column, row: c.row, count: c.count) }
    }

    public subscript(column: Int, row: Int) -> Int {
        guard (0..<Self.columns).contains(column), (0..<Self.rows).contains(row) else { return 0 }
        return counts[row * Self.columns + column]
    }

    /// Touch-downs counted.
    public var total: Int { counts.reduce(0) { $0 > Int.max - $1 ? Int.max : $0 + $1 } }
    /// The busiest cell's count (0 for an empty map).
    public var maximum: Int { counts.max() ?? 0 }
    public var isEmpty: Bool { maximum == 0 }

    /// The cells with touches, row by row.
    public var cells: [(column: Int, row: Int, count: Int)] {
        counts.indices.compactMap { i in
            counts[i] > 0 ? (i % Self.columns, i / Self.columns, counts[i]) : nil
        }
    }

    /// Each cell's share of the busiest one, on a square-root scale so that rarely touched
    /// cells still show beside a worn spot; 0 stays 0 (a dead zone stays empty).
    public var intensities: [Double] {
        let top = Double(maximum)
        guard top > 0 else { return Array(repeating: 0, count: counts.count) }
        return counts.map { $0 == 0 ? 0 : max(0.08, (Double($0) / top).squareRoot()) }
    }
}

/// Tells the contacts that just went down in each frame of each device: a tracking id not
/// down in that device's previous frame. (A resync keeps the ids: the same fingers.)
public struct TouchDownTracker: Sendable {
    private var down: [Int: Set<Int>] = [:]

    public init() {}

    /// The contacts of `frame` that were not down before it.
    public mutating func newContacts(in frame: TouchFrame) -> [TouchPoint] {
        let before = down[frame.device] ?? []
        down[frame.device] = frame.contacts.isEmpty ? nil : Set(frame.contacts.map(\.trackingID))
        // An id twice in one frame (a confused panel) is still one finger.
        var seen = before
        return frame.contacts.filter { seen.insert($0.trackingID).inserted }
    }

    /// A device went away: its contacts are gone.
    public mutating func forget(device: Int) { down[device] = nil }
}
