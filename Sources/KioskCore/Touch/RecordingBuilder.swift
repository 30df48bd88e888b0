/// Writes evemu recordings of a virtual protocol-B touchscreen: taps, swipes and drags given
/// in screen pixels and times from the recording's start.
///
/// The text is what `evemu-record` would write for such a device, so it serves tests, the
/// attract-mode demo (through `EvemuRecording` and `TouchDecoder`) and VM tests (through
/// `evemu-device` and `evemu-play`). Positions are converted to device units so that
/// `TouchDecoder` on a screen of the same size maps them back to within a pixel.
public struct RecordingBuilder: Sendable {
    /// The screen the positions are given for (and the decoder should map to).
    public let screen: PixelSize
    /// Largest device unit on both axes (the minimum is 0).
    public let axisMax: Int32
    /// Number of multi-touch slots the device offers.
    public let slots: Int
    /// Units per millimetre written into the axis descriptions (0: unknown).
    public let resolution: Int32

    private enum Sample: Sendable {
        case down(Vector2)
        case move(Vector2)
        case up
    }

    private struct Stroke: Sendable {
        var slot: Int
        /// Microseconds and what happens then, in time order.
        var samples: [(time: Int64, sample: Sample)]
    }

    private var strokes: [Stroke] = []

    /// Roughly how often a moving finger is sampled, like a 100 Hz panel.
    public static let sampleInterval = Duration.milliseconds(10)

    /// A builder for a `screen`-sized touchscreen with axes `0...axisMax` and `slots` slots.
    public init(screen: PixelSize, axisMax: Int32 = 4095, slots: Int = 10, resolution: Int32 = 0) {
        precondition(screen.width > 0 && screen.height > 0, "screen must not be empty")
        precondition(axisMax > 0, "axisMax must be positive")
        precondition(slots >= 1 && slots <= 64, "slots must be in 1...64")
        self.screen = screen
        self.axisMax = axisMax
        self.slots = slots
        self.resolution = resolution
    }

    /// A finger put down at `at` at `start` and lifted `hold` later without moving.
    public mutating func tap(at point: Vector2, start: Duration, hold: Duration = .milliseconds(60), slot: Int = 0) {
        let t0 = start.wholeMicroseconds
        add(Stroke(slot: slot, samples: [(t0, .down(point)), (t0 + Self.micros(hold), .up)]))
    }

    /// A flick: down at `from`, sampled about every 10 ms along a straight line, reaching `to`
    /// one sample before the lift, so the finger is still moving when it leaves the glass.
    /// `duration` runs from touch down to lift.
    public mutating func swipe(from: Vector2, to: Vector2, start: Duration, duration: Duration = .milliseconds(150), slot: Int = 0) {
        // At least two intervals: one to move, one to lift.
        let steps = max(2, Int((duration / Self.sampleInterval).rounded()))
        let t0 = start.wholeMicroseconds
        let total = Self.micros(duration)
        var samples: [(time: Int64, sample: Sample)] = [(t0, .down(from))]
        for k in 1..<steps {
            let f = Double(k) / Double(steps - 1)
            samples.append((t0 + total * Int64(k) / Int64(steps), .move(from + (to - from) * f)))
        }
        samples.append((t0 + total, .up))
        add(Stroke(slot: slot, samples: samples))
    }

    /// A drag: down at `from`, moving along a straight line to `to` over `duration` (sampled
    /// about every 10 ms), then held still for `pause` before the lift.
    public mutating func drag(from: Vector2, to: Vector2, start: Duration, duration: Duration = .milliseconds(400),
                              pause: Duration = .milliseconds(300), slot: Int = 0) {
        let steps = max(1, Int((duration / Self.sampleInterval).rounded()))
        let t0 = start.wholeMicroseconds
        let total = Self.micros(duration)
        var samples: [(time: Int64, sample: Sample)] = [(t0, .down(from))]
        for k in 1...steps {
            let f = Double(k) / Double(steps)
            samples.append((t0 + total * Int64(k) / Int64(steps), .move(from + (to - from) * f)))
        }
        samples.append((t0 + total + Self.micros(pause), .up))
        add(Stroke(slot: slot, samples: samples))
    }

