/// Turns touch frames into gestures, each contact on its own: ten fingers can play at once.
///
/// Feed every `TouchFrame` to `process(_:_:)` and call `advance(to:_:)` when `nextDeadline`
/// passes with no input (a long press fires on time, not at the next event). Gestures go to the
/// closure passed in, as they happen: taps at once with a running count, never held back to wait
/// for a double tap.
public struct GestureRecognizer: Sendable {
    /// Thresholds in pixels for this screen.
    public let thresholds: GestureThresholds
    /// The screen in the coordinates of the frames (the game's size): a contact held at its
    /// border is a finger that ran off the glass, not one at rest.
    public let screen: PixelSize

    private struct ContactKey: Hashable { var device: Int; var slot: Int }

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
    }

    private struct Pinned { var position: Vector2; var since: TimeStamp }

    private struct RecentTap { var device: Int; var time: TimeStamp; var position: Vector2; var count: Int }

    private var contacts: [ContactKey: Contact] = [:]
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

    /// The earliest time at which a gesture would fire without new input (a pending long press).
    public var nextDeadline: TimeStamp? {
        contacts.values.filter { $0.phase == .possible }
            .map { $0.downTime.adding(milliseconds: thresholds.longPressMS) }
            .min()
    }

    /// Fires what is due by `time` (long presses) without new input.
    public mutating func advance(to time: TimeStamp, _ emit: (Gesture) -> Void) {
        for key in sortedKeys() {
            guard var c = contacts[key], c.phase == .possible else { continue }
            let due = c.downTime.adding(milliseconds: thresholds.longPressMS)
            if time >= due {
                c.phase = .longPressed
                contacts[key] = c
                emit(gesture(.longPress, key, c, at: due))
            }
        }
    }

    /// Processes one frame of one device.
    public mutating func process(_ frame: TouchFrame, _ emit: (Gesture) -> Void) {
        advance(to: frame.time, emit)
        if frame.resync { cancelAll(device: frame.device, at: frame.time, emit) }

        var present = Set<ContactKey>()
        for point in frame.contacts {
            let key = ContactKey(device: frame.device, slot: point.slot)
            present.insert(key)
            if let existing = contacts[key], existing.trackingID != point.trackingID {
                // A new tracking id in the same slot: the old finger lifted between reports.
                lift(key, at: frame.time, emit)
            }
            if contacts[key] == nil {
                var v = VelocityTracker(windowMS: thresholds.velocityWindowMS)
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

    /// Cancels every contact of a device (events were dropped, or the device went away).
    public mutating func cancelAll(device: Int, at time: TimeStamp, _ emit: (Gesture) -> Void) {
        for key in sortedKeys() where key.device == device {
            if let c = contacts.removeValue(forKey: key), c.phase != .ignored {
                emit(gesture(.cancel, key, c, at: time))
            }
        }
    }

    private mutating func move(_ key: ContactKey, to position: Vector2, at time: TimeStamp,
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

    private mutating func lift(_ key: ContactKey, at time: TimeStamp, _ emit: (Gesture) -> Void) {
        guard let c = contacts.removeValue(forKey: key) else { return }
        switch c.phase {
        case .dragging:
            var end = gesture(.dragEnd, key, c, at: time)
            // Velocity as of the moment the finger reached the border, if it is held there.
            end.velocity = c.velocity.velocity(at: c.pinned?.since ?? time)
            emit(end)
            if end.distance >= thresholds.swipeMinDistance && end.speed >= thresholds.swipeMinVelocity {
                end.kind = .swipe
                emit(end)
            }
        case .possible:
            let held = time.milliseconds(since: c.downTime)
            guard held <= thresholds.tapMaxMS,
                  c.downPosition.distance(to: c.position) <= thresholds.tapSlop else { return }
            var tap = gesture(.tap, key, c, at: time)
            tap.count = consecutiveCount(device: key.device, down: c.downTime, at: c.position, up: time)
            emit(tap)
        case .longPressed, .ignored, .unresolved:
            break
        }
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
        recentTaps.removeAll { down.milliseconds(since: $0.time) > thresholds.multiTapIntervalMS }
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

    private func gesture(_ kind: Gesture.Kind, _ key: ContactKey, _ c: Contact, at time: TimeStamp) -> Gesture {
        Gesture(kind: kind, time: time, device: key.device, slot: key.slot, position: c.position, start: c.downPosition)
    }

    /// Slots in a fixed order, so the same input always yields gestures in the same order.
    private func sortedKeys() -> [ContactKey] {
        contacts.keys.sorted { ($0.device, $0.slot) < ($1.device, $1.slot) }
    }
}
