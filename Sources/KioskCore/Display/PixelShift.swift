/// A move of the whole picture by whole pixels: right and down are positive.
public struct PixelOffset: Hashable, Sendable, CustomStringConvertible {
    public var dx: Int
    public var dy: Int

    public init(dx: Int, dy: Int) {
        self.dx = dx
        self.dy = dy
    }

    public static let zero = PixelOffset(dx: 0, dy: 0)

    public var isZero: Bool { dx == 0 && dy == 0 }

    /// The same move as a vector, for positions in pixels.
    public var vector: Vector2 { Vector2(Double(dx), Double(dy)) }

    public static prefix func - (o: PixelOffset) -> PixelOffset { PixelOffset(dx: -o.dx, dy: -o.dy) }

    public var description: String { "\(dx),\(dy)" }
}

/// Against burn-in (`[display] pixel_shift`): a picture that stands still for hours (the start
/// screen with the demo off, a round-over screen that never sleeps) marks an OLED or plasma
/// panel, and leaves image retention on some LCDs, along its sharp edges. Moving the whole
/// picture a few pixels every few minutes spreads each edge over a band instead.
///
/// The offset walks a small orbit (the centre and the eight positions around it, each a
/// neighbour of the one before) one step per `stepInterval`, counted on the kiosk's monotonic
/// clock from its zero, so it is the same for a given time whatever happened before: tests
/// drive it on virtual time, and touch can ask which offset a moment showed.
public struct PixelShift: Equatable, Sendable {
    /// Off: the picture stays where the game lays it out.
    public var enabled: Bool
    /// The screen's density, for the orbit's reach in millimetres.
    public var pxPerMM: Double

    public init(enabled: Bool, pxPerMM: Double) {
        self.enabled = enabled
        self.pxPerMM = pxPerMM
    }

    /// Long enough that a step is rarely seen (a visitor's stay is a round or two) and the
    /// repaint it costs is nothing; short enough that a screen standing still all day spends
    /// about as long at each position (nine steps: the orbit comes round every 27 minutes).
    public static let stepInterval = Duration.seconds(180)

    /// The orbit's reach on each axis: about half a millimetre, so the move spans an edge's
    /// worth of pixels on any panel, but at least 2 px (1 px hardly spreads an edge) and at
    /// most 4 px (a bigger move is noticed, and takes the picture's edge off the screen).
    public static let reachMM = 0.5
    public static let reachPixels: ClosedRange<Int> = 2...4

    /// The orbit in units of `reach`: the centre first, then round its eight neighbours, each
    /// step a neighbour of the one before (the last back to the centre), so a step moves the
    /// picture by at most `reach` on each axis.
    static let orbit: [(Int, Int)] = [(0, 0), (1, 0), (1, 1), (0, 1), (-1, 1), (-1, 0), (-1, -1), (0, -1), (1, -1)]

    /// How far the picture moves on each axis, in pixels.
    public var reach: Int {
        let px = (Self.reachMM * pxPerMM).rounded()
        guard px.isFinite else { return Self.reachPixels.lowerBound }
        return Int(min(max(px, Double(Self.reachPixels.lowerBound)), Double(Self.reachPixels.upperBound)))
    }

    /// The step `time` falls in (floored, so times before the clock's zero count too).
    private func step(at time: TimeStamp) -> Int64 {
        let length = Self.stepInterval.wholeMicroseconds
        let t = time.microseconds
        return t >= 0 ? t / length : -((-(t + 1)) / length) - 1
    }

    /// Where the picture is at `time`; zero when off.
    public func offset(at time: TimeStamp) -> PixelOffset {
        guard enabled else { return .zero }
        let count = Int64(Self.orbit.count)
        let position = Self.orbit[Int(((step(at: time) % count) + count) % count)]
        return PixelOffset(dx: position.0 * reach, dy: position.1 * reach)
    }

    /// When the offset changes next after `time` (the next step's start); nil when off, so
    /// nothing wakes for it.
    public func nextChange(after time: TimeStamp) -> TimeStamp? {
        guard enabled else { return nil }
        let next = step(at: time) + 1
        let (start, overflow) = next.multipliedReportingOverflow(by: Self.stepInterval.wholeMicroseconds)
        return overflow ? nil : TimeStamp(microseconds: start)
    }
}
