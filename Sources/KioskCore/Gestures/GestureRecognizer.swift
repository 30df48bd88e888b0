/// Turns touch frames into gestures, each contact on its own: ten fingers can play at once.
///
/// Feed every `TouchFrame` to `process(_:_:)` and call `advance(to:_:)` when `nextDeadline`
/// passes with no input (a long press fires on time, not at the next event). Gestures go to the
/// closure passed in, as they happen: taps at once with a running count, never held back to wait
/// for a double tap.
///
/// Contact bounce (a panel losing a pressed finger for a few milliseconds) is merged: a re-touch
/// less than `bounce` after a lift, where the finger lifted, continues that press. So the end
/// of a drag (and its swipe) goes out `bounce` after the lift, when it is sure; a tap still goes
/// out at its first lift, and the bounced rest of that press gives no second tap.
public struct GestureRecognizer: Sendable {
    /// Thresholds in pixels for this screen; a reload may change them between frames.
    public var thresholds: GestureThresholds
    /// The screen in the coordinates of the frames (the game's size): a contact held at its
    /// border is a finger that ran off the glass, not one at rest.
    public let screen: PixelSize

    private enum Phase {
        /// Could still become a tap, long press or drag.
        case possible
        /// Held past the long-press time without moving; may still turn into a drag.
        case longPressed
        case dragging
        /// Was down through a resync: ignored until it lifts.
        case ignored
        /// Moved beyond the tap slop but not far enough to drag: nothing on lift.
        case unresolved
    }

    private struct Contact {
        var trackingID: Int
        var downTime: TimeStamp
        var downPosition: Vector2
        var position: Vector2
        var phase: Phase
        var velocity: VelocityTracker
        /// Where and since when the contact sits still at the screen's border: samples from then
        /// on stay out of the velocity, which is taken as of that time.
        var pinned: Pinned?
        /// When the tap this press already gave ended (its first lift, which proved to be bounce).
        var tapTime: TimeStamp?
    }

    private struct Pinned { var position: Vector2; var since: TimeStamp }

    /// A contact that lifted less than the bounce time ago: a re-touch near it continues it.
    private struct Lifted {
        var key: SlotKey
        var contact: Contact
        var time: TimeStamp
        var due: TimeStamp
        /// At the lift: a drag's swipe velocity, and where a moving finger would come back.
        var velocity: Vector2
    }

    private struct RecentTap { var device: Int; var time: TimeStamp; var position: Vector2; var count: Int }

    private var contacts: [SlotKey: Contact] = [:]
    private var lifted: [Lifted] = []
    private var recentTaps: [RecentTap] = []

    public init(thresholds: GestureThresholds, screen: PixelSize) {
        self.thresholds = thresholds
        self.screen = screen
    }

    public init(settings: GestureSettings, pxPerMM: Double, screen: PixelSize) {
        self.init(thresholds: GestureThresholds(settings, pxPerMM: pxPerMM), screen: screen)
    }

    /// True while any contact is down (a renderer draws finger markers; idle detection waits).
    public var hasContacts: Bool { !contacts.isEmpty }

    /// The earliest time at which a gesture would fire without new input (a pending long press,
    /// or a drag's end once no bounce came). Other lifts fire nothing when their bounce time
    /// runs out, so they need no wake-up.
    public var nextDeadline: TimeStamp? {
        let longPresses = contacts.values.filter { $0.phase == .possible }
            .map { $0.downTime + thresholds.longPress }
        let dragEnds = lifted.filter { $0.contact.phase == .dragging }.map(\.due)
        return (longPresses + dragEnds).min()
    }

    /// Fires what is due by `time` (long presses, lifts no bounce followed) without new input,
    /// in the order it came due.
    public mutating func advance(to time: TimeStamp, _ emit: (Gesture) -> Void) {
        fire(upTo: time, longPresses: true, emit)
    }

    /// The input has ended (a replay's last event): lifts still waiting for a bounce are final,
    /// delivered at the time they would have been. A finger still down gives no long press.
    public mutating func finishInput(_ emit: (Gesture) -> Void) {
        fire(upTo: TimeStamp(microseconds: .max), longPresses: false, emit)
    }

