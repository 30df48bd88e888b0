import CLinux
import Glibc
import KioskCore
@testable import KioskPlatform
import Synchronization
import Testing

/// A VT as the kernel keeps it, in memory: its modes, which VT is in front, a pending switch,
/// and calls that may be made to fail. Every ioctl is recorded.
final class FakeVT: VTDevice {
    var display = CLinux_KD_TEXT
    var keyboard = ConsoleKeyboardMode.unicode
    var switching = vt_mode()
    var active = 1
    var switchPending = false
    /// Calls named here fail with EPERM (`KDSKBMODE`...).
    var refused: Set<String> = []
    /// Hung up (vhangup): every call on the old descriptor fails with EIO until `reopen`.
    var hungUp = false
    private(set) var calls: [String] = []

    private func call(_ name: String, _ detail: String) throws {
        calls.append("\(name) \(detail)")
        if hungUp { throw SystemError(name, "/dev/tty1", errno: EIO) }
        if refused.contains(name) { throw SystemError(name, "/dev/tty1", errno: EPERM) }
    }

    /// A fresh descriptor on the same VT.
    func reopen() -> VTDevice {
        calls.append("open")
        hungUp = false
        return self
    }

    func displayMode() throws -> Int32 { display }
    func setDisplayMode(_ mode: Int32) throws {
        try call("KDSETMODE", mode == CLinux_KD_GRAPHICS ? "graphics" : "text")
        display = mode
    }
    func keyboardMode() throws -> ConsoleKeyboardMode {
        try call("KDGKBMODE", "read")
        return keyboard
    }
    func setKeyboardMode(_ mode: ConsoleKeyboardMode) throws {
        try call("KDSKBMODE", "\(mode)")
        keyboard = mode
    }
    func switchMode() throws -> vt_mode { switching }
    func setSwitchMode(_ mode: vt_mode) throws {
        try call("VT_SETMODE", Int32(mode.mode) == CLinux_VT_PROCESS ? "process" : "auto")
        switching = mode
    }
    func activeVT() throws -> Int { active }
    func releaseDisplay(_ argument: Int32) throws {
        try call("VT_RELDISP", argument == CLinux_VT_ACKACQ ? "ackacq" : "release")
        if argument != CLinux_VT_ACKACQ {
            guard switchPending else { throw SystemError("VT_RELDISP", "/dev/tty1 release", errno: EINVAL) }
            switchPending = false
        }
    }

    /// The kernel's side of `chvt 2`: the switch waits for the owner's release.
    func requestSwitchAway() { switchPending = true }
}

/// Lines logged, for the one line the keyboard gets.
final class LoggedLines: Sendable {
    private let lines = Mutex<[String]>([])
    var all: [String] { lines.withLock { $0 } }
    var logger: Logger { Logger { [self] _, text in lines.withLock { $0.append(text) } } }
}

/// The keyboard handling of the kiosk's VT on a fake VT: off while the kiosk owns it, left alone
/// when switching is allowed, given back at exit, and what a crashed kiosk left behind.
struct ConsoleKeyboardTests {
    let locked = ConsoleKeyboardPolicy(allowVTSwitch: false)
    let allowed = ConsoleKeyboardPolicy(allowVTSwitch: true)

    @Test func theKeyboardIsOffWhileTheKioskOwnsItsVTAndBackAtExit() throws {
        let vt = FakeVT()
        let log = LoggedLines()
        let terminal = try VirtualTerminal(vt, reopen: vt.reopen, number: 1, keyboard: locked, log: log.logger)
        #expect(vt.keyboard == .off)
        #expect(vt.display == CLinux_KD_GRAPHICS)
        #expect(Int32(vt.switching.mode) == CLinux_VT_PROCESS)
        #expect(terminal.keyboardMode == .off)
        #expect(log.all == ["/dev/tty1: keyboard off while the kiosk runs: no VT switch, Ctrl-Alt-Del or typing from a keyboard ([kiosk] allow_vt_switch = false; chvt still switches)"])
        terminal.restore()
        #expect(vt.keyboard == .unicode)
        #expect(vt.display == CLinux_KD_TEXT)
        #expect(Int32(vt.switching.mode) == CLinux_VT_AUTO)
        terminal.restore()
        #expect(vt.calls.filter { $0.hasPrefix("KDSKBMODE") } == ["KDSKBMODE off", "KDSKBMODE unicode"], "only the first restore acts")
    }

