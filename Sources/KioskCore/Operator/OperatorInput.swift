/// What stands between the touchscreens and the game: the stuck-touch filter, then the
/// operator gestures. The runtime hands it every frame (in game coordinates) before the
/// session, and calls `advance(to:)` at `nextDeadline`; tests drive it on virtual time.
///
/// A contact it takes from the game (stuck, or part of an operator gesture that fired) is
/// listed once in `cancelled`: the session cancels its gestures (a carried bubble goes back, no
/// tap fires), and the frames it returns leave the contact out until it lifts.
public struct OperatorInput: Sendable {
    public private(set) var filter: StuckTouchFilter
    public private(set) var detector: OperatorGestureDetector
    /// Contacts an operator gesture took, kept from the game until they lift.
    private var taken: Set<ContactRef> = []

    /// What one frame or one stretch of time came to.
    public struct Output: Equatable, Sendable {
        /// The frame for the game: without stuck contacts and those operator gestures took.
        public var frame: TouchFrame?
        /// Contacts whose gestures the game must cancel now, before it sees `frame`.
        public var cancelled: [ContactRef] = []
        /// Contacts that became stuck, each reported once.
        public var stuck: [StuckTouch] = []
        /// Operator gestures that fired.
        public var gestures: [OperatorGesture] = []
    }

    public init(settings: Settings, pxPerMM: Double, screen: PixelSize) {
        filter = StuckTouchFilter(settings.input, pxPerMM: pxPerMM)
        detector = OperatorGestureDetector(settings.operator, pxPerMM: pxPerMM, screen: screen)
    }

    /// New thresholds after a reload; contacts down keep their state.
    public mutating func configure(_ settings: Settings, pxPerMM: Double) {
        let fresh = StuckTouchFilter(settings.input, pxPerMM: pxPerMM)
        filter.after = fresh.after
        filter.radius = fresh.radius
        detector.thresholds = .init(settings.operator, pxPerMM: pxPerMM, screen: detector.screen)
    }

    /// The contacts stuck now (for the touch-test screen to mark).
    public var stuckTouches: [StuckTouch] { filter.stuckTouches }

    /// When something comes due without new input.
    public var nextDeadline: TimeStamp? {
        [filter.nextDeadline, detector.nextDeadline].compactMap { $0 }.min()
    }

    /// What comes due by `time` without new input: contacts becoming stuck, holds completing,
    /// in the order they come due.
    public mutating func advance(to time: TimeStamp) -> Output {
        var out = Output()
        while let t = nextDeadline, t <= time {
            for s in filter.advance(to: t) { drop(s, into: &out) }
            for g in detector.advance(to: t) { take(g, into: &out) }
        }
        return out
    }

    /// One device's frame: returns it as the game should see it, with what happened up to it.
    public mutating func process(_ frame: TouchFrame) -> Output {
        var out = advance(to: frame.time)
        let filtered = filter.filter(frame)
        for s in filtered.stuck { drop(s, into: &out) }
        for g in detector.process(filtered.frame) { take(g, into: &out) }
        var game = filtered.frame
        let down = Set(game.contacts.map { ContactRef(device: frame.device, slot: $0.slot, trackingID: $0.trackingID) })
        // A taken contact is given back only once it lifted (its tracking id ended).
        taken = taken.filter { $0.device != frame.device || down.contains($0) }
        game.contacts.removeAll { taken.contains(ContactRef(device: frame.device, slot: $0.slot, trackingID: $0.trackingID)) }
        out.frame = game
        return out
    }

    /// A device went away: forget its contacts (the session cancels them itself).
    public mutating func forget(device: Int, at time: TimeStamp) {
        filter.forget(device: device)
        detector.forget(device: device, at: time)
        taken = taken.filter { $0.device != device }
    }

    private mutating func drop(_ stuck: StuckTouch, into out: inout Output) {
        detector.remove(stuck.contact, at: stuck.time)
        // One an operator gesture holds is out of the game already; it is no fault of the glass.
        guard !taken.contains(stuck.contact) else { return }
        out.stuck.append(stuck)
        out.cancelled.append(stuck.contact)
    }

    private mutating func take(_ gesture: OperatorGesture, into out: inout Output) {
        out.gestures.append(gesture)
        for c in gesture.contacts where !taken.contains(c) && !filter.isStuck(c) {
            taken.insert(c)
            out.cancelled.append(c)
        }
    }
}