    private mutating func fire(upTo time: TimeStamp, longPresses: Bool, _ emit: (Gesture) -> Void) {
        var due: [(time: TimeStamp, key: SlotKey, lift: Lifted?)] = []
        for (key, c) in contacts where longPresses && c.phase == .possible {
            let at = c.downTime + thresholds.longPress
            if time >= at { due.append((at, key, nil)) }
        }
        for l in lifted where time >= l.due { due.append((l.due, l.key, l)) }
        lifted.removeAll { time >= $0.due }
        due.sort { ($0.time, $0.key.device, $0.key.slot) < ($1.time, $1.key.device, $1.key.slot) }
        for d in due {
            if let l = d.lift {
                finish(l, at: d.time, emit)
            } else if var c = contacts[d.key] {
                c.phase = .longPressed
                contacts[d.key] = c
                emit(gesture(.longPress, d.key, c, at: d.time))
            }
        }
    }

    /// Processes one frame of one device.
    public mutating func process(_ frame: TouchFrame, _ emit: (Gesture) -> Void) {
        advance(to: frame.time, emit)
        if frame.resync { cancelAll(device: frame.device, at: frame.time, emit) }

        var present = Set<SlotKey>()
        for point in frame.contacts {
            let key = SlotKey(device: frame.device, slot: point.slot)
            present.insert(key)
            if let existing = contacts[key], existing.trackingID != point.trackingID {
                // A new tracking id in the same slot: the old finger lifted between reports.
                lift(key, at: frame.time, emit)
            }
            if contacts[key] == nil {
                if !frame.resync, var c = takeBounce(key, at: point.position, time: frame.time) {
                    c.trackingID = point.trackingID
                    contacts[key] = c
                    move(key, to: point.position, at: frame.time, emit)
                    continue
                }
                var v = VelocityTracker(window: thresholds.velocityWindow)
                v.add(point.position, at: frame.time)
                let edge = isAtEdge(point.position) ? Pinned(position: point.position, since: frame.time) : nil
                contacts[key] = Contact(trackingID: point.trackingID, downTime: frame.time,
                                        downPosition: point.position, position: point.position,
                                        phase: frame.resync ? .ignored : .possible, velocity: v, pinned: edge)
            } else {
                move(key, to: point.position, at: frame.time, emit)
            }
        }
        for key in sortedKeys() where key.device == frame.device && !present.contains(key) {
            lift(key, at: frame.time, emit)
        }
    }

    /// Convenience for tests and tools: the gestures of one frame as an array.
    public mutating func process(_ frame: TouchFrame) -> [Gesture] {
        var out: [Gesture] = []
        process(frame) { out.append($0) }
        return out
    }

    /// Cancels every contact of a device (events were dropped, or the device went away). Its
    /// lifts still waiting for a bounce are final now: nothing after this can continue them.
    public mutating func cancelAll(device: Int, at time: TimeStamp, _ emit: (Gesture) -> Void) {
        let ended = lifted.filter { $0.key.device == device }
        lifted.removeAll { $0.key.device == device }
        for l in ended { finish(l, at: time, emit) }
        for key in sortedKeys() where key.device == device {
            if let c = contacts.removeValue(forKey: key), c.phase != .ignored {
                emit(gesture(.cancel, key, c, at: time))
            }
        }
    }

    /// Cancels one contact while it is down (the stuck-touch filter or an operator gesture took
    /// it): a cancel rather than a lift, so no tap, drag end or swipe comes of it, and the
    /// frames that follow no longer hold it. Only the finger with `trackingID` is cancelled.
    public mutating func cancel(device: Int, slot: Int, trackingID: Int, at time: TimeStamp,
                                _ emit: (Gesture) -> Void) {
        let key = SlotKey(device: device, slot: slot)
        guard let c = contacts[key], c.trackingID == trackingID else { return }
        contacts[key] = nil
        if c.phase != .ignored { emit(gesture(.cancel, key, c, at: time)) }
    }

    private mutating func move(_ key: SlotKey, to position: Vector2, at time: TimeStamp,
                               _ emit: (Gesture) -> Void) {
        guard var c = contacts[key] else { return }
        let moved = position != c.position
        c.position = position
        if !isAtEdge(position) {
            c.pinned = nil
            c.velocity.add(position, at: time)
        } else if let pin = c.pinned, pin.position.distance(to: position) <= thresholds.tapSlop {
            // Held at the border (a finger that ran off the glass): not a rest, so no sample.
        } else {
            c.pinned = Pinned(position: position, since: time)
            c.velocity.add(position, at: time)
        }
        let distance = c.downPosition.distance(to: position)
        switch c.phase {
        case .possible, .longPressed, .unresolved:
            if distance > thresholds.dragStart {
                c.phase = .dragging
                emit(gesture(.dragStart, key, c, at: time))
            } else if distance > thresholds.tapSlop && c.phase == .possible {
                c.phase = .unresolved
            }
        case .dragging:
            if moved { emit(gesture(.dragMove, key, c, at: time)) }
        case .ignored:
            break
        }
        contacts[key] = c
    }

