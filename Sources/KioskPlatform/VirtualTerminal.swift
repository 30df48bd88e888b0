internal import CLinux
import Glibc
import KioskCore

/// What a VT switch signal asks of the kiosk.
public enum VTSwitch: Equatable, Sendable {
    /// Another VT is about to be shown: stop using the screen (`Display.suspend()`), then
    /// `acknowledgeRelease()`. The kernel holds the switch until then.
    case release
    /// The kiosk's VT is shown again: `acknowledgeAcquire()`, then take the screen back
    /// (`Display.resume()`) and repaint everything.
    case acquire
}

/// The Linux virtual terminal (/dev/ttyN) the kiosk runs on, owned the way X and Weston own
/// theirs without logind: the kernel asks before switching away and tells when it switched
/// back (VT_PROCESS, both with `switchSignal`), the console stays in KD_GRAPHICS so its text and
/// cursor never draw over the game, and its keyboard is off unless `[kiosk] allow_vt_switch`
/// (`ConsoleKeyboardPolicy`).
///
/// It installs no signal handler: the event loop reads `switchSignal` through its signalfd and
/// calls `handleSwitchSignal()`, then the display work, then the acknowledgement.
public final class VirtualTerminal: ConsoleOwner {
    /// The signal `open` asks the kernel to send (SIGRTMIN, as Weston uses; SIGUSR1 belongs to
    /// the screenshot feature). Block it and read it through a signalfd before calling `open`:
    /// its default action ends the process, and a switch may come at once.
    public static var signal: Int32 { CLinux_sigrtmin() }
    /// The signal the kernel sends for both a release request and an acquisition.
    public let switchSignal: Int32
    /// The VT's number: 1 for /dev/tty1.
    public let number: Int
    /// True while this VT is the one on screen (and the kiosk may use the display).
    public private(set) var isActive: Bool
    /// `/dev/ttyN`, for logs.
    public var name: String { "/dev/tty\(number)" }
    /// The keyboard mode set while the kiosk owns the VT (nil: left as found).
    public let keyboardMode: ConsoleKeyboardMode?

    private var device: VTDevice
    /// Opens the VT again by its path: systemd hangs the VT up (`TTYVHangup=`) for the unit's
    /// reload command too, after which every descriptor open on it fails with EIO.
    private let reopen: () throws -> VTDevice
    private let saved: (display: Int32, keyboard: ConsoleKeyboardMode, switching: vt_mode)
    private var restored = false
    private let log: Logger

    /// The VT on standard input (where the unit's `TTYPath=` puts it), taken over for
    /// VT_PROCESS switching, graphics mode and the keyboard as `keyboard` says; nil when
    /// standard input is not a virtual console (a pipe, /dev/null, a serial line, ssh's pty,
    /// /dev/tty0). Throws when it is one but cannot be taken (not root and not its owner: EPERM).
    public static func openStandardInput(keyboard: ConsoleKeyboardPolicy, log: Logger) throws -> VirtualTerminal? {
        try open(fd: STDIN_FILENO, keyboard: keyboard, log: log)
    }

    /// The VT behind `fd`, as `openStandardInput` (tests hand in other descriptors).
    static func open(fd: Int32, keyboard: ConsoleKeyboardPolicy, log: Logger) throws -> VirtualTerminal? {
        var info = stat()
        if fstat(fd, &info) != 0 {
            if errno == EBADF { return nil }  // no such descriptor: started without stdin
            throw SystemError("fstat", "fd \(fd)")
        }
        guard let number = vtNumber(mode: info.st_mode, device: info.st_rdev) else { return nil }
        let name = "/dev/tty\(number)"
        // Closed again if taking the VT fails.
        let device = ConsoleDevice(try FileDescriptor.duplicate(fd, context: name), name: name)
        let reopen = { try ConsoleDevice.reacquire(name) as VTDevice }
        return try VirtualTerminal(device, reopen: reopen, number: number, keyboard: keyboard, log: log)
    }

    /// Takes the VT behind `device` (tests hand in a fake one); `reopen` opens it again after a hangup.
    init(_ device: VTDevice, reopen: @escaping () throws -> VTDevice, number: Int, keyboard: ConsoleKeyboardPolicy,
         log: Logger) throws {
        self.log = log
        self.device = device
        self.reopen = reopen
        let name = "/dev/tty\(number)"
        let display = try device.displayMode()
        let switching = try device.switchMode()
        let foundKeyboard = try device.keyboardMode()
        let active = try device.activeVT()
        var mode = vt_mode()
        mode.mode = CChar(CLinux_VT_PROCESS)
        mode.relsig = Int16(Self.signal)
        mode.acqsig = Int16(Self.signal)
        try device.setSwitchMode(mode)
        do {
            try device.setDisplayMode(CLinux_KD_GRAPHICS)
        } catch {
            // Leave the VT as it was: a kiosk without its VT still runs.
            do { try device.setSwitchMode(Self.automatic(switching)) } catch { log(.error, "\(error)") }
            throw error
        }
        var keyboardMode = keyboard.whileOwned(found: foundKeyboard)
        do {
            if let wanted = keyboardMode { try device.setKeyboardMode(wanted) }
            log(.info, keyboard.describe(on: name))
        } catch {
            // The game runs on with the keyboard as it was.
            log(.warning, "\(error): the keyboard stays as it was\(keyboard.allowVTSwitch ? "" : "; keys may switch VTs")")
            keyboardMode = nil
        }
        self.keyboardMode = keyboardMode
        self.number = number
        switchSignal = Self.signal
        saved = (display, foundKeyboard, switching)
        isActive = active == number
    }

