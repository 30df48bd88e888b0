/// Recognises the operator gestures in the frames of every device (after the stuck-touch
/// filter), on the frames' time:
///
/// - **five-finger hold** (`.touchTest`): five or more contacts, each still within
///   `stillRadius` of where it came to rest, for `fiveFingerHold`, all at once;
/// - **opposite corners** (`.touchTest`): a long press (a contact that went down in a corner
///   square and stayed inside it for `cornerHold`) in two diagonally opposite corners at the
///   same time;
/// - **four corners** (`.reset`): long presses in all four corners one after another, each
///   going down after the previous one lifted, starting in any corner and going round it in
///   one direction (clockwise or counter-clockwise), all within `resetWithin` from the first
///   press going down to the fourth press's hold being complete.
///
/// The game sees the contacts until a gesture fires; the contacts that made it are then
/// `consumed`: they take part in no other operator gesture until they lift. Holds fire on
/// time without new input: call `advance(to:)` at `nextDeadline`.
public struct OperatorGestureDetector: Sendable {
    /// Thresholds in pixels and times for one screen.
    public struct Thresholds: Equatable, Sendable {
        public var touchTest: TouchTestGestureSetting
        public var reset: ResetGestureSetting
        /// Side of each corner square (at most half the screen's shorter side).
        public var corner: Double
        public var cornerHold: Duration
        public var resetWithin: Duration
        public var stillRadius: Double
        public var fiveFingerHold: Duration

        /// Fingers of a hand held to the glass roll a little: "still" allows this much.
        public static let stillRadiusMM = 5.0
        /// How long the five fingers are held.
        public static let fiveFingerHoldTime = Duration.seconds(3)
        /// Fingers the hold needs at least.
        public static let fingers = 5

        public init(_ settings: OperatorSettings, pxPerMM: Double, screen: PixelSize) {
            touchTest = settings.touchTest
            reset = settings.reset
            corner = min(settings.cornerMM * pxPerMM, Double(min(screen.width, screen.height)) / 2)
            cornerHold = settings.cornerHold
            resetWithin = settings.resetWithin
            stillRadius = Self.stillRadiusMM * pxPerMM
            fiveFingerHold = Self.fiveFingerHoldTime
        }
    }

    public var thresholds: Thresholds
    public let screen: PixelSize

    private struct Tracked {
        var trackingID: Int
        var down: TimeStamp
        var anchor: Vector2
        var stillSince: TimeStamp
        /// The corner it went down in, while it stays inside it.
        var corner: ScreenCorner?
        var cornerHeld = false
        var consumed = false
    }

    /// A completed corner press of the four-corner sequence.
    private struct Step {
        var corner: ScreenCorner
        var contact: ContactRef
        var down: TimeStamp
        /// When it lifted or left its corner; nil while it is held.
        var ended: TimeStamp?
    }

    private enum Due { case corner(SlotKey), fiveFingers }

    private var contacts: [SlotKey: Tracked] = [:]
    private var steps: [Step] = []

    public init(thresholds: Thresholds, screen: PixelSize) {
        self.thresholds = thresholds
        self.screen = screen
    }

    public init(_ settings: OperatorSettings, pxPerMM: Double, screen: PixelSize) {
        self.init(thresholds: Thresholds(settings, pxPerMM: pxPerMM, screen: screen), screen: screen)
    }

    /// When a hold would complete without new input; nil when none is under way.
    public var nextDeadline: TimeStamp? { nextDue()?.time }

    /// Fires what completes by `time`, in order.
    public mutating func advance(to time: TimeStamp) -> [OperatorGesture] {
        var fired: [OperatorGesture] = []
        while let due = nextDue(), due.time <= time {
            if let g = complete(due.what, at: due.time) { fired.append(g) }
        }
        return fired
    }

    /// Notes one device's frame; returns the gestures that completed up to its time.
    public mutating func process(_ frame: TouchFrame) -> [OperatorGesture] {
        let fired = advance(to: frame.time)
        var present = Set<SlotKey>()
        for point in frame.contacts {
            let key = SlotKey(device: frame.device, slot: point.slot)
            present.insert(key)
            if var c = contacts[key], c.trackingID == point.trackingID {
                if c.anchor.distance(to: point.position) > thresholds.stillRadius {
                    c.anchor = point.position
                    c.stillSince = frame.time
                }
                if let corner = c.corner, self.corner(of: point.position) != corner {
                    c.corner = nil
                    end(ContactRef(device: key.device, slot: key.slot, trackingID: c.trackingID), at: frame.time)
                }
                contacts[key] = c
            } else {
                if contacts[key] != nil { lift(key, at: frame.time) }
                contacts[key] = Tracked(trackingID: point.trackingID, down: frame.time, anchor: point.position,
                                        stillSince: frame.time, corner: corner(of: point.position))
            }
        }
        for key in contacts.keys.sorted() where key.device == frame.device && !present.contains(key) {
            lift(key, at: frame.time)
        }
        return fired
    }

    /// A contact left the detector's view without lifting (the stuck filter dropped it): as if it lifted.
    public mutating func remove(_ contact: ContactRef, at time: TimeStamp) {
        let key = contact.slotKey
        if contacts[key]?.trackingID == contact.trackingID { lift(key, at: time) }
    }

