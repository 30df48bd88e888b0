import KioskCore
import Testing

/// Which devices count as keyboards, and what the `devices` lockdown line says.
struct LockdownTests {
    @Test func aKeyboardTypesAPowerButtonDoesNotATouchscreenIsNeither() {
        let keyboard = TouchDeviceInfo(name: "kbd", axes: [:], keys: Set(1...255))
        #expect(keyboard.keyboardKind == .keyboard)
        // A barcode scanner: digits and Enter with the letters it needs.
        let scanner = TouchDeviceInfo(name: "scanner", axes: [:], keys: Set(2...11).union(16...25).union([28, 42]))
        #expect(scanner.keyboardKind == .keyboard)
        let power = TouchDeviceInfo(name: "Power Button", axes: [:], keys: [EventCode.KEY_POWER])
        #expect(power.keyboardKind == .systemKeys)
        let touch = TouchDeviceInfo(name: "touch", axes: [EventCode.ABS_MT_SLOT: AxisInfo(minimum: 0, maximum: 9)],
                                    keys: [EventCode.BTN_TOUCH])
        #expect(touch.keyboardKind == nil)
        // Enter alone (a remote's OK) types nothing.
        #expect(TouchDeviceInfo(name: "remote", axes: [:], keys: [28, 103, 108]).keyboardKind == nil)
    }

    @Test func inForceOnlyWhenNothingLeavesTheGame() {
        let locked = LockdownStatus(sysrq: 16, ctrlAltDelMasked: true, logindDropIn: true)
        #expect(locked.openings == [])
        #expect(locked.reportLine == "lockdown: in force (SysRq 16, ctrl-alt-del.target masked, logind ignores the power keys and starts no VT logins)")
        // Debian's default mask allows reboot (128) and unraw (4).
        let debian = LockdownStatus(sysrq: 438, ctrlAltDelMasked: false, logindDropIn: false)
        #expect(debian.reportLine == "lockdown: not in force: SysRq allows reboot, power-off, kill-all or unraw (kernel.sysrq = 438); "
            + "Ctrl-Alt-Del reboots (ctrl-alt-del.target is not masked); logind acts on Power and Sleep keys and starts logins on other VTs "
            + "(install bubble-kiosk-lockdown)")
        #expect(LockdownStatus(sysrq: 1, ctrlAltDelMasked: true, logindDropIn: true).openings == ["SysRq allows everything (kernel.sysrq = 1)"])
        #expect(LockdownStatus(sysrq: 0, ctrlAltDelMasked: true, logindDropIn: true).openings == [])
        #expect(LockdownStatus(sysrq: nil, ctrlAltDelMasked: true, logindDropIn: true).openings == ["the SysRq mask is unreadable"])
    }
}
