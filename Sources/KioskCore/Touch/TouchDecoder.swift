/// Turns the raw events of one touch device into `TouchFrame`s, one per `SYN_REPORT`.
///
/// The protocol follows from the device description: slots mean multi-touch protocol B,
/// multi-touch positions without slots mean protocol A, and `ABS_X`/`ABS_Y` with `BTN_TOUCH`
/// or `BTN_LEFT` mean a single-touch panel or an absolute pointer (QEMU's usb-tablet).
/// Positions are mapped to screen pixels the way libinput maps touchscreens:
/// `(value - min) * pixels / (max - min + 1)`.
public struct TouchDecoder: Sendable {
    private let device: TouchDeviceInfo
    private let screen: PixelSize
    private let deviceIndex: Int
    private var tracker: any ContactTracker
    /// Between `SYN_DROPPED` and the `SYN_REPORT` that closes the damaged frame.
    private var dropping = false
    /// The next frame must tell consumers to cancel what they had.
    private var resyncPending = false
    /// Whether the last frame handed out had contacts: what consumers believe is down.
    private var consumersSeeContacts = false
    /// Reports that listed more contacts than are tracked.
    private var overfullReports = RateLimitedLog()
    private var note: String?

    /// Contacts tracked at most: slots of a protocol B device, contacts of one protocol A report.
    /// No panel has this many; a report listing more (a broken driver or a crafted recording)
    /// keeps its first ones, so a flood of contacts costs bounded time and memory.
    public static let maximumContacts = 256

    /// A decoder for one device; `deviceIndex` goes into every frame's `device`.
    public init(device: TouchDeviceInfo, screen: PixelSize, deviceIndex: Int = 0) {
        self.device = device
        self.screen = screen
        self.deviceIndex = deviceIndex
        self.tracker = Self.makeTracker(device: device, screen: screen)
    }

    /// Takes one event; returns the frames it completes (none, one, or two when a contact
    /// came and went within a single report).
    public mutating func feed(_ event: InputEvent) -> [TouchFrame] {
        if event.type == EventCode.EV_SYN {
            switch event.code {
            case EventCode.SYN_DROPPED:
                // The kernel's buffer overflowed: what follows up to the next SYN_REPORT is a
                // fragment of a frame, and whatever was down may have changed unseen.
                dropping = true
                tracker.forgetContacts()
                return []
            case EventCode.SYN_REPORT:
                if dropping {
                    dropping = false
                    resyncPending = true
                    return []
                }
                return endFrame(at: event.time)
            default:
                break
            }
        }
        if !dropping { tracker.apply(event) }
        return []
    }

    /// The device is gone: returns a `resync` frame without contacts if any contact was down
    /// (so consumers cancel its gestures), and starts over as if newly created.
    public mutating func deviceRemoved(at time: TimeStamp) -> TouchFrame? {
        let wasDown = consumersSeeContacts
        tracker = Self.makeTracker(device: device, screen: screen)
        dropping = false
        resyncPending = false
        consumersSeeContacts = false
        return wasDown ? TouchFrame(time: time, device: deviceIndex, contacts: [], resync: true) : nil
    }

    /// A line for the log when reports listed more contacts than are tracked (the 1st, 2nd,
    /// 4th... such report), once; nil otherwise. The caller logs it with the device's name.
    public mutating func takeNote() -> String? {
        defer { note = nil }
        return note
    }

    private mutating func endFrame(at time: TimeStamp) -> [TouchFrame] {
        let result = tracker.endFrame()
        if result.dropped > 0 && overfullReports.note() {
            let n = overfullReports.count
            note = "a report listed \(Self.maximumContacts + result.dropped) contacts; kept the first \(Self.maximumContacts), "
                + "dropped the rest (\(n) such report\(n == 1 ? "" : "s") so far)"
        }
        var frames: [TouchFrame] = []
        if let passing = result.passing {
            frames.append(TouchFrame(time: time, device: deviceIndex, contacts: passing, resync: resyncPending))
            resyncPending = false
        }
        frames.append(TouchFrame(time: time, device: deviceIndex, contacts: result.contacts, resync: resyncPending))
        resyncPending = false
        consumersSeeContacts = !result.contacts.isEmpty
        return frames
    }