    /// A contact resting at `point` from `start` for `duration`: with `wobble` it trembles
    /// round `point` by that many pixels, a report every `every`, as a resting finger or a
    /// drop of water does on a real panel; without, it sends nothing until the lift.
    public mutating func hold(at point: Vector2, start: Duration, duration: Duration, wobble: Double = 0,
                              every: Duration = .milliseconds(100), slot: Int = 0) {
        let t0 = start.wholeMicroseconds
        let total = Self.micros(duration)
        var samples: [(time: Int64, sample: Sample)] = [(t0, .down(point))]
        if wobble > 0 {
            let step = max(Self.micros(every), 1000)
            let offsets = [Vector2(wobble, 0), Vector2(0, wobble), Vector2(-wobble, 0), Vector2(0, -wobble)]
            var t = step, k = 0
            while t < total {
                samples.append((t0 + t, .move(point + offsets[k % offsets.count])))
                t += step
                k += 1
            }
        }
        samples.append((t0 + total, .up))
        add(Stroke(slot: slot, samples: samples))
    }

    private mutating func add(_ stroke: Stroke) {
        precondition(stroke.slot >= 0 && stroke.slot < slots, "slot \(stroke.slot) outside 0..<\(slots)")
        precondition(stroke.samples[0].time >= 0, "recordings start at time 0")
        strokes.append(stroke)
    }

    /// Whole microseconds of a span; a negative one counts as none.
    private static func micros(_ d: Duration) -> Int64 { max(d, .zero).wholeMicroseconds }

    /// Device units for a screen position: the inverse of the decoder's
    /// `value * pixels / (axisMax + 1)`, rounded, clamped to the axis.
    public func deviceUnits(_ point: Vector2) -> (x: Int32, y: Int32) {
        func units(_ pixel: Double, _ pixels: Int) -> Int32 {
            let v = (pixel * (Double(axisMax) + 1) / Double(pixels)).rounded()
            return Int32(min(max(v, 0), Double(axisMax)))
        }
        return (units(point.x, screen.width), units(point.y, screen.height))
    }

    // MARK: Events

    /// The events `text()` writes, in order.
    public func events() -> [InputEvent] {
        struct SlotState {
            var owner: Int?
            var trackingID = -1
            var x: Int32 = -1
            var y: Int32 = -1
        }
        // Every sample with where it came from; sorted by time, then slot, so each report
        // handles one slot at a time, the way drivers walk their slots.
        var all: [(time: Int64, slot: Int, stroke: Int, index: Int, sample: Sample)] = []
        for (s, stroke) in strokes.enumerated() {
            for (i, entry) in stroke.samples.enumerated() {
                all.append((entry.time, stroke.slot, s, i, entry.sample))
            }
        }
        all.sort { ($0.time, $0.slot, $0.stroke, $0.index) < ($1.time, $1.slot, $1.stroke, $1.index) }

        var out: [InputEvent] = []
        var state = [SlotState](repeating: SlotState(), count: slots)
        var currentSlot = -1  // unknown: the first report always names its slot
        var nextTrackingID = 0
        var touching = false
        var pointer: (x: Int32, y: Int32)?
        var i = 0
        while i < all.count {
            let time = TimeStamp(microseconds: all[i].time)
            let reportStart = out.count
            func emit(_ type: UInt16, _ code: UInt16, _ value: Int32) {
                out.append(InputEvent(time: time, type: type, code: code, value: value))
            }
            func select(_ slot: Int) {
                if slot != currentSlot {
                    emit(EventCode.EV_ABS, EventCode.ABS_MT_SLOT, Int32(slot))
                    currentSlot = slot
                }
            }
            while i < all.count && all[i].time == time.microseconds {
                let entry = all[i]
                i += 1
                let s = entry.slot
                switch entry.sample {
                case .down(let p):
                    // A later stroke in a busy slot takes it over, as a new tracking id would on
                    // real hardware; the earlier stroke's remaining samples are dropped.
                    let (x, y) = deviceUnits(p)
                    select(s)
                    state[s] = SlotState(owner: entry.stroke, trackingID: nextTrackingID, x: x, y: y)
                    emit(EventCode.EV_ABS, EventCode.ABS_MT_TRACKING_ID, Int32(nextTrackingID))
                    nextTrackingID = (nextTrackingID + 1) & 0xFFFF
                    // Always sent on touch down, so the recording does not depend on values
                    // left in the slot by an earlier replay.
                    emit(EventCode.EV_ABS, EventCode.ABS_MT_POSITION_X, x)
                    emit(EventCode.EV_ABS, EventCode.ABS_MT_POSITION_Y, y)
                case .move(let p):
                    guard state[s].owner == entry.stroke else { continue }
                    let (x, y) = deviceUnits(p)
                    if x != state[s].x {
                        select(s)
                        emit(EventCode.EV_ABS, EventCode.ABS_MT_POSITION_X, x)
                        state[s].x = x
                    }
                    if y != state[s].y {
                        select(s)
                        emit(EventCode.EV_ABS, EventCode.ABS_MT_POSITION_Y, y)
                        state[s].y = y
                    }
                case .up:
                    guard state[s].owner == entry.stroke else { continue }
                    select(s)
                    emit(EventCode.EV_ABS, EventCode.ABS_MT_TRACKING_ID, -1)
                    state[s] = SlotState(owner: nil, trackingID: -1, x: state[s].x, y: state[s].y)
                }
            }
            // Single-touch emulation as the kernel's input_mt does it: BTN_TOUCH while any
            // contact is down, ABS_X/ABS_Y following the oldest contact.
            let active = state.filter { $0.owner != nil }
            if !active.isEmpty != touching {
                touching.toggle()
                emit(EventCode.EV_KEY, EventCode.BTN_TOUCH, touching ? 1 : 0)
            }
            if let oldest = active.min(by: { Self.age($0.trackingID, nextTrackingID) > Self.age($1.trackingID, nextTrackingID) }) {
                if pointer?.x != oldest.x { emit(EventCode.EV_ABS, EventCode.ABS_X, oldest.x) }
                if pointer?.y != oldest.y { emit(EventCode.EV_ABS, EventCode.ABS_Y, oldest.y) }
                pointer = (oldest.x, oldest.y)
            }
            // Like the kernel, no report when nothing changed (a finger held still).
            if out.count > reportStart { emit(EventCode.EV_SYN, EventCode.SYN_REPORT, 0) }
        }
        return out
    }

