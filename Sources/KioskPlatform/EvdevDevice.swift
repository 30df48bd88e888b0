internal import CEvdev
import Glibc
import KioskCore

/// One open `/dev/input/event*` node and its libevdev handle; both are released in `deinit`.
///
/// Reading translates libevdev's resynchronisation after `SYN_DROPPED` into the event stream
/// `TouchDecoder` understands, so a decoder fed from here never needs to know about libevdev.
public final class EvdevDevice {
    public let path: String
    /// The event node, closed with the device (after libevdev lets go of it).
    public let descriptor: FileDescriptor
    /// The node's number for polling and C calls, while the device lives.
    var fd: Int32 { descriptor.rawValue }
    public let info: TouchDeviceInfo
    public let id: InputDeviceID
    /// Event types (`EV_*`) the device reports; the device report shows relative axes from it.
    public let eventTypes: Set<UInt16>
    private let handle: OpaquePointer

    /// Opens `path` read-only and non-blocking and reads its capabilities.
    /// Throws `SystemError` (errno EACCES for missing permissions, ENOENT/ENODEV when it vanished).
    public init(path: String) throws {
        let descriptor = try FileDescriptor.open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        var handle: OpaquePointer?
        let rc = libevdev_new_from_fd(descriptor.rawValue, &handle)
        guard rc == 0, let handle else { throw SystemError("libevdev_new_from_fd", path, errno: -rc) }
        self.path = path
        self.descriptor = descriptor
        self.handle = handle
        id = InputDeviceID(bus: UInt16(truncatingIfNeeded: libevdev_get_id_bustype(handle)),
                           vendor: UInt16(truncatingIfNeeded: libevdev_get_id_vendor(handle)),
                           product: UInt16(truncatingIfNeeded: libevdev_get_id_product(handle)),
                           version: UInt16(truncatingIfNeeded: libevdev_get_id_version(handle)))
        eventTypes = Set((0...UInt16(EV_MAX)).filter { libevdev_has_event_type(handle, UInt32($0)) != 0 })
        info = Self.readInfo(handle)
    }

    deinit {
        libevdev_free(handle)
    }

    private static func readInfo(_ h: OpaquePointer) -> TouchDeviceInfo {
        var axes: [UInt16: AxisInfo] = [:]
        for code in 0...UInt16(ABS_MAX) where libevdev_has_event_code(h, UInt32(EV_ABS), UInt32(code)) != 0 {
            guard let a = libevdev_get_abs_info(h, UInt32(code))?.pointee else { continue }
            axes[code] = AxisInfo(minimum: a.minimum, maximum: a.maximum, fuzz: a.fuzz, flat: a.flat,
                                  resolution: a.resolution)
        }
        let keys = (0...UInt16(KEY_MAX)).filter { libevdev_has_event_code(h, UInt32(EV_KEY), UInt32($0)) != 0 }
        let properties = (0...Int(INPUT_PROP_MAX)).filter { libevdev_has_property(h, UInt32($0)) != 0 }
        return TouchDeviceInfo(name: String(cString: libevdev_get_name(h)), axes: axes, keys: Set(keys),
                               properties: Set(properties))
    }

    /// Makes event timestamps use CLOCK_MONOTONIC, the event loop's clock (`EventLoop.now()`),
    /// so latency and gesture timing compare like with like.
    public func useMonotonicClock() throws {
        let rc = libevdev_set_clock_id(handle, CLOCK_MONOTONIC)
        if rc != 0 { throw SystemError("libevdev_set_clock_id", path, errno: -rc) }
    }

    /// Takes the device for this process alone (`EVIOCGRAB`): the console and other programs stop
    /// seeing its events. EBUSY when another process has grabbed it.
    public func grab() throws {
        let rc = libevdev_grab(handle, LIBEVDEV_GRAB)
        if rc != 0 { throw SystemError("libevdev_grab", path, errno: -rc) }
    }

