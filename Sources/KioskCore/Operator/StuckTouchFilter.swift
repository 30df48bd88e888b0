/// A contact that stayed still too long to be a finger (a drop of water, a sticker, a damaged
/// sensor), reported once when the filter drops it.
public struct StuckTouch: Equatable, Sendable {
    public var contact: ContactRef
    /// Where it sits, in game pixels (the latest position while it stays down).
    public var position: Vector2
    /// Since when it has been still.
    public var since: TimeStamp
    /// When it was declared stuck: `since` plus `[input] stuck_after_s`.
    public var time: TimeStamp

    public init(contact: ContactRef, position: Vector2, since: TimeStamp, time: TimeStamp) {
        self.contact = contact
        self.position = position
        self.since = since
        self.time = time
    }
}

/// Drops stuck contacts from the frames the game sees.
///
/// A contact that stays within `radius` of where it came to rest for `after` is stuck: from
/// then on it is left out of every frame until its tracking id ends (it lifts), and it is
/// reported once. A still finger sends no events at all, so `nextDeadline` says when the
/// next contact would become stuck and `advance(to:)` declares it on time.
public struct StuckTouchFilter: Sendable {
    /// Still this long: stuck. 0 turns the filter off (contacts already stuck stay so until they lift).
    public var after: Duration
    /// Moving further than this from where it came to rest starts the wait again (pixels).
    public var radius: Double

    private struct Watched {
        var trackingID: Int
        var anchor: Vector2
        var since: TimeStamp
        var position: Vector2
        var stuck: Bool
    }

    private var watched: [SlotKey: Watched] = [:]

    public init(after: Duration, radius: Double) {
        self.after = after
        self.radius = radius
    }

    /// The thresholds of `[input] stuck_after_s` and `stuck_radius_mm` on a screen of `pxPerMM`.
    public init(_ input: InputSettings, pxPerMM: Double) {
        self.init(after: input.stuckAfter, radius: input.stuckRadiusMM * pxPerMM)
    }

    /// The contacts stuck now, where they are.
    public var stuckTouches: [StuckTouch] {
        sortedKeys().compactMap { key in
            guard let w = watched[key], w.stuck else { return nil }
            return touch(key, w)
        }
    }

    /// Whether `contact` is one the filter drops.
    public func isStuck(_ contact: ContactRef) -> Bool {
        guard let w = watched[contact.slotKey] else { return false }
        return w.stuck && w.trackingID == contact.trackingID
    }

    /// When the next contact becomes stuck if nothing moves; nil when none is waiting.
    public var nextDeadline: TimeStamp? {
        guard after > .zero else { return nil }
        return watched.values.filter { !$0.stuck }.map { $0.since + after }.min()
    }

    /// Declares the contacts that have been still long enough by `time`, in the order they came due.
    public mutating func advance(to time: TimeStamp) -> [StuckTouch] {
        guard after > .zero else { return [] }
        var found: [StuckTouch] = []
        for key in sortedKeys() {
            guard var w = watched[key], !w.stuck else { continue }
            let due = w.since + after
            guard due <= time else { continue }
            w.stuck = true
            watched[key] = w
            found.append(touch(key, w))
        }
        return found.sorted { $0.time < $1.time }
    }

    /// Notes one frame and returns it without its stuck contacts, with the contacts that
    /// became stuck up to its time (before it moved them).
    public mutating func filter(_ frame: TouchFrame) -> (frame: TouchFrame, stuck: [StuckTouch]) {
        let stuck = advance(to: frame.time)
        var out = frame
        out.contacts = []
        var present = Set<SlotKey>()
        for point in frame.contacts {
            let key = SlotKey(device: frame.device, slot: point.slot)
            present.insert(key)
            if var w = watched[key], w.trackingID == point.trackingID {
                w.position = point.position
                if !w.stuck && w.anchor.distance(to: point.position) > radius {
                    w.anchor = point.position
                    w.since = frame.time
                }
                watched[key] = w
                if w.stuck { continue }
            } else {
                watched[key] = Watched(trackingID: point.trackingID, anchor: point.position, since: frame.time,
                                       position: point.position, stuck: false)
            }
            out.contacts.append(point)
        }
        watched = watched.filter { $0.key.device != frame.device || present.contains($0.key) }
        return (out, stuck)
    }

    /// A device went away: its contacts are gone.
    public mutating func forget(device: Int) {
        watched = watched.filter { $0.key.device != device }
    }

    private func touch(_ key: SlotKey, _ w: Watched) -> StuckTouch {
        StuckTouch(contact: ContactRef(device: key.device, slot: key.slot, trackingID: w.trackingID),
                   position: w.position, since: w.since, time: w.since + after)
    }

    private func sortedKeys() -> [SlotKey] {
        watched.keys.sorted()
    }
}
