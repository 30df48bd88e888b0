/// One touch device as the touch-test screen lists it: name, node and axis ranges.
public struct TouchTestDevice: Equatable, Sendable {
    /// The index its frames carry (`TouchFrame.device`).
    public var index: Int
    public var name: String
    /// The event node, when there is one (`/dev/input/event3`).
    public var path: String?
    public var x: AxisInfo?
    public var y: AxisInfo?
    public var pressure: AxisInfo?
    /// Multi-touch slots (protocol B).
    public var slots: Int?

    public init(index: Int, name: String, path: String? = nil, info: TouchDeviceInfo) {
        self.index = index
        self.name = name
        self.path = path
        let multi = info.isMultiTouch
        x = info.axes[multi ? EventCode.ABS_MT_POSITION_X : EventCode.ABS_X]
        y = info.axes[multi ? EventCode.ABS_MT_POSITION_Y : EventCode.ABS_Y]
        pressure = info.axes[EventCode.ABS_MT_PRESSURE] ?? info.axes[EventCode.ABS_PRESSURE]
        if case .multiTouchB(let n) = info.touchProtocol { slots = n }
    }

    /// One line: `device 0 "Name" /dev/input/event3: x 0..4095, y 0..4095, pressure 0..255, 10 slots`.
    public var summary: String {
        func range(_ label: String, _ a: AxisInfo?) -> String? {
            a.map { "\(label) \($0.minimum)..\($0.maximum)" + ($0.resolution > 0 ? " (\($0.resolution)/mm)" : "") }
        }
        let parts = [range("x", x), range("y", y), range("pressure", pressure), slots.map { "\($0) slots" }].compactMap { $0 }
        let shown = name.count > 40 ? String(name.prefix(39)) + "…" : name
        return "device \(index) \"\(shown)\"" + (path.map { " \($0)" } ?? "") + ": " + parts.joined(separator: ", ")
    }
}

/// What the touch-test screen shows, as a value: every contact down with its device, slot,
/// tracking id, game and panel position and pressure; a trail of the last second of each; the
/// gestures its own recogniser (the game's thresholds) finds, for a few seconds; the devices.
/// `TouchTestScene` draws it. Time is passed in, so tests run it on virtual time.
public struct TouchTestModel: Sendable {
    /// A contact down now.
    public struct Contact: Equatable, Sendable {
        public var device: Int
        public var slot: Int
        public var trackingID: Int
        /// Where the game sees it (after calibration and rotation).
        public var game: Vector2
        /// Where the panel reported it, in its own pixels (before calibration and rotation).
        public var panel: Vector2
        public var pressure: Int?
        /// Marked by the stuck-touch filter: drawn in its own colour.
        public var stuck: Bool
    }

    /// A point of a trail, in game pixels.
    public struct TrailPoint: Equatable, Sendable {
        public var time: TimeStamp
        public var position: Vector2
    }

    /// Where one contact (a tracking id of a device) went in the last second.
    public struct Trail: Equatable, Sendable {
        public var device: Int
        public var slot: Int
        public var trackingID: Int
        public var points: [TrailPoint]
    }

    /// How long trails reach back.
    public static let trail = Duration.seconds(1)
    /// A gesture is shown this long at full strength, then fades out over `gestureFadeMS`.
    public static let gestureHold = Duration.seconds(2)
    public static let gestureFade = Duration.seconds(1)
    /// The list of recent gestures keeps this many.
    public static let gesturesKept = 8

    /// The game's screen (the coordinates of frames and of the scene).
    public let screen: PixelSize
    /// Panel to game: to tell the panel position of a contact without a raw frame, and to show
    /// the rotation.
    public private(set) var transform: TouchTransform
    public let pxPerMM: Double
    /// Where a contact counts as at the border for the gesture recogniser, in pixels.
    public var edgeMargin: Double { recognizer.thresholds.edgeMargin }
    /// The devices in use, as the input reports them.
    public var devices: [TouchTestDevice] = []
    public private(set) var contacts: [Contact] = []
    public private(set) var trails: [Trail] = []
    /// Recent gestures, oldest first (no drag moves; a drag's end only when it was no swipe).
    public private(set) var gestures: [Gesture] = []
    /// When the screen was last touched (or opened): it closes after a timeout from here.
    public private(set) var lastTouch: TimeStamp
    private var recognizer: GestureRecognizer
    private struct ContactID: Hashable { var device: Int; var trackingID: Int }
    private var stuck: Set<ContactID> = []

    public init(screen: PixelSize, transform: TouchTransform, pxPerMM: Double, gestures: GestureSettings, at time: TimeStamp) {
        self.screen = screen
        self.transform = transform
        self.pxPerMM = pxPerMM
        recognizer = GestureRecognizer(settings: gestures, pxPerMM: pxPerMM, screen: screen)
        lastTouch = time
    }

    /// The thresholds its recogniser tells gestures by: the game's `[gestures]`.
    public var thresholds: GestureThresholds { recognizer.thresholds }