    /// A device went away: its contacts are gone.
    public mutating func forget(device: Int, at time: TimeStamp) {
        for key in contacts.keys.sorted() where key.device == device { lift(key, at: time) }
    }

    /// The corner square `p` lies in; where squares overlap (a tiny screen) the nearest corner.
    public func corner(of p: Vector2) -> ScreenCorner? {
        let s = thresholds.corner
        let w = Double(screen.width), h = Double(screen.height)
        let left = p.x < s, right = p.x >= w - s, top = p.y < s, bottom = p.y >= h - s
        guard (left || right) && (top || bottom) else { return nil }
        let useLeft = left && (!right || p.x < w - p.x)
        let useTop = top && (!bottom || p.y < h - p.y)
        switch (useTop, useLeft) {
        case (true, true): return .topLeft
        case (true, false): return .topRight
        case (false, false): return .bottomRight
        case (false, true): return .bottomLeft
        }
    }

    // MARK: - what comes due

    private var cornersOn: Bool { thresholds.touchTest.oppositeCorners || thresholds.reset == .fourCorners }

    private func nextDue() -> (time: TimeStamp, what: Due)? {
        var best: (time: TimeStamp, what: Due)?
        if cornersOn {
            for key in contacts.keys.sorted() {
                let c = contacts[key]!
                guard c.corner != nil, !c.cornerHeld, !c.consumed else { continue }
                let t = c.down + thresholds.cornerHold
                if best == nil || t < best!.time { best = (t, .corner(key)) }
            }
        }
        if thresholds.touchTest.fiveFingers {
            let still = contacts.values.filter { !$0.consumed }.map(\.stillSince).sorted()
            if still.count >= Thresholds.fingers {
                let t = still[Thresholds.fingers - 1] + thresholds.fiveFingerHold
                if best == nil || t < best!.time { best = (t, .fiveFingers) }
            }
        }
        return best
    }

    private mutating func complete(_ what: Due, at time: TimeStamp) -> OperatorGesture? {
        switch what {
        case .fiveFingers:
            let keys = contacts.keys.sorted().filter { key in
                let c = contacts[key]!
                return !c.consumed && c.stillSince + thresholds.fiveFingerHold <= time
            }
            return fire(.touchTest, .fiveFingerHold, keys, at: time)
        case .corner(let key):
            guard var c = contacts[key], let corner = c.corner else { return nil }
            c.cornerHeld = true
            contacts[key] = c
            if thresholds.touchTest.oppositeCorners,
               let other = contacts.keys.sorted().first(where: { k in
                   let o = contacts[k]!
                   return k != key && !o.consumed && o.cornerHeld && o.corner == corner.opposite
               }) {
                return fire(.touchTest, .oppositeCorners, [other, key], at: time)
            }
            guard thresholds.reset == .fourCorners else { return nil }
            steps.append(Step(corner: corner, contact: ref(key, c), down: c.down))
            steps = longestRound(endingAt: time)
            guard steps.count == ScreenCorner.allCases.count else { return nil }
            steps = []
            return fire(.reset, .fourCorners, [key], at: time)
        }
    }

    /// The longest tail of `steps` that is a valid start of the reset: each press went down
    /// after the one before ended, in the next corner in one direction round the screen, the
    /// first one down at most `resetWithin` before `time`.
    private func longestRound(endingAt time: TimeStamp) -> [Step] {
        let recent = Array(steps.suffix(ScreenCorner.allCases.count))
        for start in recent.indices {
            let tail = Array(recent[start...])
            // As a deadline, rounded to the microsecond like every other.
            guard time <= tail[0].down + thresholds.resetWithin else { continue }
            var direction = 0
            var valid = true
            for (a, b) in zip(tail, tail.dropFirst()) {
                let turn = a.corner.turn(to: b.corner)
                guard let ended = a.ended, ended <= b.down, turn != 0, direction == 0 || turn == direction else {
                    valid = false
                    break
                }
                direction = turn
            }
            if valid { return tail }
        }
        return []
    }

    private mutating func fire(_ action: OperatorAction, _ kind: OperatorGestureKind, _ keys: [SlotKey],
                               at time: TimeStamp) -> OperatorGesture {
        var refs: [ContactRef] = []
        for key in keys {
            contacts[key]?.consumed = true
            if let c = contacts[key] { refs.append(ref(key, c)) }
        }
        return OperatorGesture(action: action, kind: kind, time: time, device: keys.last?.device ?? 0, contacts: refs)
    }

    private mutating func lift(_ key: SlotKey, at time: TimeStamp) {
        guard let c = contacts.removeValue(forKey: key) else { return }
        end(ref(key, c), at: time)
    }

    /// A corner press of the sequence ended (it lifted or left its corner).
    private mutating func end(_ contact: ContactRef, at time: TimeStamp) {
        for i in steps.indices where steps[i].contact == contact && steps[i].ended == nil {
            steps[i].ended = time
        }
    }

    private func ref(_ key: SlotKey, _ c: Tracked) -> ContactRef {
        ContactRef(device: key.device, slot: key.slot, trackingID: c.trackingID)
    }
}
