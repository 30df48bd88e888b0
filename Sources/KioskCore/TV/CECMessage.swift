/// An HDMI physical address `a.b.c.d` (CEC's place of a device in the HDMI tree): 0.0.0.0 is the
/// TV, 1.0.0.0 what is plugged into its HDMI 1. `f.f.f.f` while unknown (no hotplug: many TVs
/// drop it in standby).
public struct PhysicalAddress: Hashable, Sendable, CustomStringConvertible {
    public var value: UInt16

    public init(_ value: UInt16) { self.value = value }

    /// `f.f.f.f`: not known now.
    public static let invalid = PhysicalAddress(0xffff)

    public var isValid: Bool { self != .invalid }

    /// `1.0.0.0`.
    public var description: String {
        [12, 8, 4, 0].map { NumberText.hex((value >> UInt16($0)) & 0xf, digits: 1) }.joined(separator: ".")
    }

    /// The two bytes a message carries, high first.
    public var bytes: [UInt8] { [UInt8(value >> 8), UInt8(value & 0xff)] }
}

/// What a CEC device says of its power (`Report Power Status`).
public enum CECPowerStatus: UInt8, Equatable, Sendable, CustomStringConvertible {
    case on = 0
    case standby = 1
    case turningOn = 2
    case turningStandby = 3

    /// On, or on its way there: the picture is (about to be) shown.
    public var isOn: Bool { self == .on || self == .turningOn }

    /// The word the state, the metrics' help and `devices` use: on, standby, turning-on,
    /// turning-standby.
    public var description: String {
        switch self {
        case .on: "on"
        case .standby: "standby"
        case .turningOn: "turning-on"
        case .turningStandby: "turning-standby"
        }
    }
}

/// The opcodes the kiosk sends, answers or follows (HDMI-CEC 1.4).
public enum CECOpcode {
    public static let featureAbort: UInt8 = 0x00
    public static let imageViewOn: UInt8 = 0x04
    public static let textViewOn: UInt8 = 0x0d
    public static let standby: UInt8 = 0x36
    public static let giveOSDName: UInt8 = 0x46
    public static let setOSDName: UInt8 = 0x47
    public static let routingChange: UInt8 = 0x80
    public static let routingInformation: UInt8 = 0x81
    public static let activeSource: UInt8 = 0x82
    public static let givePhysicalAddress: UInt8 = 0x83
    public static let reportPhysicalAddress: UInt8 = 0x84
    public static let requestActiveSource: UInt8 = 0x85
    public static let setStreamPath: UInt8 = 0x86
    public static let deviceVendorID: UInt8 = 0x87
    public static let giveDeviceVendorID: UInt8 = 0x8c
    public static let menuRequest: UInt8 = 0x8d
    public static let menuStatus: UInt8 = 0x8e
    public static let giveDevicePowerStatus: UInt8 = 0x8f
    public static let reportPowerStatus: UInt8 = 0x90
    public static let cecVersion: UInt8 = 0x9e
    public static let getCECVersion: UInt8 = 0x9f
    public static let abort: UInt8 = 0xff

    /// Names for log lines.
    static let names: [UInt8: String] = [
        featureAbort: "Feature Abort", imageViewOn: "Image View On", textViewOn: "Text View On", standby: "Standby",
        giveOSDName: "Give OSD Name", setOSDName: "Set OSD Name", routingChange: "Routing Change",
        routingInformation: "Routing Information", activeSource: "Active Source",
        givePhysicalAddress: "Give Physical Address", reportPhysicalAddress: "Report Physical Address",
        requestActiveSource: "Request Active Source", setStreamPath: "Set Stream Path", deviceVendorID: "Device Vendor ID",
        giveDeviceVendorID: "Give Device Vendor ID", menuRequest: "Menu Request", menuStatus: "Menu Status",
        giveDevicePowerStatus: "Give Device Power Status", reportPowerStatus: "Report Power Status",
        cecVersion: "CEC Version", getCECVersion: "Get CEC Version", abort: "Abort",
    ]