    /// New `[gestures]` and touch mapping (`[input] calibration`) after a reload, so the screen
    /// shows gestures as the game now tells them; contacts down keep their state.
    public mutating func configure(_ gestures: GestureSettings, transform: TouchTransform) {
        self.transform = transform
        recognizer.thresholds = GestureThresholds(gestures, pxPerMM: pxPerMM)
    }

    /// One frame of one device in game coordinates, and the same frame as the panel reported it
    /// (nil: the panel position is worked back from the rotation alone).
    public mutating func process(_ frame: TouchFrame, panel raw: TouchFrame? = nil) {
        prune(at: frame.time)
        if !frame.contacts.isEmpty { lastTouch = frame.time }
        var gestures: [Gesture] = []
        recognizer.process(frame) { gestures.append($0) }
        note(gestures)
        contacts.removeAll { $0.device == frame.device }
        let ids = Set(frame.contacts.map(\.trackingID))
        stuck = stuck.filter { $0.device != frame.device || ids.contains($0.trackingID) }
        for p in frame.contacts {
            let panel = raw?.contacts.first { $0.slot == p.slot }?.position ?? transform.panelPosition(ofGame: p.position)
            contacts.append(Contact(device: frame.device, slot: p.slot, trackingID: p.trackingID, game: p.position,
                                    panel: panel, pressure: p.pressure,
                                    stuck: stuck.contains(ContactID(device: frame.device, trackingID: p.trackingID))))
            let point = TrailPoint(time: frame.time, position: p.position)
            if let i = trails.firstIndex(where: { $0.device == frame.device && $0.trackingID == p.trackingID }) {
                if trails[i].points.last?.position != p.position { trails[i].points.append(point) }
            } else {
                trails.append(Trail(device: frame.device, slot: p.slot, trackingID: p.trackingID, points: [point]))
            }
        }
        contacts.sort { ($0.device, $0.slot) < ($1.device, $1.slot) }
    }

    /// Lets time pass: long presses fire, old trail points and gestures go.
    public mutating func advance(to time: TimeStamp) {
        var gestures: [Gesture] = []
        recognizer.advance(to: time) { gestures.append($0) }
        note(gestures)
        prune(at: time)
    }

    /// A device went away or lost events: its contacts are gone (their gestures cancelled).
    public mutating func cancel(device: Int, at time: TimeStamp) {
        var gestures: [Gesture] = []
        recognizer.cancelAll(device: device, at: time) { gestures.append($0) }
        note(gestures)
        contacts.removeAll { $0.device == device }
        stuck = stuck.filter { $0.device != device }
    }

    /// The stuck-touch filter found this contact stuck: it is drawn in the stuck colour until
    /// it lifts.
    public mutating func markStuck(device: Int, trackingID: Int) {
        stuck.insert(ContactID(device: device, trackingID: trackingID))
        for i in contacts.indices where contacts[i].device == device && contacts[i].trackingID == trackingID {
            contacts[i].stuck = true
        }
    }

    /// When a long press is due without input (the loop arms a timer for it).
    public var nextDeadline: TimeStamp? { recognizer.nextDeadline }

    /// When the picture next changes by itself: a trail point expiring, a gesture fading (at
    /// the frame rate while it fades), or leaving the list; nil when nothing moves.
    public func nextChange(at time: TimeStamp, frame: Duration = .seconds(1) / 60) -> TimeStamp? {
        var due: [TimeStamp] = recentTrails(at: time).compactMap { $0.points.first.map { $0.time + Self.trail } }
        for g in gestures {
            let age = time - g.time
            if age < Self.gestureHold {
                due.append(g.time + Self.gestureHold)
            } else if age < Self.gestureHold + Self.gestureFade {
                due.append(time + frame)
            }
        }
        return due.filter { $0 > time }.min()
    }

    /// How strongly a gesture shows at `time`: 1, fading to 0 after `gestureHold`.
    public static func strength(of g: Gesture, at time: TimeStamp) -> Double {
        let age = time - g.time
        if age <= gestureHold { return 1 }
        return max(0, 1 - (age - gestureHold) / gestureFade)
    }

    /// The trails' points of the last second before `time`.
    public func recentTrails(at time: TimeStamp) -> [Trail] {
        let from = time - Self.trail
        return trails.compactMap { t in
            var t = t
            t.points.removeAll { $0.time <= from }
            return t.points.isEmpty ? nil : t
        }
    }

    private mutating func note(_ new: [Gesture]) {
        for g in new {
            switch g.kind {
            case .dragStart, .dragMove:
                continue
            case .swipe:
                // The drag's end just before it is the same lift: show the swipe alone.
                gestures.removeAll { $0.kind == .dragEnd && $0.device == g.device && $0.slot == g.slot && $0.time == g.time }
            default:
                break
            }
            gestures.append(g)
        }
        if gestures.count > Self.gesturesKept { gestures.removeFirst(gestures.count - Self.gesturesKept) }
    }

    private mutating func prune(at time: TimeStamp) {
        trails = recentTrails(at: time)
        gestures.removeAll { Self.strength(of: $0, at: time) <= 0 }
    }
}
