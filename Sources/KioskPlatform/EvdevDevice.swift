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
