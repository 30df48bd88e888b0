/// One raw evdev event (`struct input_event`), as read from a device or a recording.
public struct InputEvent: Equatable, Sendable {
    public var time: TimeStamp
    public var type: UInt16
    public var code: UInt16
    public var value: Int32

    public init(time: TimeStamp, type: UInt16, code: UInt16, value: Int32) {
        self.time = time
        self.type = type
        self.code = code
        self.value = value
    }
}

/// Event type and code numbers from the kernel's `linux/input-event-codes.h` (a stable ABI),
/// spelled out here so the core needs no C headers.
public enum EventCode {
    public static let EV_SYN: UInt16 = 0x00
    public static let EV_KEY: UInt16 = 0x01
    public static let EV_REL: UInt16 = 0x02
    public static let EV_ABS: UInt16 = 0x03
    public static let EV_MSC: UInt16 = 0x04

    public static let SYN_REPORT: UInt16 = 0
    public static let SYN_CONFIG: UInt16 = 1
    public static let SYN_MT_REPORT: UInt16 = 2
    public static let SYN_DROPPED: UInt16 = 3

    public static let KEY_ENTER: UInt16 = 28
    /// The keys logind acts on (power off, suspend, hibernate, reboot).
    public static let KEY_POWER: UInt16 = 116
    public static let KEY_SLEEP: UInt16 = 142
    public static let KEY_SUSPEND: UInt16 = 205
    public static let KEY_RESTART: UInt16 = 0x198

    public static let BTN_LEFT: UInt16 = 0x110
    public static let BTN_TOOL_FINGER: UInt16 = 0x145
    public static let BTN_TOUCH: UInt16 = 0x14a

    public static let ABS_X: UInt16 = 0x00
    public static let ABS_Y: UInt16 = 0x01
    public static let ABS_PRESSURE: UInt16 = 0x18
    public static let ABS_MT_SLOT: UInt16 = 0x2f
    public static let ABS_MT_TOUCH_MAJOR: UInt16 = 0x30
    public static let ABS_MT_POSITION_X: UInt16 = 0x35
    public static let ABS_MT_POSITION_Y: UInt16 = 0x36
    public static let ABS_MT_TRACKING_ID: UInt16 = 0x39
    public static let ABS_MT_PRESSURE: UInt16 = 0x3a

    public static let INPUT_PROP_DIRECT: Int = 0x01
}