    /// Everything readable now, for `TouchDecoder`; `error` is set when the device failed
    /// (ENODEV: unplugged) and must be closed.
    ///
    /// After a `SYN_DROPPED` the list holds the `SYN_DROPPED`, a `SYN_REPORT` that ends the damaged
    /// frame (the decoder then flags its next frame `resync`), and the device's whole current
    /// state as one frame. libevdev's own sync events are only deltas against state the decoder
    /// has just forgotten, so they are read (which updates libevdev) but not passed on.
    public func readAvailable() -> (events: [InputEvent], error: SystemError?) {
        var events: [InputEvent] = []
        var ev = input_event()
        while true {
            let rc = Self.nextEvent(handle, LIBEVDEV_READ_FLAG_NORMAL, &ev)
            if rc == LIBEVDEV_READ_STATUS_SUCCESS.rawValue {
                events.append(Self.event(ev))
            } else if rc == LIBEVDEV_READ_STATUS_SYNC.rawValue {
                let dropped = Self.event(ev)
                let synced = finishSync() ?? dropped.time
                events += Self.resynchronisation(dropped: dropped, state: currentState(at: synced))
            } else if rc == -EAGAIN {
                return (events, nil)
            } else {
                return (events, SystemError("libevdev_next_event", path, errno: -rc))
            }
        }
    }

    /// Reads libevdev's sync events to the end; returns the time of the last one.
    private func finishSync() -> TimeStamp? {
        var ev = input_event()
        var last: TimeStamp?
        // -EAGAIN ends it. An error (unplugged mid-sync) shows again on the next normal read.
        while Self.nextEvent(handle, LIBEVDEV_READ_FLAG_SYNC, &ev) == LIBEVDEV_READ_STATUS_SYNC.rawValue {
            last = Self.event(ev).time
        }
        return last
    }

    /// libevdev_next_event, repeated while a signal interrupts it (libevdev returns -EINTR).
    private static func nextEvent(_ handle: OpaquePointer, _ flag: libevdev_read_flag, _ ev: inout input_event) -> Int32 {
        retrying(whileInterrupted: { $0 == -EINTR }) { libevdev_next_event(handle, flag.rawValue, &ev) }
    }

    /// Drains what is queued now and returns the device's whole state as one frame: used right
    /// after opening, since fingers already down would otherwise never announce themselves.
    public func initialState() -> (events: [InputEvent], error: SystemError?) {
        let (events, error) = readAvailable()
        let time = events.last?.time ?? EventLoop.now()
        return (currentState(at: time), error)
    }

    /// The state libevdev holds, as one frame of events (see `stateEvents`).
    private func currentState(at time: TimeStamp) -> [InputEvent] {
        let h = handle
        return Self.stateEvents(info: info, slots: Int(libevdev_get_num_slots(h)),
                                currentSlot: libevdev_get_current_slot(h), at: time,
                                slotValue: { libevdev_get_slot_value(h, UInt32($0), UInt32($1)) },
                                value: { libevdev_get_event_value(h, UInt32($0), UInt32($1)) })
    }

