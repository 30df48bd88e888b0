// The per-protocol state machines behind `TouchDecoder`: slots (protocol B), reports
// (protocol A) and single-touch panels or absolute pointers.

// MARK: - Protocol B

/// Multi-touch protocol B: the kernel keeps per-slot state and sends only what changed.
struct SlotTracker: ContactTracker {
    struct Slot {
        var trackingID = -1
        // Values persist across contacts: the kernel does not resend an unchanged value when a
        // new contact starts in the same slot.
        var x: Int32 = 0
        var y: Int32 = 0
        var pressure: Int32?
    }

    let mapping: ScreenMapping
    let reportsPressure: Bool
    var slots: [Slot]
    /// The slot later events refer to; nil after an out-of-range `ABS_MT_SLOT`, so its events
    /// are dropped rather than written into some other finger's slot.
    var current: Int? = 0
    /// Slots whose contact began in the current report.
    var startedInFrame = Set<Int>()
    /// Contacts that began and ended inside the current report, by slot.
    var passing: [Int: TouchPoint] = [:]

    init(mapping: ScreenMapping, slotAxis: AxisInfo, reportsPressure: Bool) {
        self.mapping = mapping
        self.reportsPressure = reportsPressure
        // Cap the count so a bogus descriptor cannot make us allocate millions of slots.
        let count = min(max(Int(slotAxis.maximum) + 1, 1), TouchDecoder.maximumContacts)
        slots = Array(repeating: Slot(), count: count)
    }

    mutating func apply(_ event: InputEvent) {
        guard event.type == EventCode.EV_ABS else { return }
        if event.code == EventCode.ABS_MT_SLOT {
            current = slots.indices.contains(Int(event.value)) ? Int(event.value) : nil
            return
        }
        guard let s = current else { return }
        switch event.code {
        case EventCode.ABS_MT_TRACKING_ID: setTrackingID(Int(event.value), slot: s)
        case EventCode.ABS_MT_POSITION_X: slots[s].x = event.value
        case EventCode.ABS_MT_POSITION_Y: slots[s].y = event.value
        case EventCode.ABS_MT_PRESSURE: slots[s].pressure = event.value
        default: break
        }
    }

    mutating func setTrackingID(_ value: Int, slot s: Int) {
        let new = max(value, -1)
        let old = slots[s].trackingID
        guard new != old else { return }
        // -1 ends the contact; another id ends it too and starts a new one in the same slot.
        if old >= 0 && startedInFrame.contains(s) { passing[s] = point(s) }
        if new >= 0 { startedInFrame.insert(s) } else { startedInFrame.remove(s) }
        slots[s].trackingID = new
    }

    func point(_ s: Int) -> TouchPoint {
        let slot = slots[s]
        return TouchPoint(slot: s, trackingID: slot.trackingID, position: mapping.point(slot.x, slot.y),
                          pressure: reportsPressure ? slot.pressure.map { Int($0) } : nil)
    }

    mutating func endFrame() -> FrameContacts {
        let now = slots.indices.filter { slots[$0].trackingID >= 0 }.map { point($0) }
        var shown: [TouchPoint]?
        if !passing.isEmpty {
            var bySlot = passing
            for p in now where bySlot[p.slot] == nil { bySlot[p.slot] = p }
            shown = bySlot.values.sorted { $0.slot < $1.slot }
        }
        passing = [:]
        startedInFrame = []
        return FrameContacts(passing: shown, contacts: now)
    }

    mutating func forgetContacts() {
        // The current slot is kept: the kernel only resends ABS_MT_SLOT when the slot changes,
        // so dropping it would lose every later event of a one-finger device.
        for i in slots.indices { slots[i].trackingID = -1 }
        startedInFrame = []
        passing = [:]
    }
}

// MARK: - Protocol A

/// Multi-touch protocol A: every report lists all contacts, each closed by `SYN_MT_REPORT`,
/// with no identity; we give them stable slots and ids.
struct ReportTracker: ContactTracker {
    struct Report {
        var x: Int32 = 0
        var y: Int32 = 0
        var pressure: Int32?
        var trackingID: Int32?
    }

    struct Contact {
        var point: TouchPoint
        /// The device's own tracking id, if it sends one.
        var deviceID: Int32?
    }

    let mapping: ScreenMapping
    let button: UInt16
    let reportsPressure: Bool
    /// Farther than this between two reports is another finger, not the same one moving:
    /// a finger lifted and another put down elsewhere must not become one jumping contact.
    let maxJump: Double

