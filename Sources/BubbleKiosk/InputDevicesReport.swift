import KioskCore
import KioskPlatform

/// The input half of `bubble-kiosk devices`: every `/dev/input/event*` node with its name, ids,
/// capabilities, axis ranges and resolution, and whether `--input evdev` would use it; then the
/// keyboards, which never reach the game, and whether the machine ignores their keys.
func describeInputDevices(lockdown: LockdownStatus = .read()) -> [String] {
    let directory = "/dev/input"
    let probes = EvdevDevice.nodes(in: directory).map { InputDeviceProbe.probe($0) }
    var lines = ["input devices (\(directory)/event*):"]
    if probes.isEmpty { lines.append("    none (is the evdev module loaded?)") }
    for probe in probes { lines += probe.reportLines.map { "  " + $0 } }

    let used = probes.filter { $0.info?.isTouchscreen == true }.map(\.path)
    let denied = probes.filter(\.isPermissionDenied)
    if !used.isEmpty {
        lines.append("input: --input evdev would use \(used.joined(separator: ", "))")
    } else if !denied.isEmpty {
        lines.append("input: no touchscreen among the readable devices; \(denied.count) could not be opened: "
                     + InputDeviceProbe.permissionHint)
    } else {
        lines.append("input: no touchscreen found; the kiosk would wait for one to be plugged in")
    }
    let keyboards = probes.filter { $0.info?.keyboardKind == .keyboard }
    let systemKeys = probes.filter { $0.info?.keyboardKind == .systemKeys }
    let named = { (probe: InputDeviceProbe) in "\(probe.path) \"\(echoed(probe.info?.name ?? ""))\"" }
    lines.append("keyboards (never reach the game): " + (keyboards.isEmpty ? "none" : keyboards.map(named).joined(separator: ", ")))
    if !systemKeys.isEmpty {
        lines.append("power and sleep keys: " + systemKeys.map(named).joined(separator: ", "))
    }
    lines.append(lockdown.reportLine)
    return lines
}