    /// A device's whole state as events ending in `SYN_REPORT`: every slot (its tracking id
    /// last, so the position is in place when the contact starts), then the current slot, the
    /// other absolute axes and every key. Protocol A has no state to ask for: its next report
    /// lists every contact anyway.
    /// - Parameters:
    ///   - slotValue: the value of an `ABS_MT_*` code in a slot.
    ///   - value: the value of an event type and code (`EV_ABS`, `EV_KEY`).
    static func stateEvents(info: TouchDeviceInfo, slots: Int, currentSlot: Int32, at time: TimeStamp,
                            slotValue: (Int, UInt16) -> Int32, value: (UInt16, UInt16) -> Int32) -> [InputEvent] {
        func abs(_ code: UInt16, _ v: Int32) -> InputEvent {
            InputEvent(time: time, type: EventCode.EV_ABS, code: code, value: v)
        }
        var events: [InputEvent] = []
        if info.hasSlots && slots > 0 {
            let perSlot = info.axes.keys.filter { $0 > EventCode.ABS_MT_SLOT && $0 != EventCode.ABS_MT_TRACKING_ID }.sorted()
            for slot in 0..<slots {
                events.append(abs(EventCode.ABS_MT_SLOT, Int32(slot)))
                for code in perSlot { events.append(abs(code, slotValue(slot, code))) }
                events.append(abs(EventCode.ABS_MT_TRACKING_ID, slotValue(slot, EventCode.ABS_MT_TRACKING_ID)))
            }
            events.append(abs(EventCode.ABS_MT_SLOT, currentSlot))
        }
        for code in info.axes.keys.sorted() where code < EventCode.ABS_MT_SLOT {
            events.append(abs(code, value(EventCode.EV_ABS, code)))
        }
        for key in info.keys.sorted() {
            events.append(InputEvent(time: time, type: EventCode.EV_KEY, code: key, value: value(EventCode.EV_KEY, key)))
        }
        events.append(InputEvent(time: time, type: EventCode.EV_SYN, code: EventCode.SYN_REPORT, value: 0))
        return events
    }

    /// What `readAvailable` passes on for a `SYN_DROPPED`: the drop, a `SYN_REPORT` closing the
    /// damaged frame, then the state, so the decoder's next frame is the true state with `resync`.
    static func resynchronisation(dropped: InputEvent, state: [InputEvent]) -> [InputEvent] {
        [dropped, InputEvent(time: dropped.time, type: EventCode.EV_SYN, code: EventCode.SYN_REPORT, value: 0)] + state
    }

    private static func event(_ ev: input_event) -> InputEvent {
        var ev = ev
        return InputEvent(time: TimeStamp(microseconds: CEvdev_event_time_us(&ev)), type: ev.type, code: ev.code,
                          value: ev.value)
    }

    /// The `eventN` nodes of `directory`, in number order (`event2` before `event10`).
    public static func nodes(in directory: String = "/dev/input") -> [String] {
        let names = (try? FileSystem.listDirectory(directory)) ?? []
        return names.compactMap { name in eventNumber(name).map { (name, $0) } }
            .sorted { $0.1 < $1.1 }
            .map { "\(directory)/\($0.0)" }
    }

    /// N of an `eventN` name; nil for anything else (`mice`, `by-id`, `js0`).
    public static func eventNumber(_ name: String) -> Int? {
        guard name.hasPrefix("event") else { return nil }
        let digits = name.dropFirst(5)
        guard !digits.isEmpty, digits.allSatisfy(\.isASCII), digits.allSatisfy(\.isNumber) else { return nil }
        return Int(digits)
    }
}

// MARK: - Classification

/// Whether a device is taken as a touchscreen, and if not, why not (for `bubble-kiosk devices`).
public enum TouchscreenVerdict: Equatable, Sendable {
    case touchscreen(TouchProtocol)
    case ignored(String)
}