    /// Messages only ever broadcast: one addressed to a device is to be ignored.
    static let broadcastOnly: Set<UInt8> = [activeSource, routingChange, routingInformation, reportPhysicalAddress,
                                            requestActiveSource, setStreamPath, deviceVendorID]
}

/// One CEC frame: the header's initiator and destination (logical addresses 0-15; 15 as the
/// destination is a broadcast), the opcode (none: a poll) and up to 14 operand bytes.
public struct CECMessage: Equatable, Sendable, CustomStringConvertible {
    public var initiator: UInt8
    public var destination: UInt8
    public var opcode: UInt8?
    public var operands: [UInt8]

    /// The logical addresses with a name of their own.
    public static let tv: UInt8 = 0
    public static let broadcast: UInt8 = 15
    /// A frame holds 16 bytes: header, opcode, 14 operands.
    public static let maximumLength = 16

    public init(from initiator: UInt8, to destination: UInt8, _ opcode: UInt8?, _ operands: [UInt8] = []) {
        self.initiator = initiator & 0xf
        self.destination = destination & 0xf
        self.opcode = opcode
        self.operands = opcode == nil ? [] : Array(operands.prefix(Self.maximumLength - 2))
    }

    /// Reads a frame as the adapter delivers it; nil for none (an empty frame).
    public init?(bytes: [UInt8]) {
        guard let header = bytes.first, bytes.count <= Self.maximumLength else { return nil }
        initiator = header >> 4
        destination = header & 0xf
        opcode = bytes.count > 1 ? bytes[1] : nil
        operands = bytes.count > 2 ? Array(bytes[2...]) : []
    }

    /// The frame's bytes: header, opcode, operands.
    public var bytes: [UInt8] {
        [initiator << 4 | destination] + (opcode.map { [$0] + operands } ?? [])
    }

    public var isBroadcast: Bool { destination == Self.broadcast }

    /// `Standby 4->0`, `Active Source 4->15 [10 00]`.
    public var description: String {
        let name = opcode.map { CECOpcode.names[$0] ?? "opcode 0x" + Self.hex($0) } ?? "poll"
        let args = operands.isEmpty ? "" : " [" + operands.map(Self.hex).joined(separator: " ") + "]"
        return "\(name) \(initiator)->\(destination)\(args)"
    }

    /// Two lower-case hex digits.
    public static func hex(_ b: UInt8) -> String { NumberText.hex(b, digits: 2) }

    /// The physical address in the first two operands (Active Source, Set Stream Path), nil when short.
    public var addressOperand: PhysicalAddress? {
        operands.count >= 2 ? PhysicalAddress(UInt16(operands[0]) << 8 | UInt16(operands[1])) : nil
    }

    /// What CEC calls a logical address: "Playback Device 1" for 4.
    public static func deviceName(_ address: UInt8) -> String {
        switch address {
        case 0: "TV"
        case 4: "Playback Device 1"
        case 8: "Playback Device 2"
        case 11: "Playback Device 3"
        case 15: "Unregistered"
        default: "Logical Address \(address)"
        }
    }

    // The messages the kiosk sends.

    public static func standby(from me: UInt8, to whom: UInt8 = tv) -> CECMessage {
        CECMessage(from: me, to: whom, CECOpcode.standby)
    }

    public static func imageViewOn(from me: UInt8) -> CECMessage {
        CECMessage(from: me, to: tv, CECOpcode.imageViewOn)
    }

    public static func activeSource(from me: UInt8, _ address: PhysicalAddress) -> CECMessage {
        CECMessage(from: me, to: broadcast, CECOpcode.activeSource, address.bytes)
    }

    public static func giveDevicePowerStatus(from me: UInt8, to whom: UInt8 = tv) -> CECMessage {
        CECMessage(from: me, to: whom, CECOpcode.giveDevicePowerStatus)
    }

    public static func reportPowerStatus(from me: UInt8, to whom: UInt8, _ status: CECPowerStatus) -> CECMessage {
        CECMessage(from: me, to: whom, CECOpcode.reportPowerStatus, [status.rawValue])
    }

