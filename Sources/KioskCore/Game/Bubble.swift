/// What a bubble asks of the player.
public enum BubbleKind: Equatable, Sendable {
    /// Pops after this many taps.
    case tap(required: Int)
    /// Pops when swiped within the tolerance of this direction (degrees, y down, 0 right).
    case swipe(angleDeg: Double)
    /// Pops when dragged into the round's goal (the basket).
    case drag
}

/// A drag bubble held by a finger: which contact, where it was grabbed, where it is now.
public struct Carry: Equatable, Sendable {
    public var device: Int
    public var slot: Int
    /// Where the finger grabbed it, from its centre (the seed's dragStartPositionRelativeToCenter):
    /// the bubble keeps this offset from the finger instead of jumping onto it.
    public var offset: Vector2
    /// Where its centre is now.
    public var position: Vector2
    /// When it was picked up (the lift animates in from here).
    public var since: TimeStamp
}

/// A drag bubble let go outside the goal: it eases back home from `from`.
public struct Drop: Equatable, Sendable {
    public var from: Vector2
    public var time: TimeStamp
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
    /// Drag bubbles: the finger holding it, if any. `center` stays where it rests meanwhile.
    public var carry: Carry?
    /// Drag bubbles: the last time it was let go short of the goal.
    public var lastDrop: Drop?

    /// How long a picked-up bubble takes to lift, and a dropped one to settle back home.
    public static let liftTime = Duration.milliseconds(120)
    public static let returnTime = Duration.milliseconds(220)

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
    /// Where the bubble is for the rules: under the finger carrying it, else where it rests.
    public var position: Vector2 { carry?.position ?? center }

    /// Where it is drawn at `time`: following the finger, easing back home after a drop, or at rest.
    public func shownCenter(at time: TimeStamp) -> Vector2 {
        if let c = carry { return c.position }
        if let d = lastDrop {
            let p = (time - d.time) / Self.returnTime
            if p < 1 { return d.from + (center - d.from) * Self.easeOut(max(p, 0)) }
        }
        return center
    }

    /// How far it is lifted at `time`, 0 (resting) to 1 (held): eased in when picked up, out
    /// while it settles after a drop.
    public func lift(at time: TimeStamp) -> Double {
        if let c = carry {
            return Self.easeOut(min(max((time - c.since) / Self.liftTime, 0), 1))
        }
        if let d = lastDrop {
            let p = (time - d.time) / Self.returnTime
            if p < 1 { return 1 - Self.easeOut(max(p, 0)) }
        }
        return 0
    }

    /// True while the lift or the way home still changes the picture by itself.
    public func isMoving(at time: TimeStamp) -> Bool {
        if let c = carry { return time - c.since < Self.liftTime }
        if let d = lastDrop { return time - d.time < Self.returnTime }
        return false
    }

    /// Cubic ease-out on 0...1.
    static func easeOut(_ p: Double) -> Double { 1 - (1 - p) * (1 - p) * (1 - p) }
    public var radius: Double { diameter / 2 }

    /// The touches that pop this bubble: one tap (from == to) per tap still needed, one swipe
    /// of `swipeLength` from the centre along the arrow, or a drag from the centre to the goal's
    /// centre; none once popped (or for a drag bubble without a goal).
    public func poppingStrokes(swipeLength: Double, goal: Rect? = nil) -> [(from: Vector2, to: Vector2)] {
        guard !isPopped else { return [] }
        switch kind {
        case .tap:
            return Array(repeating: (center, center), count: tapsLeft)
        case .swipe(let angle):
            return [(center, center + Angle.unitVector(degrees: angle) * swipeLength)]
        case .drag:
            guard let g = goal else { return [] }
            return [(center, Vector2(g.x + g.width / 2, g.y + g.height / 2))]
        }
    }

    /// The name scripts see: `tap`, `swipe` or `drag`.
    public var kindName: String {
        switch kind {
        case .tap: "tap"
        case .swipe: "swipe"
        case .drag: "drag"
        }
    }
}
