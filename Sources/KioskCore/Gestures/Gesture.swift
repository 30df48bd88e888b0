/// A recognised gesture of one contact (one slot of one device).
public struct Gesture: Equatable, Sendable {
    /// What happened. Raw values are the names scripts see in `bubble-kiosk gestures`.
    public enum Kind: String, Sendable, CaseIterable {
        case tap
        case longPress = "long_press"
        case dragStart = "drag_start"
        case dragMove = "drag_move"
        case dragEnd = "drag_end"
        case swipe
        case cancel
    }

    public var kind: Kind
    public var time: TimeStamp
    public var device: Int
    public var slot: Int
    /// Where the contact is at `time`.
    public var position: Vector2
    /// Where the contact went down.
    public var start: Vector2
    /// Running count of consecutive taps (1 for a single tap); 0 for other kinds.
    public var count: Int = 0
    /// Estimated velocity in px/s when the contact lifted (drag end and swipe).
    public var velocity: Vector2 = .zero

    public init(kind: Kind, time: TimeStamp, device: Int, slot: Int, position: Vector2, start: Vector2,
                count: Int = 0, velocity: Vector2 = .zero) {
        self.kind = kind
        self.time = time
        self.device = device
        self.slot = slot
        self.position = position
        self.start = start
        self.count = count
        self.velocity = velocity
    }

    /// Direction from start to end in degrees (y down, 0 right), in (-180, 180].
    public var angleDegrees: Double { (position - start).angleDegrees }
    /// Straight-line distance from start to end in pixels.
    public var distance: Double { start.distance(to: position) }
    /// Speed at lift in px/s.
    public var speed: Double { velocity.length }
}

/// Gesture thresholds converted to pixels for one screen.
public struct GestureThresholds: Equatable, Sendable {
    public var tapSlop: Double
    public var tapMax: Duration
    public var longPress: Duration
    public var dragStart: Double
    public var swipeMinDistance: Double
    public var swipeMinVelocity: Double
    public var velocityWindow: Duration
    public var multiTapInterval: Duration
    public var multiTapSlop: Double
    /// A re-touch sooner than this after a lift, nearby, continues the press (zero: never).
    public var bounce: Duration
    /// A contact this close to the screen's border is at the edge (see `edgeMarginMM`).
    public var edgeMargin: Double

    /// Panels rarely report a finger's centre right on the glass's last pixel, so "at the
    /// edge" reaches this far in; a finger 2 mm from the border is half off the screen.
    public static let edgeMarginMM = 2.0

    /// Converts millimetres to pixels with the screen's density, so a gesture feels the same on
    /// a 7-inch and a 32-inch screen.
    public init(_ s: GestureSettings, pxPerMM: Double) {
        tapSlop = s.tapSlopMM * pxPerMM
        tapMax = s.tapMax
        longPress = s.longPress
        dragStart = s.dragStartMM * pxPerMM
        swipeMinDistance = s.swipeMinDistanceMM * pxPerMM
        swipeMinVelocity = s.swipeMinVelocityMMPerS * pxPerMM
        velocityWindow = s.velocityWindow
        multiTapInterval = s.multiTapInterval
        multiTapSlop = s.multiTapSlopMM * pxPerMM
        bounce = s.bounce
        edgeMargin = Self.edgeMarginMM * pxPerMM
    }
}