    deinit {
        restore()
    }

    /// The VT number of a character device 4:1...4:63 (tty1..tty63); nil for anything else,
    /// including 4:0 (/dev/tty0, "the current VT", which cannot be owned) and serial ports (4:64+).
    static func vtNumber(mode: mode_t, device: dev_t) -> Int? {
        guard mode & S_IFMT == S_IFCHR, CLinux_dev_major(device) == CLinux_TTY_MAJOR else { return nil }
        let minor = CLinux_dev_minor(device)
        guard minor >= 1, minor <= CLinux_MAX_NR_CONSOLES else { return nil }
        return Int(minor)
    }

    /// What the switch signal that just arrived means. The kernel sends the same signal both
    /// ways, so, like Weston, the VT's own state decides: active means the kernel asks us to
    /// let go, inactive means we were switched back to. Acknowledge with
    /// `acknowledgeRelease()` or `acknowledgeAcquire()` once the display is handled. The
    /// keyboard mode belongs to this VT alone, so it stays as set either way.
    public func handleSwitchSignal() -> VTSwitch {
        isActive.toggle()
        return isActive ? .acquire : .release
    }

    /// Lets the pending switch away go ahead (VT_RELDISP 1); call after the display stopped
    /// using the screen and dropped DRM master. Returns false when the kernel had no switch
    /// pending (the signal came from `kill`, not from a VT switch): the VT is still ours and
    /// active, so take the display back.
    @discardableResult
    public func acknowledgeRelease() -> Bool {
        guard !restored else { return true }
        do {
            try onDevice { try $0.releaseDisplay(1) }
            return true
        } catch let error as SystemError where error.errno == EINVAL {
            isActive = true
            log(.notice, "\(name): signal \(switchSignal) without a VT switch pending; ignored")
        } catch {
            log(.error, "\(error)")
        }
        return false
    }

    /// Acknowledges that the VT is ours again (VT_RELDISP VT_ACKACQ).
    public func acknowledgeAcquire() {
        guard !restored else { return }
        do { try onDevice { try $0.releaseDisplay(CLinux_VT_ACKACQ) } } catch { log(.error, "\(error)") }
    }

    /// Sets the keyboard mode the kiosk chose again when the VT's is another now (K_UNICODE
    /// after a reload's `TTYReset=`); one line says so.
    public func keepKeyboard() {
        guard !restored, let wanted = keyboardMode else { return }
        do {
            let found = try onDevice { try $0.keyboardMode() }
            guard found != wanted else { return }
            try onDevice { try $0.setKeyboardMode(wanted) }
            log(.info, "\(name): the keyboard mode was reset to \(found.kernelName) by another program; \(wanted.kernelName) again")
        } catch {
            log(.error, "\(error): the keyboard stays as it is")
        }
    }

    /// Gives the VT back: text mode, the keyboard, automatic switching. A KD_GRAPHICS or a deaf
    /// keyboard left behind by a crashed program is not restored (the console would stay blank
    /// or ignore its keyboard): KD_TEXT and K_UNICODE instead. Call after the display is
    /// restored. Only the first call acts; deinit calls it too.
    public func restore() {
        guard !restored else { return }
        restored = true
        let display = saved.display == CLinux_KD_GRAPHICS ? CLinux_KD_TEXT : saved.display
        do { try onDevice { try $0.setDisplayMode(display) } } catch { log(.error, "\(error)") }
        if keyboardMode != nil || saved.keyboard.isDeaf {
            do {
                try onDevice { try $0.setKeyboardMode(ConsoleKeyboardPolicy.atExit(found: saved.keyboard)) }
            } catch {
                log(.error, "\(error)")
            }
        }
        do { try onDevice { try $0.setSwitchMode(Self.automatic(saved.switching)) } } catch { log(.error, "\(error)") }
    }

    /// `body` on the VT's descriptor; once more on a fresh one when the VT was hung up (EIO).
    private func onDevice<T>(_ body: (VTDevice) throws -> T) throws -> T {
        do {
            return try body(device)
        } catch let error as SystemError where error.errno == EIO {
            device = try reopen()
            log(.info, "\(name): hung up (systemd's TTYVHangup= for the unit's reload command, say); opened again")
            return try body(device)
        }
    }

    /// Automatic switching again: the saved mode may name another program's VT_PROCESS signals.
    private static func automatic(_ saved: vt_mode) -> vt_mode {
        var mode = saved
        mode.mode = CChar(CLinux_VT_AUTO)
        mode.relsig = 0
        mode.acqsig = 0
        return mode
    }
}