    var pending = Report()
    var pendingHasData = false
    /// At most `TouchDecoder.maximumContacts`: a report listing thousands would make matching
    /// (and memory) grow with their square.
    var reports: [Report] = []
    /// Contacts of the current report beyond the cap, dropped.
    var droppedInReport = 0
    var sawEmptyReport = false
    /// `BTN_TOUCH` as last seen; nil when unknown (no event yet, or lost in a drop).
    var buttonDown: Bool?
    var releasedInFrame = false
    var contacts: [Contact] = []
    var nextID = 1

    init(mapping: ScreenMapping, button: UInt16, reportsPressure: Bool, screen: PixelSize) {
        self.mapping = mapping
        self.button = button
        self.reportsPressure = reportsPressure
        maxJump = Double(max(screen.width, screen.height)) / 4
    }

    mutating func apply(_ event: InputEvent) {
        switch (event.type, event.code) {
        case (EventCode.EV_SYN, EventCode.SYN_MT_REPORT):
            if pendingHasData { keep(pending) } else { sawEmptyReport = true }
            pendingHasData = false
            // Coordinates carry over as a fallback for a contact that omits one; ids do not.
            pending.trackingID = nil
        case (EventCode.EV_KEY, button):
            buttonDown = event.value != 0
            if event.value == 0 { releasedInFrame = true }
        case (EventCode.EV_ABS, EventCode.ABS_MT_POSITION_X):
            pending.x = event.value
            pendingHasData = true
        case (EventCode.EV_ABS, EventCode.ABS_MT_POSITION_Y):
            pending.y = event.value
            pendingHasData = true
        case (EventCode.EV_ABS, EventCode.ABS_MT_PRESSURE):
            pending.pressure = event.value
            pendingHasData = true
        case (EventCode.EV_ABS, EventCode.ABS_MT_TRACKING_ID):
            if event.value >= 0 {
                pending.trackingID = event.value
                pendingHasData = true
            }
        default:
            break
        }
    }

    /// Adds a contact to the current report, or counts it as dropped past the cap.
    mutating func keep(_ report: Report) {
        if reports.count < TouchDecoder.maximumContacts { reports.append(report) } else { droppedInReport += 1 }
    }

    mutating func endFrame() -> FrameContacts {
        // Some drivers leave out the SYN_MT_REPORT after the last contact.
        if pendingHasData { keep(pending) }
        let dropped = droppedInReport
        defer {
            pendingHasData = false
            pending.trackingID = nil
            reports = []
            droppedInReport = 0
            sawEmptyReport = false
            releasedInFrame = false
        }
        if releasedInFrame && buttonDown == false {
            // Lifted in this report. Contacts reported alongside the release are shown first
            // (where they were last, or a touch that came and went inside this report), then none:
            // panels that end a touch only with BTN_TOUCH 0 must not leave it stuck.
            let last = reports.isEmpty ? nil : match(reports).map(\.point)
            contacts = []
            return FrameContacts(passing: last, contacts: [], dropped: dropped)
        }
        if releasedInFrame {
            // Lifted and put down again inside one report: these are new fingers.
            contacts = []
        }
        if !reports.isEmpty {
            contacts = match(reports)
        } else if sawEmptyReport || buttonDown == false {
            contacts = []
        }
        // Otherwise the report carried no multi-touch data (some panels send button or
        // pointer-emulation-only reports while held): the fingers stay where they were.
        return FrameContacts(passing: nil, contacts: contacts.map(\.point), dropped: dropped)
    }