    @Test func aSwitchAwayAndBackLeavesTheKeyboardOff() throws {
        let vt = FakeVT()
        let terminal = try VirtualTerminal(vt, reopen: vt.reopen, number: 1, keyboard: locked, log: .discard)
        vt.requestSwitchAway()
        #expect(terminal.handleSwitchSignal() == .release)
        #expect(terminal.acknowledgeRelease())
        #expect(terminal.handleSwitchSignal() == .acquire)
        terminal.acknowledgeAcquire()
        #expect(vt.keyboard == .off)
        #expect(vt.calls == ["KDGKBMODE read", "VT_SETMODE process", "KDSETMODE graphics", "KDSKBMODE off", "VT_RELDISP release", "VT_RELDISP ackacq"])
    }

    /// systemd's TTYReset= for the unit's reload command turns the keyboard back on; the kiosk
    /// turns it off again when it reloads.
    @Test func aKeyboardSomeoneElseResetIsTurnedOffAgain() throws {
        let vt = FakeVT()
        let log = LoggedLines()
        let terminal = try VirtualTerminal(vt, reopen: vt.reopen, number: 1, keyboard: locked, log: log.logger)
        terminal.keepKeyboard()
        #expect(vt.calls.filter { $0.hasPrefix("KDSKBMODE") } == ["KDSKBMODE off"], "nothing changed: nothing set")
        vt.keyboard = .unicode
        terminal.keepKeyboard()
        #expect(vt.keyboard == .off)
        #expect(log.all.last == "/dev/tty1: the keyboard mode was reset to K_UNICODE by another program; K_OFF again")
        let allowedVT = FakeVT()
        let allowedTerminal = try VirtualTerminal(allowedVT, reopen: allowedVT.reopen, number: 1, keyboard: allowed, log: .discard)
        allowedVT.keyboard = .translated
        allowedTerminal.keepKeyboard()
        #expect(allowedVT.keyboard == .translated, "allowed switching keeps no mode of its own")
    }

