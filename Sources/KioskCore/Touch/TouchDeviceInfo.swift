/// Range of one absolute axis (`struct input_absinfo`, or an `A:` line of a recording).
public struct AxisInfo: Equatable, Sendable {
    public var minimum: Int32
    public var maximum: Int32
    public var fuzz: Int32
    public var flat: Int32
    /// Units per millimetre (0 when the device does not say).
    public var resolution: Int32

    public init(minimum: Int32, maximum: Int32, fuzz: Int32 = 0, flat: Int32 = 0, resolution: Int32 = 0) {
        self.minimum = minimum
        self.maximum = maximum
        self.fuzz = fuzz
        self.flat = flat
        self.resolution = resolution
    }
}

/// What a touch device can report: enough to decode its events into `TouchFrame`s.
public struct TouchDeviceInfo: Equatable, Sendable {
    public var name: String
    /// Absolute axes by code (`ABS_*`).
    public var axes: [UInt16: AxisInfo]
    /// Key codes the device reports (`BTN_TOUCH`, `BTN_LEFT`, ...).
    public var keys: Set<UInt16>
    /// Input properties (`INPUT_PROP_*`).
    public var properties: Set<Int>

    public init(name: String, axes: [UInt16: AxisInfo], keys: Set<UInt16> = [], properties: Set<Int> = []) {
        self.name = name
        self.axes = axes
        self.keys = keys
        self.properties = properties
    }

    /// Multi-touch protocol B: the device has slots.
    public var hasSlots: Bool { axes[EventCode.ABS_MT_SLOT] != nil }
    /// Any multi-touch positions (protocol A or B).
    public var isMultiTouch: Bool {
        axes[EventCode.ABS_MT_POSITION_X] != nil && axes[EventCode.ABS_MT_POSITION_Y] != nil
    }
    /// Single-touch or absolute pointer: `ABS_X`/`ABS_Y` with a touch or left button.
    public var isSingleTouch: Bool {
        axes[EventCode.ABS_X] != nil && axes[EventCode.ABS_Y] != nil
            && (keys.contains(EventCode.BTN_TOUCH) || keys.contains(EventCode.BTN_LEFT))
    }
    /// A direct device (touchscreen, not touchpad), per `INPUT_PROP_DIRECT`.
    public var isDirect: Bool { properties.contains(EventCode.INPUT_PROP_DIRECT) }

    /// Why the position axes cannot be mapped onto a screen (one has min >= max), or nil.
    /// Such a device is not used: every touch would land on one spot, or off the screen.
    public var axisProblem: String? {
        let positions: [(UInt16, String)] = [(EventCode.ABS_X, "ABS_X"), (EventCode.ABS_Y, "ABS_Y"),
                                             (EventCode.ABS_MT_POSITION_X, "ABS_MT_POSITION_X"),
                                             (EventCode.ABS_MT_POSITION_Y, "ABS_MT_POSITION_Y")]
        for (code, name) in positions {
            if let axis = axes[code], axis.minimum >= axis.maximum {
                return "axis \(name) has no range (min \(axis.minimum), max \(axis.maximum))"
            }
        }
        return nil
    }
}

/// Bus type and ids of an input device (`struct input_id`), as udev and `lsusb` show them.
public struct InputDeviceID: Equatable, Hashable, Sendable {
    public var bus: UInt16
    public var vendor: UInt16
    public var product: UInt16
    public var version: UInt16

    public init(bus: UInt16, vendor: UInt16, product: UInt16, version: UInt16 = 0) {
        self.bus = bus
        self.vendor = vendor
        self.product = product
        self.version = version
    }
}

extension TouchDeviceInfo {
    /// How the device reports contacts: the one classification the decoder and the device
    /// probe share. Multi-touch positions win over `ABS_X`/`ABS_Y` (most panels send both).
    ///
    /// `ABS_X`/`ABS_Y` without `BTN_TOUCH` or `BTN_LEFT` is no touch device (nil): nothing
    /// says when a finger goes down or up, so it could only give a touch that never starts or
    /// never ends. Such devices are joysticks, accelerometers or hovering pens in practice.
    public var touchProtocol: TouchProtocol? {
        if isMultiTouch {
            guard let slots = axes[EventCode.ABS_MT_SLOT] else { return .multiTouchA }
            return .multiTouchB(slots: Int(slots.maximum) - Int(slots.minimum) + 1)
        }
        guard isSingleTouch else { return nil }
        return keys.contains(EventCode.BTN_TOUCH) ? .singleTouch : .absolutePointer
    }

    /// The key whose press and release mean a finger down and up: `BTN_TOUCH`, unless the
    /// device only has `BTN_LEFT` (absolute pointers such as QEMU's tablet).
    public var touchButton: UInt16 {
        !keys.contains(EventCode.BTN_TOUCH) && keys.contains(EventCode.BTN_LEFT)
            ? EventCode.BTN_LEFT : EventCode.BTN_TOUCH
    }
}

/// How a touch device reports its contacts (which of `TouchDecoder`'s trackers reads it).
public enum TouchProtocol: Equatable, Sendable {
    /// Multi-touch protocol B: the kernel tracks contacts in slots.
    case multiTouchB(slots: Int)
    /// Multi-touch protocol A: anonymous contact lists.
    case multiTouchA
    /// `ABS_X`/`ABS_Y` with `BTN_TOUCH`: one finger.
    case singleTouch
    /// `ABS_X`/`ABS_Y` with `BTN_LEFT` and no `BTN_TOUCH`: a tablet-style pointer such as
    /// QEMU's usb-tablet.
    case absolutePointer
}