    /// Gives this report's contacts the slots and ids of the previous report's: by the
    /// device's tracking id where it sends one, else by nearest position. Both sides are at most
    /// `TouchDecoder.maximumContacts`, and nothing here is worse than their product.
    mutating func match(_ reports: [Report]) -> [Contact] {
        var result = [Contact?](repeating: nil, count: reports.count)
        var unused = [Bool](repeating: true, count: contacts.count)

        var byDeviceID: [Int32: Int] = [:]
        for (p, c) in contacts.enumerated() {
            if let id = c.deviceID, byDeviceID[id] == nil { byDeviceID[id] = p }
        }
        for (r, report) in reports.enumerated() {
            guard let id = report.trackingID, let p = byDeviceID[id], unused[p] else { continue }
            result[r] = moved(contacts[p], to: report)
            unused[p] = false
        }

        let open = reports.indices.filter { reports[$0].trackingID == nil }
        let candidates = contacts.indices.filter { unused[$0] && contacts[$0].deviceID == nil }
        if open.count * candidates.count <= Self.exactMatchingPairs {
            var pairs: [(distance: Double, previous: Int, report: Int)] = []
            for r in open {
                let position = mapping.point(reports[r].x, reports[r].y)
                for p in candidates {
                    let d = position.distance(to: contacts[p].point.position)
                    if d <= maxJump { pairs.append((d, p, r)) }
                }
            }
            // Closest pairs first; ties broken by index so the result is deterministic.
            pairs.sort { ($0.distance, $0.previous, $0.report) < ($1.distance, $1.previous, $1.report) }
            for pair in pairs where result[pair.report] == nil && unused[pair.previous] {
                result[pair.report] = moved(contacts[pair.previous], to: reports[pair.report])
                unused[pair.previous] = false
            }
        } else {
            // More fingers than any real panel has: each in turn takes the nearest left, without
            // building and sorting every pair.
            for r in open {
                let position = mapping.point(reports[r].x, reports[r].y)
                var best: (distance: Double, previous: Int)?
                for p in candidates where unused[p] {
                    let d = position.distance(to: contacts[p].point.position)
                    if d <= maxJump && d < (best?.distance ?? .infinity) { best = (d, p) }
                }
                if let best {
                    result[r] = moved(contacts[best.previous], to: reports[r])
                    unused[best.previous] = false
                }
            }
        }

        // Slots stay below the cap: matched ones came from an earlier report of at most as many.
        var usedSlots = [Bool](repeating: false, count: max(reports.count, contacts.count, 1))
        for c in result { if let s = c?.point.slot, usedSlots.indices.contains(s) { usedSlots[s] = true } }
        var slot = 0
        for r in reports.indices where result[r] == nil {
            while slot < usedSlots.count && usedSlots[slot] { slot += 1 }
            if slot < usedSlots.count { usedSlots[slot] = true }
            let point = TouchPoint(slot: slot, trackingID: nextID, position: .zero)
            slot += 1
            nextID += 1
            result[r] = moved(Contact(point: point, deviceID: reports[r].trackingID), to: reports[r])
        }
        return result.compactMap { $0 }.sorted { $0.point.slot < $1.point.slot }
    }

    /// Up to this many (new, previous) pairs are all compared and matched closest first; past it
    /// (more than 32 fingers each side) each new contact takes the nearest previous one in turn.
    static let exactMatchingPairs = 1024

    func moved(_ contact: Contact, to report: Report) -> Contact {
        var c = contact
        c.point.position = mapping.point(report.x, report.y)
        c.point.pressure = reportsPressure ? report.pressure.map { Int($0) } : nil
        return c
    }

    mutating func forgetContacts() {
        contacts = []
        buttonDown = nil
        pendingHasData = false
        pending.trackingID = nil
        reports = []
        droppedInReport = 0
        sawEmptyReport = false
        releasedInFrame = false
    }
}

// MARK: - Single touch

/// One contact from `ABS_X`/`ABS_Y` and a button: single-touch panels (`BTN_TOUCH`) and
/// absolute pointers (`BTN_LEFT`). Always slot 0, with a fresh tracking id per press.
struct PointerTracker: ContactTracker {
    let mapping: ScreenMapping
    let button: UInt16
    let reportsPressure: Bool
    // Kept between presses: the kernel does not resend unchanged coordinates.
    var x: Int32 = 0
    var y: Int32 = 0
    var pressure: Int32?
    var down = false
    var trackingID = 0
    var nextID = 1
    var pressedInFrame = false
    /// A press released inside the same report, as it was at the release.
    var passing: TouchPoint?

    init(mapping: ScreenMapping, button: UInt16, reportsPressure: Bool) {
        self.mapping = mapping
        self.button = button
        self.reportsPressure = reportsPressure
    }

    mutating func apply(_ event: InputEvent) {
        switch (event.type, event.code) {
        case (EventCode.EV_KEY, button):
            if event.value != 0 {
                guard !down else { return }  // autorepeat (value 2) is not a new press
                down = true
                trackingID = nextID
                nextID += 1
                pressedInFrame = true
            } else if down {
                down = false
                // Drivers send the release before resetting pressure: keep what the touch was.
                if pressedInFrame { passing = point(trackingID) }
                pressedInFrame = false
            }
        case (EventCode.EV_ABS, EventCode.ABS_X): x = event.value
        case (EventCode.EV_ABS, EventCode.ABS_Y): y = event.value
        case (EventCode.EV_ABS, EventCode.ABS_PRESSURE): pressure = event.value
        default: break
        }
    }

    func point(_ id: Int) -> TouchPoint {
        TouchPoint(slot: 0, trackingID: id, position: mapping.point(x, y),
                   pressure: reportsPressure ? pressure.map { Int($0) } : nil)
    }

    mutating func endFrame() -> FrameContacts {
        let result = FrameContacts(passing: passing.map { [$0] }, contacts: down ? [point(trackingID)] : [])
        passing = nil
        pressedInFrame = false
        return result
    }

    mutating func forgetContacts() {
        // A press after this is a real new press (the kernel never repeats BTN_TOUCH 1), and a
        // release of a finger held through the drop finds nothing down: no stuck touch.
        down = false
        pressedInFrame = false
        passing = nil
    }
}
