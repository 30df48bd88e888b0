internal import CEvdev
import Glibc
import KioskCore

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
        let bus = buses[id.bus] ?? "bus " + NumberText.hex(id.bus, digits: 2)
        return "\(bus) \(NumberText.hex(id.vendor, digits: 4)):\(NumberText.hex(id.product, digits: 4))"
    }

    /// `ABS_MT_POSITION_X 0..1279, 5 units/mm (256 mm)`: the range, and the physical size the
    /// resolution implies, which shows at a glance whether a panel's numbers are believable.
    static func describe(axis: AxisInfo, code: UInt16) -> String {
        let name = libevdev_event_code_get_name(UInt32(EV_ABS), UInt32(code)).map { String(cString: $0) }
            ?? "ABS_" + NumberText.hex(code, digits: 2)
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

}
