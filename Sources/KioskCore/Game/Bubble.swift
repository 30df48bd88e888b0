/// What a bubble asks of the player.
public enum BubbleKind: Equatable, Sendable {
    /// Pops after this many taps.
    case tap(required: Int)
    /// Pops when swiped within the tolerance of this direction (degrees, y down, 0 right).
    case swipe(angleDeg: Double)
}

/// One bubble of a round.
public struct Bubble: Equatable, Sendable, Identifiable {
    public var id: Int
    public var kind: BubbleKind
    /// Centre in screen pixels.
    public var center: Vector2
    public var diameter: Double
    /// Index into the renderer's palette.
    public var colorIndex: Int
    /// Taps still needed (tap bubbles); 0 for swipe bubbles.
    public var tapsLeft: Int
    public var spawnedAt: TimeStamp
    /// When it popped; nil while it is in play.
    public var poppedAt: TimeStamp?

    public init(id: Int, kind: BubbleKind, center: Vector2, diameter: Double, colorIndex: Int,
                spawnedAt: TimeStamp = .zero) {
        self.id = id
        self.kind = kind
        self.center = center
        self.diameter = diameter
        self.colorIndex = colorIndex
        if case .tap(let n) = kind { tapsLeft = n } else { tapsLeft = 0 }
        self.spawnedAt = spawnedAt
    }

    public var isPopped: Bool { poppedAt != nil }
    public var radius: Double { diameter / 2 }

    /// The touches that pop this bubble: one tap (from == to) per tap still needed, or one swipe
    /// of `swipeLength` from the centre along the arrow; none once popped.
    public func poppingStrokes(swipeLength: Double) -> [(from: Vector2, to: Vector2)] {
        guard !isPopped else { return [] }
        switch kind {
        case .tap:
            return Array(repeating: (center, center), count: tapsLeft)
        case .swipe(let angle):
            return [(center, center + Angle.unitVector(degrees: angle) * swipeLength)]
        }
    }

    /// The name scripts see: `tap` or `swipe`.
    public var kindName: String {
        if case .tap = kind { return "tap" }
        return "swipe"
    }
}
