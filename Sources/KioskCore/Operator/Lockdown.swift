/// What an input device can do at a kiosk besides touch: type (a keyboard, a barcode scanner)
/// or press a key the machine acts on (Power, Sleep).
public enum KeyboardKind: Equatable, Sendable {
    /// Letters or digits and Enter: it can type, and press Ctrl-Alt-F2 or Ctrl-Alt-Del.
    case keyboard
    /// Only some of Power, Sleep, Suspend and Reboot (a power button, a remote's).
    case systemKeys
}

extension TouchDeviceInfo {
    /// What this device could do to the machine by its keys; nil for a device with none of them
    /// (a touchscreen, a mouse).
    public var keyboardKind: KeyboardKind? {
        // KEY_1 (2) to KEY_SPACE (57): the main block's digits, letters and modifiers.
        let typing = keys.filter { (2...57).contains($0) }.count
        if keys.contains(EventCode.KEY_ENTER) && typing >= 20 { return .keyboard }
        let system: Set<UInt16> = [EventCode.KEY_POWER, EventCode.KEY_SLEEP, EventCode.KEY_SUSPEND, EventCode.KEY_RESTART]
        return keys.isDisjoint(with: system) ? nil : .systemKeys
    }
}

/// Whether the machine ignores the keys that leave a kiosk (`bubble-kiosk-lockdown`), judged
/// from what the system shows now: the SysRq mask in force, the mask on `ctrl-alt-del.target`
/// and logind's drop-in.
public struct LockdownStatus: Equatable, Sendable {
    /// `/proc/sys/kernel/sysrq`; nil when unreadable.
    public var sysrq: Int?
    /// `ctrl-alt-del.target` is linked to /dev/null.
    public var ctrlAltDelMasked: Bool
    /// logind reads the lockdown's drop-in (power keys ignored, no login on VTs).
    public var logindDropIn: Bool

    public init(sysrq: Int?, ctrlAltDelMasked: Bool, logindDropIn: Bool) {
        self.sysrq = sysrq
        self.ctrlAltDelMasked = ctrlAltDelMasked
        self.logindDropIn = logindDropIn
    }

    /// SysRq functions that leave the game: keyboard control (unraw, SAK) 4, signalling
    /// processes (kill-all) 64, reboot and power-off 128. 1 enables every function.
    static let leavingSysRq = 4 | 64 | 128

    /// What still lets a keyboard leave the game or stop the machine; empty when locked down.
    public var openings: [String] {
        var open: [String] = []
        switch sysrq {
        case nil: open.append("the SysRq mask is unreadable")
        case 1?: open.append("SysRq allows everything (kernel.sysrq = 1)")
        case let mask? where mask & Self.leavingSysRq != 0:
            open.append("SysRq allows reboot, power-off, kill-all or unraw (kernel.sysrq = \(mask))")
        default: break
        }
        if !ctrlAltDelMasked { open.append("Ctrl-Alt-Del reboots (ctrl-alt-del.target is not masked)") }
        if !logindDropIn { open.append("logind acts on Power and Sleep keys and starts logins on other VTs") }
        return open
    }

    /// The `devices` line.
    public var reportLine: String {
        let open = openings
        if open.isEmpty {
            return "lockdown: in force (SysRq \(sysrq ?? 0), ctrl-alt-del.target masked, logind ignores the power keys and starts no VT logins)"
        }
        return "lockdown: not in force: " + open.joined(separator: "; ") + " (install bubble-kiosk-lockdown)"
    }
}
