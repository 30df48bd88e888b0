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