    /// How many ids were handed out after `id`, allowing for the 16-bit wrap.
    private static func age(_ id: Int, _ next: Int) -> Int { (next - id + 0x10000) & 0xFFFF }

    // MARK: Text

    /// The whole recording: `header` followed by one `E:` line per event.
    public func text() -> String {
        var text = header
        text += "################################\n"
        text += "#      Waiting for events      #\n"
        text += "################################\n"
        var lastReport: Int64?
        for event in events() {
            text += Self.eventLine(event, sinceLastReport: &lastReport)
        }
        return text
    }

    /// The device description of this builder's touchscreen.
    public var header: String {
        Self.deviceHeader(screen: screen, axisMax: axisMax, slots: slots, resolution: resolution)
    }

    /// The device description with the default axes (0...4095) and 10 slots.
    public static let deviceHeader: String = deviceHeader(screen: nil, axisMax: 4095, slots: 10, resolution: 0)

    /// A format 1.3 description of a direct (INPUT_PROP_DIRECT) protocol-B touchscreen that
    /// `evemu-device` can create: slots, tracking ids, MT and single-touch positions, BTN_TOUCH.
    public static func deviceHeader(screen: PixelSize? = nil, axisMax: Int32, slots: Int, resolution: Int32) -> String {
        let name = "bubble-kiosk virtual touchscreen"
        var h = "# EVEMU 1.3\n"
        h += "# Written by bubble-kiosk's RecordingBuilder, not recorded from hardware.\n"
        h += "# Input device name: \"\(name)\"\n"
        if let screen {
            h += "# Meant for a \(screen) screen: device units map to its pixels.\n"
        }
        h += "# Protocol B, \(slots) slots, axes 0...\(axisMax), resolution \(resolution) units/mm\n"
        h += "N: \(name)\n"
        // Bus 0x06 is BUS_VIRTUAL; the ids are arbitrary.
        h += "I: 0006 0000 0000 0001\n"
        h += "P: " + hexBytes(mask(bits: [EventCode.INPUT_PROP_DIRECT], bytes: 8)) + "\n"
        h += "B: 00 0b 00 00 00 00 00 00 00\n"
        // Every event type evemu writes, with the key mask over KEY_MAX (0x2ff) like evemu-record.
        let keys = mask(bits: [Int(EventCode.BTN_TOUCH)], bytes: 96)
        for line in 0..<12 {
            h += "B: 01 " + hexBytes(Array(keys[(line * 8)..<(line * 8 + 8)])) + "\n"
        }
        h += "B: 02 00 00 00 00 00 00 00 00\n"
        let absCodes = [EventCode.ABS_X, EventCode.ABS_Y, EventCode.ABS_MT_SLOT, EventCode.ABS_MT_POSITION_X,
                        EventCode.ABS_MT_POSITION_Y, EventCode.ABS_MT_TRACKING_ID]
        h += "B: 03 " + hexBytes(mask(bits: absCodes.map { Int($0) }, bytes: 8)) + "\n"
        for type in ["04", "05", "11", "12", "14", "15", "15"] {
            h += "B: \(type) 00 00 00 00 00 00 00 00\n"
        }
        let axes: [(UInt16, Int32, Int32)] = [
            (EventCode.ABS_X, axisMax, resolution),
            (EventCode.ABS_Y, axisMax, resolution),
            (EventCode.ABS_MT_SLOT, Int32(slots - 1), 0),
            (EventCode.ABS_MT_POSITION_X, axisMax, resolution),
            (EventCode.ABS_MT_POSITION_Y, axisMax, resolution),
            (EventCode.ABS_MT_TRACKING_ID, 65535, 0),
        ]
        for (code, maximum, res) in axes {
            h += "A: \(NumberText.hex(code, digits: 2)) 0 \(maximum) 0 0 \(res)\n"
        }
        return h
    }