extension TouchDeviceInfo {
    /// Touchscreen or not, in the manner of udev's input_id: a direct device with touch axes is
    /// one; a touchpad (`INPUT_PROP_POINTER`, or a finger tool without `INPUT_PROP_DIRECT`)
    /// or a graphics tablet moves a cursor and is not; an absolute pointer with a touch or left
    /// button (single-touch panels, QEMU's tablet) is.
    public var touchscreenVerdict: TouchscreenVerdict {
        if properties.contains(Int(INPUT_PROP_ACCELEROMETER)) { return .ignored("accelerometer") }
        if let problem = axisProblem { return .ignored(problem) }
        let hasAxes = isMultiTouch || (axes[EventCode.ABS_X] != nil && axes[EventCode.ABS_Y] != nil)
        guard hasAxes else {
            return .ignored(axes.isEmpty ? "no absolute axes (keyboard, mouse or buttons)" : "no absolute X/Y axes")
        }
        if isDirect {
            // The same rule the decoder goes by (`touchProtocol`): without a button it would
            // never see a finger go down.
            guard let kind = touchProtocol else { return .ignored(Self.noTouchButton) }
            return .touchscreen(kind)
        }
        if properties.contains(Int(INPUT_PROP_POINTER)) { return .ignored("touchpad (INPUT_PROP_POINTER)") }
        if keys.contains(EventCode.BTN_TOOL_FINGER) {
            return .ignored("touchpad (BTN_TOOL_FINGER without INPUT_PROP_DIRECT)")
        }
        if keys.contains(UInt16(BTN_TOOL_PEN)) || keys.contains(UInt16(BTN_STYLUS)) {
            return .ignored("graphics tablet (pen without INPUT_PROP_DIRECT)")
        }
        // Without INPUT_PROP_DIRECT a button is what tells a touch panel from a joystick.
        let button = keys.contains(EventCode.BTN_TOUCH) || keys.contains(EventCode.BTN_LEFT)
        if button, let kind = touchProtocol { return .touchscreen(kind) }
        return .ignored("absolute axes without BTN_TOUCH, BTN_LEFT or INPUT_PROP_DIRECT (joystick?)")
    }

    /// Why a direct device with X/Y axes but no button is not used.
    static let noTouchButton = "direct, but ABS_X/ABS_Y without BTN_TOUCH or BTN_LEFT: nothing tells when a finger is down"

    /// Whether `--input evdev` uses this device.
    public var isTouchscreen: Bool {
        if case .touchscreen = touchscreenVerdict { return true }
        return false
    }
}

// MARK: - Device report

/// What `bubble-kiosk devices` knows about one event node: its capabilities, or why it could
/// not be opened.
public struct InputDeviceProbe: Sendable {
    public var path: String
    public var info: TouchDeviceInfo?
    public var id: InputDeviceID?
    public var eventTypes: Set<UInt16> = []
    public var error: SystemError?
    /// The name from sysfs, for nodes that cannot be opened.
    public var sysfsName: String?

    public init(path: String, info: TouchDeviceInfo? = nil, id: InputDeviceID? = nil, eventTypes: Set<UInt16> = [],
                error: SystemError? = nil, sysfsName: String? = nil) {
        self.path = path
        self.info = info
        self.id = id
        self.eventTypes = eventTypes
        self.error = error
        self.sysfsName = sysfsName
    }

    /// Opens `path`, reads what it can do, and closes it again.
    public static func probe(_ path: String) -> InputDeviceProbe {
        do {
            let d = try EvdevDevice(path: path)
            return InputDeviceProbe(path: path, info: d.info, id: d.id, eventTypes: d.eventTypes)
        } catch let error as SystemError {
            return InputDeviceProbe(path: path, error: error, sysfsName: sysfsName(of: path))
        } catch {
            return InputDeviceProbe(path: path, error: SystemError("open", path, errno: EIO))
        }
    }

    /// `/sys/class/input/eventN/device/name`, readable by everyone.
    static func sysfsName(of path: String) -> String? {
        let node = path.split(separator: "/").last.map(String.init) ?? path
        guard let text = try? FileSystem.readText("/sys/class/input/\(node)/device/name") else { return nil }
        let name = text.split(separator: "\n").first.map(String.init) ?? ""
        return name.isEmpty ? nil : name
    }

    /// Opening failed for lack of permission (the user is not in the input group).
    public var isPermissionDenied: Bool { error?.errno == EACCES || error?.errno == EPERM }

    /// The operator's fix for a node the kiosk may not open.
    public static let permissionHint =
        "permission denied: add the user to the input group (usermod -aG input USER, then log in again)"