    private mutating func lift(_ key: SlotKey, at time: TimeStamp, _ emit: (Gesture) -> Void) {
        guard var c = contacts.removeValue(forKey: key), c.phase != .ignored else { return }
        if c.phase == .possible {
            let held = time - c.downTime
            if held <= thresholds.tapMax, c.downPosition.distance(to: c.position) <= thresholds.tapSlop {
                if let first = c.tapTime {
                    // The rest of a press that bounced: its tap is out; the count runs from here.
                    if let i = recentTaps.firstIndex(where: { $0.device == key.device && $0.time == first }) {
                        recentTaps[i].time = time
                    }
                } else {
                    var tap = gesture(.tap, key, c, at: time)
                    tap.count = consecutiveCount(device: key.device, down: c.downTime, at: c.position, up: time)
                    emit(tap)
                }
                c.tapTime = time
            }
        }
        // Velocity as of the moment the finger reached the border, if it is held there.
        let velocity = c.phase == .dragging ? c.velocity.velocity(at: c.pinned?.since ?? time) : .zero
        let l = Lifted(key: key, contact: c, time: time, due: time + thresholds.bounce,
                       velocity: velocity)
        if thresholds.bounce > .zero {
            lifted.append(l)
        } else {
            finish(l, at: time, emit)
        }
    }

    /// A lift no bounce followed: a drag ends (and may be a swipe). Taps went out at the lift.
    private func finish(_ l: Lifted, at time: TimeStamp, _ emit: (Gesture) -> Void) {
        guard l.contact.phase == .dragging else { return }
        var end = gesture(.dragEnd, l.key, l.contact, at: time)
        end.velocity = l.velocity
        emit(end)
        if end.distance >= thresholds.swipeMinDistance && end.speed >= thresholds.swipeMinVelocity {
            end.kind = .swipe
            emit(end)
        }
    }

    /// The lifted contact of this device that a new touch at `position` continues, if it is a
    /// bounce: it lifted less than `bounce` ago (`advance` has already finished the older
    /// ones) and the touch lands within the tap slop of where the finger lifted, or of where a
    /// moving finger would be by now.
    private mutating func takeBounce(_ key: SlotKey, at position: Vector2, time: TimeStamp) -> Contact? {
        let offsets = lifted.indices.compactMap { i -> (index: Int, offset: Double)? in
            let l = lifted[i]
            guard l.key.device == key.device, time < l.due else { return nil }
            let gone = Double(time.microseconds - l.time.microseconds) / 1_000_000
            let offset = (l.contact.position + gone * l.velocity).distance(to: position)
            return offset <= thresholds.tapSlop ? (i, offset) : nil
        }
        guard let nearest = offsets.min(by: { $0.offset < $1.offset }) else { return nil }
        return lifted.remove(at: nearest.index).contact
    }

    /// Whether a position is at the screen's border, within the edge margin (decoders clamp
    /// contacts that leave the glass onto it).
    private func isAtEdge(_ p: Vector2) -> Bool {
        let m = thresholds.edgeMargin
        let right = Double(screen.width - 1) - m, bottom = Double(screen.height - 1) - m
        return p.x <= m || p.y <= m || p.x >= right || p.y >= bottom
    }

    /// Running tap count: continues a recent tap that ended shortly before this one went down,
    /// nearby; several fingers tapping in different places count separately.
    private mutating func consecutiveCount(device: Int, down: TimeStamp, at position: Vector2, up: TimeStamp) -> Int {
        recentTaps.removeAll { down - $0.time > thresholds.multiTapInterval }
        var count = 1
        if let i = recentTaps.firstIndex(where: {
            $0.device == device && $0.position.distance(to: position) <= thresholds.multiTapSlop
                && down >= $0.time
        }) {
            count = recentTaps[i].count + 1
            recentTaps.remove(at: i)
        }
        recentTaps.append(RecentTap(device: device, time: up, position: position, count: count))
        return count
    }

    private func gesture(_ kind: Gesture.Kind, _ key: SlotKey, _ c: Contact, at time: TimeStamp) -> Gesture {
        Gesture(kind: kind, time: time, device: key.device, slot: key.slot, position: c.position, start: c.downPosition)
    }

    /// Slots in a fixed order, so the same input always yields gestures in the same order.
    private func sortedKeys() -> [SlotKey] {
        contacts.keys.sorted()
    }
}