    private static func mask(bits: [Int], bytes: Int) -> [Int] {
        var m = [Int](repeating: 0, count: bytes)
        for bit in bits { m[bit / 8] |= 1 << (bit % 8) }
        return m
    }

    private static func hexBytes(_ bytes: [Int]) -> String {
        bytes.map { NumberText.hex($0, digits: 2) }.joined(separator: " ")
    }


    /// One `E:` line as evemu writes it: `%lu.%06u %04x %04x %04d`, a tab and a description.
    static func eventLine(_ event: InputEvent, sinceLastReport last: inout Int64?) -> String {
        let us = event.time.microseconds
        let fraction = String(us % 1_000_000)
        var line = "E: \(us / 1_000_000).\(String(repeating: "0", count: 6 - fraction.count))\(fraction)"
        line += " \(NumberText.hex(event.type, digits: 4)) \(NumberText.hex(event.code, digits: 4)) \(paddedValue(event.value))\t"
        if event.type == EventCode.EV_SYN && event.code == EventCode.SYN_REPORT {
            let gap = last.map { (us - $0) / 1000 } ?? 0
            line += "# ------------ SYN_REPORT (0) ---------- +\(gap)ms\n"
            last = us
        } else {
            line += "# \(typeName(event.type)) / \(codeName(event)) \(event.value)\n"
        }
        return line
    }

    /// `%04d`: at least four characters, zero-padded after the sign (`-001`, `0042`).
    static func paddedValue(_ value: Int32) -> String {
        let digits = String(value.magnitude)
        let width = value < 0 ? 3 : 4
        return (value < 0 ? "-" : "") + String(repeating: "0", count: max(0, width - digits.count)) + digits
    }

    private static func typeName(_ type: UInt16) -> String {
        switch type {
        case EventCode.EV_SYN: return "EV_SYN"
        case EventCode.EV_KEY: return "EV_KEY"
        case EventCode.EV_ABS: return "EV_ABS"
        default: return "type \(type)"
        }
    }

    private static func codeName(_ event: InputEvent) -> String {
        let names: [UInt16: String]
        switch event.type {
        case EventCode.EV_KEY: names = [EventCode.BTN_TOUCH: "BTN_TOUCH"]
        case EventCode.EV_ABS:
            names = [EventCode.ABS_X: "ABS_X", EventCode.ABS_Y: "ABS_Y", EventCode.ABS_MT_SLOT: "ABS_MT_SLOT",
                     EventCode.ABS_MT_POSITION_X: "ABS_MT_POSITION_X", EventCode.ABS_MT_POSITION_Y: "ABS_MT_POSITION_Y",
                     EventCode.ABS_MT_TRACKING_ID: "ABS_MT_TRACKING_ID"]
        default: names = [:]
        }
        let name = names[event.code] ?? "code \(event.code)"
        return name.padding(to: 20)
    }
}

private extension String {
    func padding(to width: Int) -> String {
        count >= width ? self : self + String(repeating: " ", count: width - count)
    }
}