    /// The tracker for the device's protocol, as `TouchDeviceInfo.touchProtocol` classifies it
    /// (the one classification the evdev probe uses too).
    private static func makeTracker(device: TouchDeviceInfo, screen: PixelSize) -> any ContactTracker {
        // An axis without a range maps every touch to one spot: better no touches than wrong ones.
        if device.axisProblem != nil { return IdleTracker() }
        let axes = device.axes
        switch device.touchProtocol {
        case .multiTouchB?, .multiTouchA?:
            let mapping = ScreenMapping(x: axes[EventCode.ABS_MT_POSITION_X], y: axes[EventCode.ABS_MT_POSITION_Y],
                                        screen: screen)
            let pressure = axes[EventCode.ABS_MT_PRESSURE] != nil
            if let slotAxis = axes[EventCode.ABS_MT_SLOT] {
                return SlotTracker(mapping: mapping, slotAxis: slotAxis, reportsPressure: pressure)
            }
            return ReportTracker(mapping: mapping, button: device.touchButton, reportsPressure: pressure,
                                 screen: screen)
        case .singleTouch?, .absolutePointer?:
            return PointerTracker(mapping: ScreenMapping(x: axes[EventCode.ABS_X], y: axes[EventCode.ABS_Y], screen: screen),
                                  button: device.touchButton, reportsPressure: axes[EventCode.ABS_PRESSURE] != nil)
        case nil:
            // X/Y axes without a touch or left button: nothing says when a finger is down.
            return IdleTracker()
        }
    }
}

// MARK: - Shared pieces

/// What one `SYN_REPORT` produces.
struct FrameContacts {
    /// Contacts to show in an extra frame first, because one of them went down and up again
    /// inside this report and would otherwise never be seen.
    var passing: [TouchPoint]?
    /// Contacts down at the end of the report.
    var contacts: [TouchPoint]
    /// Contacts the report listed beyond `TouchDecoder.maximumContacts`, left out.
    var dropped = 0
}

/// The per-protocol state machine behind `TouchDecoder`.
protocol ContactTracker: Sendable {
    /// Applies one event of the current report (anything but `SYN_REPORT` and `SYN_DROPPED`).
    mutating func apply(_ event: InputEvent)
    /// Closes the current report.
    mutating func endFrame() -> FrameContacts
    /// Forgets the contacts after events were lost. Fingers still down stay unreported until
    /// they lift: a recording cannot tell their state, and a guess could leave a stuck touch.
    /// (Live input reads the device's state through libevdev and feeds it as a fresh frame.)
    mutating func forgetContacts()
}

/// Device units to pixels on one axis, libinput's way.
struct AxisMapping: Sendable {
    let minimum: Int64
    let span: Double
    let pixels: Double

    init(_ axis: AxisInfo?, pixels: Int) {
        // Without a range (a hand-built description) device units are taken as pixels.
        minimum = Int64(axis?.minimum ?? 0)
        let range = axis.map { Int64($0.maximum) - Int64($0.minimum) + 1 } ?? Int64(pixels)
        span = Double(max(range, 1))
        self.pixels = Double(pixels)
    }

    /// Clamped to the panel: devices report values outside their own range (the kernel does
    /// not check), and a touch off the screen would reach nothing but trouble.
    func map(_ value: Int32) -> Double { min(max(Double(Int64(value) - minimum) * pixels / span, 0), pixels) }
}

struct ScreenMapping: Sendable {
    let x: AxisMapping
    let y: AxisMapping

    init(x: AxisInfo?, y: AxisInfo?, screen: PixelSize) {
        self.x = AxisMapping(x, pixels: screen.width)
        self.y = AxisMapping(y, pixels: screen.height)
    }

    func point(_ x: Int32, _ y: Int32) -> Vector2 { Vector2(self.x.map(x), self.y.map(y)) }
}

/// A device with no usable axes: every frame is empty.
struct IdleTracker: ContactTracker {
    mutating func apply(_ event: InputEvent) {}
    mutating func endFrame() -> FrameContacts { FrameContacts(passing: nil, contacts: []) }
    mutating func forgetContacts() {}
}