    /// systemd's reload command also hangs the VT up (TTYVHangup=) and resets it: the kiosk opens
    /// it again, turns the keyboard off again, and a switch away after it still goes ahead.
    @Test func aHungUpVTIsOpenedAgain() throws {
        let vt = FakeVT()
        let log = LoggedLines()
        let terminal = try VirtualTerminal(vt, reopen: vt.reopen, number: 1, keyboard: locked, log: log.logger)
        vt.hungUp = true
        vt.keyboard = .unicode
        terminal.keepKeyboard()
        #expect(vt.keyboard == .off)
        #expect(log.all.suffix(2) == ["/dev/tty1: hung up (systemd's TTYVHangup= for the unit's reload command, say); opened again",
                                      "/dev/tty1: the keyboard mode was reset to K_UNICODE by another program; K_OFF again"])
        vt.hungUp = true
        vt.requestSwitchAway()
        #expect(terminal.handleSwitchSignal() == .release)
        #expect(terminal.acknowledgeRelease())
        #expect(!vt.switchPending)
    }

    @Test func allowedSwitchingLeavesTheKeyboardAlone() throws {
        let vt = FakeVT()
        vt.keyboard = .translated
        let log = LoggedLines()
        let terminal = try VirtualTerminal(vt, reopen: vt.reopen, number: 1, keyboard: allowed, log: log.logger)
        #expect(terminal.keyboardMode == nil)
        #expect(log.all == ["/dev/tty1: keys may switch VTs and reach the console ([kiosk] allow_vt_switch = true)"])
        terminal.restore()
        #expect(vt.keyboard == .translated)
        #expect(!vt.calls.contains { $0.hasPrefix("KDSKBMODE") })
    }

    /// A kiosk killed while it owned the VT (a crash, SIGKILL by the watchdog) leaves K_OFF,
    /// KD_GRAPHICS and its own VT_PROCESS behind, possibly with a switch away pending; started
    /// from a shell (no `TTYReset=`), the next one takes the VT as it is and gives back a console
    /// that answers its keyboard.
    @Test func whatACrashedKioskLeftBehindIsGivenBackUsable() throws {
        let vt = FakeVT()
        vt.keyboard = .off
        vt.display = CLinux_KD_GRAPHICS
        vt.switching.mode = CChar(CLinux_VT_PROCESS)
        vt.switching.relsig = 34
        vt.requestSwitchAway()
        let terminal = try VirtualTerminal(vt, reopen: vt.reopen, number: 1, keyboard: locked, log: .discard)
        #expect(!vt.calls.contains { $0.hasPrefix("KDSKBMODE") }, "already off: nothing to set")
        #expect(terminal.handleSwitchSignal() == .release)
        #expect(terminal.acknowledgeRelease(), "the crashed kiosk's pending switch goes ahead")
        terminal.restore()
        #expect(vt.keyboard == .unicode)
        #expect(vt.display == CLinux_KD_TEXT)
        #expect(Int32(vt.switching.mode) == CLinux_VT_AUTO)
        #expect(vt.switching.relsig == 0)
    }

    /// Killed mid-switch (released, the other VT in front), with switching allowed the next time:
    /// the deaf keyboard answers again at once, and the kiosk waits for its VT.
    @Test func aCrashMidSwitchWithSwitchingAllowedMakesTheKeyboardAnswer() throws {
        let vt = FakeVT()
        vt.keyboard = .off
        vt.active = 2
        let terminal = try VirtualTerminal(vt, reopen: vt.reopen, number: 1, keyboard: allowed, log: .discard)
        #expect(!terminal.isActive)
        #expect(vt.keyboard == .unicode)
        #expect(terminal.keyboardMode == .unicode)
        terminal.restore()
        #expect(vt.keyboard == .unicode)
    }

    @Test func aRefusedKeyboardModeIsOneLineAndTheKioskGoesOn() throws {
        let vt = FakeVT()
        vt.refused = ["KDSKBMODE"]
        let log = LoggedLines()
        let terminal = try VirtualTerminal(vt, reopen: vt.reopen, number: 1, keyboard: locked, log: log.logger)
        #expect(terminal.keyboardMode == nil)
        #expect(vt.display == CLinux_KD_GRAPHICS, "the VT is still the kiosk's")
        #expect(log.all == ["/dev/tty1: Operation not permitted (KDSKBMODE, errno 1): the keyboard stays as it was; keys may switch VTs"])
        terminal.restore()
        #expect(vt.calls.filter { $0.hasPrefix("KDSKBMODE") } == ["KDSKBMODE off"], "nothing to give back")
    }

    @Test func aVTThatRefusesGraphicsIsGivenBackAsItWas() throws {
        let vt = FakeVT()
        vt.refused = ["KDSETMODE"]
        #expect(throws: SystemError.self) { try VirtualTerminal(vt, reopen: vt.reopen, number: 1, keyboard: locked, log: .discard) }
        #expect(Int32(vt.switching.mode) == CLinux_VT_AUTO)
        #expect(vt.keyboard == .unicode, "the keyboard is not touched before the VT is ours")
    }
}

/// The policy alone.
struct ConsoleKeyboardPolicyTests {
    @Test func deafModesAreGivenBackAsUnicode() {
        #expect(ConsoleKeyboardPolicy.atExit(found: .off) == .unicode)
        #expect(ConsoleKeyboardPolicy.atExit(found: .raw) == .unicode)
        #expect(ConsoleKeyboardPolicy.atExit(found: .mediumRaw) == .unicode)
        #expect(ConsoleKeyboardPolicy.atExit(found: .translated) == .translated)
        #expect(ConsoleKeyboardPolicy.atExit(found: .unknown(9)) == .unknown(9))
    }

    @Test func whileOwned() {
        let locked = ConsoleKeyboardPolicy(allowVTSwitch: false)
        let allowed = ConsoleKeyboardPolicy(allowVTSwitch: true)
        #expect(locked.whileOwned(found: .unicode) == .off)
        #expect(locked.whileOwned(found: .off) == nil)
        #expect(allowed.whileOwned(found: .unicode) == nil)
        #expect(allowed.whileOwned(found: .raw) == .unicode)
    }

    @Test func theKernelsNumbersRoundTrip() {
        for mode in [ConsoleKeyboardMode.raw, .mediumRaw, .translated, .unicode, .off, .unknown(7)] {
            #expect(ConsoleKeyboardMode(kernelValue: mode.kernelValue) == mode)
        }
        #expect(ConsoleKeyboardMode.off.kernelValue == CLinux_K_OFF)
    }
}
