internal import CLinux
import Glibc

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
/// back (VT_PROCESS, both with `switchSignal`), and the console stays in KD_GRAPHICS so its
/// text and cursor never draw over the game.
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

    /// Our own descriptor for the VT (a dup), so a closed or redirected stdin cannot take it away.
    private let descriptor: FileDescriptor
    private var fd: Int32 { descriptor.rawValue }
    private let savedKDMode: Int32
    private let savedVTMode: vt_mode
    private var restored = false
    private let log: Logger

    /// The VT on standard input (where the unit's `TTYPath=` puts it), taken over for
    /// VT_PROCESS switching and graphics mode; nil when standard input is not a virtual console
    /// (a pipe, /dev/null, a serial line, ssh's pty, /dev/tty0). Throws when it is one but
    /// cannot be taken (not root and not its owner: EPERM).
    public static func openStandardInput(log: Logger) throws -> VirtualTerminal? {
        try open(fd: STDIN_FILENO, log: log)
    }

    /// The VT behind `fd`, as `openStandardInput` (tests hand in other descriptors).
    static func open(fd: Int32, log: Logger) throws -> VirtualTerminal? {
        var info = stat()
        if fstat(fd, &info) != 0 {
            if errno == EBADF { return nil }  // no such descriptor: started without stdin
            throw SystemError("fstat", "fd \(fd)")
        }
        guard let number = vtNumber(mode: info.st_mode, device: info.st_rdev) else { return nil }
        // Closed again if taking the VT fails (the parameter is consumed either way).
        return try VirtualTerminal(FileDescriptor.duplicate(fd, context: "/dev/tty\(number)"), number: number, log: log)
    }

    private init(_ descriptor: consuming FileDescriptor, number: Int, log: Logger) throws {
        self.log = log
        let fd = descriptor.rawValue
        let name = "/dev/tty\(number)"
        var kd: Int32 = 0
        try retryingInterrupts("KDGETMODE", name) { CLinux_kd_get_mode(fd, &kd) }
        var saved = vt_mode()
        try retryingInterrupts("VT_GETMODE", name) { CLinux_vt_get_mode(fd, &saved) }
        var active: UInt16 = 0
        try retryingInterrupts("VT_GETSTATE", name) { CLinux_vt_get_active(fd, &active) }
        let signal = Self.signal
        var mode = vt_mode()
        mode.mode = CChar(CLinux_VT_PROCESS)
        mode.relsig = Int16(signal)
        mode.acqsig = Int16(signal)
        try retryingInterrupts("VT_SETMODE", "\(name) to VT_PROCESS") { CLinux_vt_set_mode(fd, &mode) }
        if CLinux_kd_set_mode(fd, CLinux_KD_GRAPHICS) != 0 {
            let error = SystemError("KDSETMODE", "\(name) to KD_GRAPHICS")
            // Leave the VT as it was: a kiosk without its VT still runs.
            var back = saved
            back.mode = CChar(CLinux_VT_AUTO)
            if CLinux_vt_set_mode(fd, &back) != 0 {
                log(.error, "\(SystemError("VT_SETMODE", "\(name) back to VT_AUTO"))")
            }
            throw error
        }
        self.descriptor = descriptor
        self.number = number
        switchSignal = signal
        savedKDMode = kd
        savedVTMode = saved
        isActive = Int(active) == number
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
    /// `acknowledgeRelease()` or `acknowledgeAcquire()` once the display is handled.
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
        if CLinux_vt_release_display(fd, 1) == 0 { return true }
        let error = SystemError("VT_RELDISP", "\(name) release")
        if error.errno == EINVAL {
            isActive = true
            log(.notice, "\(name): signal \(switchSignal) without a VT switch pending; ignored")
        } else {
            log(.error, "\(error)")
        }
        return false
    }

    /// Acknowledges that the VT is ours again (VT_RELDISP VT_ACKACQ).
    public func acknowledgeAcquire() {
        guard !restored else { return }
        if CLinux_vt_release_display(fd, CLinux_VT_ACKACQ) != 0 {
            log(.error, "\(SystemError("VT_RELDISP", "\(name) VT_ACKACQ"))")
        }
    }

    /// Gives the VT back: text mode and automatic switching. A KD_GRAPHICS left behind by a
    /// crashed program is not restored (the console would stay blank), KD_TEXT is used instead.
    /// Call after the display is restored. Only the first call acts; deinit calls it too.
    public func restore() {
        guard !restored else { return }
        restored = true
        let kd = savedKDMode == CLinux_KD_GRAPHICS ? CLinux_KD_TEXT : savedKDMode
        if CLinux_kd_set_mode(fd, kd) != 0 {
            log(.error, "\(SystemError("KDSETMODE", "\(name) back to text mode"))")
        }
        // The saved mode may name another program's VT_PROCESS signals: automatic switching only.
        var mode = savedVTMode
        mode.mode = CChar(CLinux_VT_AUTO)
        mode.relsig = 0
        mode.acqsig = 0
        if CLinux_vt_set_mode(fd, &mode) != 0 {
            log(.error, "\(SystemError("VT_SETMODE", "\(name) back to VT_AUTO"))")
        }
    }
}