    /// Report lines: the node and name, then capabilities, axes and the verdict indented by two.
    public var reportLines: [String] {
        guard let info else {
            let name = sysfsName.map { " \"\($0)\"" } ?? ""
            guard let error else { return ["\(path)\(name): no information"] }
            if isPermissionDenied { return ["\(path)\(name): \(Self.permissionHint)"] }
            return ["\(path)\(name): cannot open: \(error)"]
        }
        var lines = ["\(path): \"\(echoed(info.name))\"" + (id.map { " (\(Self.describe($0)))" } ?? "")]
        lines.append("  capabilities: " + capabilities(info).joined(separator: ", "))
        for (code, axis) in info.axes.sorted(by: { $0.key < $1.key }) {
            lines.append("  " + Self.describe(axis: axis, code: code))
        }
        switch info.touchscreenVerdict {
        case .touchscreen: lines.append("  → would be used")
        case .ignored(let why): lines.append("  ignored: \(why)")
        }
        return lines
    }

    private func capabilities(_ info: TouchDeviceInfo) -> [String] {
        var parts: [String] = []
        switch info.touchProtocol {
        case .multiTouchB(let slots)?: parts.append("multi-touch protocol B (\(slots) slots)")
        case .multiTouchA?: parts.append("multi-touch protocol A")
        case .singleTouch?: parts.append("single-touch")
        case .absolutePointer?: parts.append("absolute pointer (BTN_LEFT)")
        case nil: break
        }
        if info.isDirect { parts.append("direct") }
        if info.properties.contains(Int(INPUT_PROP_POINTER)) { parts.append("pointer") }
        if eventTypes.contains(UInt16(EV_REL)) { parts.append("relative axes") }
        if info.axes[EventCode.ABS_MT_PRESSURE] != nil || info.axes[EventCode.ABS_PRESSURE] != nil {
            parts.append("pressure")
        }
        let buttons = info.keys.filter { $0 >= 0x100 }.count
        let keys = info.keys.count - buttons
        if keys > 0 { parts.append(keys == 1 ? "1 key" : "\(keys) keys") }
        if buttons > 0 { parts.append(buttons == 1 ? "1 button" : "\(buttons) buttons") }
        return parts.isEmpty ? ["none that matter here"] : parts
    }

    static func describe(_ id: InputDeviceID) -> String {
        let buses: [UInt16: String] = [0x03: "usb", 0x05: "bluetooth", 0x06: "virtual", 0x11: "i8042",
                                       0x18: "i2c", 0x19: "host", 0x1C: "spi"]
        let bus = buses[id.bus] ?? "bus " + hex(id.bus, digits: 2)
        return "\(bus) \(hex(id.vendor, digits: 4)):\(hex(id.product, digits: 4))"
    }

    /// `ABS_MT_POSITION_X 0..1279, 5 units/mm (256 mm)`: the range, and the physical size the
    /// resolution implies, which shows at a glance whether a panel's numbers are believable.
    static func describe(axis: AxisInfo, code: UInt16) -> String {
        let name = libevdev_event_code_get_name(UInt32(EV_ABS), UInt32(code)).map { String(cString: $0) }
            ?? "ABS_" + hex(code, digits: 2)
        var text = "\(name) \(axis.minimum)..\(axis.maximum)"
        let isPosition = [EventCode.ABS_X, EventCode.ABS_Y, EventCode.ABS_MT_POSITION_X, EventCode.ABS_MT_POSITION_Y]
            .contains(code)
        if axis.resolution > 0 {
            text += ", \(axis.resolution) units/mm"
            if isPosition {
                let mm = Double(Int64(axis.maximum) - Int64(axis.minimum)) / Double(axis.resolution)
                text += " (\(Int(mm.rounded())) mm)"
            }
        } else if isPosition {
            // Without it the kiosk cannot learn the screen's size from the panel.
            text += ", resolution unknown"
        }
        return text
    }

    private static func hex(_ v: UInt16, digits: Int) -> String {
        let s = String(v, radix: 16)
        return String(repeating: "0", count: max(0, digits - s.count)) + s
    }
}