    /// The name as a TV's source list shows it: printable ASCII, at most 14 characters.
    public static func setOSDName(from me: UInt8, to whom: UInt8, _ name: String) -> CECMessage {
        CECMessage(from: me, to: whom, CECOpcode.setOSDName, Array(name.utf8.prefix(14)))
    }

    /// "Unrecognized opcode" (reason 0) for a directed message the kiosk does not handle.
    public static func featureAbort(from me: UInt8, to whom: UInt8, opcode: UInt8, reason: UInt8 = 0) -> CECMessage {
        CECMessage(from: me, to: whom, CECOpcode.featureAbort, [opcode, reason])
    }
}

/// How a frame the kiosk sent ended, from the adapter's transmit status.
public enum CECTransmitResult: Equatable, Sendable, CustomStringConvertible {
    /// Acknowledged (or a broadcast sent).
    case acknowledged
    /// Nobody acknowledged it: the device is off the bus (unplugged, switched off at the wall).
    case notAcknowledged
    /// The bus or the adapter failed (arbitration lost each time, low drive, timeout, aborted).
    case failed(String)

    public var description: String {
        switch self {
        case .acknowledged: "acknowledged"
        case .notAcknowledged: "not acknowledged"
        case .failed(let why): why
        }
    }
}

/// `[display] cec`: which CEC adapter the kiosk uses.
public enum CECChoice: Equatable, Sendable {
    /// The adapter tied to the kiosk's main DRM connector, else the only one, else none.
    case auto
    case off
    /// This device node (`/dev/cec1`).
    case device(String)

    public init?(_ text: String) {
        switch text {
        case "auto": self = .auto
        case "off", "none": self = .off
        default:
            guard Self.isDevicePath(text) else { return nil }
            self = .device(text)
        }
    }

    /// What the config key expects.
    public static let expectation = "auto, off, or a CEC device such as /dev/cec0"

    /// The config key's check: nil when fine, else what is expected.
    @Sendable public static func problem(_ text: String) -> String? {
        CECChoice(text) == nil ? expectation : nil
    }

    /// `/dev/cecN`, or another absolute path (a udev symlink such as /dev/cec-tv).
    static func isDevicePath(_ text: String) -> Bool {
        text.hasPrefix("/dev/") && text.utf8.count > 5 && text.utf8.count <= 255
            && !text.utf8.contains(where: { $0 <= 32 || $0 >= 127 }) && !text.containsText("/../")
    }
}

/// `[display] cec_name`: what the TV calls the kiosk (its OSD name).
public enum CECName {
    public static let expectation = "1 to 14 printable ASCII characters"

    /// The config key's check: nil when fine, else what is expected.
    @Sendable public static func problem(_ text: String) -> String? {
        let bytes = Array(text.utf8)
        guard (1...14).contains(bytes.count), bytes.allSatisfy({ (32..<127).contains($0) }) else { return expectation }
        return nil
    }
}

extension CECChoice {
    /// One adapter found: its device and the DRM connector it says it belongs to.
    public struct Candidate: Equatable, Sendable {
        public var path: String
        public var connector: DRMConnectorRef?

        public init(path: String, connector: DRMConnectorRef?) {
            self.path = path
            self.connector = connector
        }
    }

    /// Which adapter `auto` takes: the one tied to the main screen's connector, else the only
    /// one there is; nil with the reason when none or several (said once in the log).
    public static func pickAutomatically(_ candidates: [Candidate], screen: DRMConnectorRef?) -> (path: String?, why: String) {
        if let screen, let tied = candidates.first(where: { $0.connector == screen }) {
            return (tied.path, "the adapter of the screen's connector (\(screen))")
        }
        switch candidates.count {
        case 0: return (nil, "no CEC adapter (/dev/cec*)")
        case 1: return (candidates[0].path, "the only adapter")
        default:
            let list = candidates.map(\.path).joined(separator: ", ")
            return (nil, "\(candidates.count) adapters (\(list)) and none tied to the screen's connector: set [display] cec to one")
        }
    }
}
