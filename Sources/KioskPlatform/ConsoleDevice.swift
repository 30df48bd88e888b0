internal import CLinux
import Glibc
import KioskCore

/// The ioctls a `VirtualTerminal` makes on its VT; a protocol so tests can hand in a fake VT
/// (one a crashed kiosk left behind, one that refuses a mode). Failures throw `SystemError`s
/// naming the call and the VT.
protocol VTDevice: AnyObject {
    /// KDGETMODE / KDSETMODE: KD_TEXT or KD_GRAPHICS.
    func displayMode() throws -> Int32
    func setDisplayMode(_ mode: Int32) throws
    /// KDGKBMODE / KDSKBMODE.
    func keyboardMode() throws -> ConsoleKeyboardMode
    func setKeyboardMode(_ mode: ConsoleKeyboardMode) throws
    /// VT_GETMODE / VT_SETMODE.
    func switchMode() throws -> vt_mode
    func setSwitchMode(_ mode: vt_mode) throws
    /// VT_GETSTATE: the number of the VT in front.
    func activeVT() throws -> Int
    /// VT_RELDISP.
    func releaseDisplay(_ argument: Int32) throws
}

/// A VT the kernel has: the ioctls on our own descriptor for it.
final class ConsoleDevice: VTDevice {
    private let descriptor: FileDescriptor
    private let name: String
    private var fd: Int32 { descriptor.rawValue }

    init(_ descriptor: consuming FileDescriptor, name: String) {
        self.descriptor = descriptor
        self.name = name
    }

    /// The VT opened again after a hangup, and made the controlling terminal again: a hangup
    /// takes that away from the whole session, and without it the kernel refuses VT_RELDISP and
    /// KDSKBMODE (EPERM). systemd's unit made the kiosk its session's leader on that VT.
    static func reacquire(_ name: String) throws -> ConsoleDevice {
        let descriptor = try FileDescriptor.open(name, O_RDWR | O_NOCTTY | O_CLOEXEC)
        try retryingInterrupts("TIOCSCTTY", name) { CLinux_tty_take_controlling(descriptor.rawValue) }
        return ConsoleDevice(descriptor, name: name)
    }

    func displayMode() throws -> Int32 {
        var mode: Int32 = 0
        try retryingInterrupts("KDGETMODE", name) { CLinux_kd_get_mode(fd, &mode) }
        return mode
    }

    func setDisplayMode(_ mode: Int32) throws {
        let text = mode == CLinux_KD_GRAPHICS ? "KD_GRAPHICS" : "KD_TEXT"
        try retryingInterrupts("KDSETMODE", "\(name) to \(text)") { CLinux_kd_set_mode(fd, mode) }
    }

    func keyboardMode() throws -> ConsoleKeyboardMode {
        var mode: Int32 = 0
        try retryingInterrupts("KDGKBMODE", name) { CLinux_kb_get_mode(fd, &mode) }
        return ConsoleKeyboardMode(kernelValue: mode)
    }

    func setKeyboardMode(_ mode: ConsoleKeyboardMode) throws {
        try retryingInterrupts("KDSKBMODE", "\(name) to \(mode.kernelName)") { CLinux_kb_set_mode(fd, mode.kernelValue) }
    }

    func switchMode() throws -> vt_mode {
        var mode = vt_mode()
        try retryingInterrupts("VT_GETMODE", name) { CLinux_vt_get_mode(fd, &mode) }
        return mode
    }

    func setSwitchMode(_ mode: vt_mode) throws {
        var mode = mode
        let text = Int32(mode.mode) == CLinux_VT_PROCESS ? "VT_PROCESS" : "VT_AUTO"
        try retryingInterrupts("VT_SETMODE", "\(name) to \(text)") { CLinux_vt_set_mode(fd, &mode) }
    }

    func activeVT() throws -> Int {
        var active: UInt16 = 0
        try retryingInterrupts("VT_GETSTATE", name) { CLinux_vt_get_active(fd, &active) }
        return Int(active)
    }

    func releaseDisplay(_ argument: Int32) throws {
        let text = argument == CLinux_VT_ACKACQ ? "VT_ACKACQ" : "release"
        try retryingInterrupts("VT_RELDISP", "\(name) \(text)") { CLinux_vt_release_display(fd, argument) }
    }
}

extension ConsoleKeyboardMode {
    /// The mode the kernel calls `value` (K_RAW...K_OFF).
    init(kernelValue value: Int32) {
        switch value {
        case CLinux_K_RAW: self = .raw
        case CLinux_K_MEDIUMRAW: self = .mediumRaw
        case CLinux_K_XLATE: self = .translated
        case CLinux_K_UNICODE: self = .unicode
        case CLinux_K_OFF: self = .off
        default: self = .unknown(Int(value))
        }
    }

    var kernelValue: Int32 {
        switch self {
        case .raw: return CLinux_K_RAW
        case .mediumRaw: return CLinux_K_MEDIUMRAW
        case .translated: return CLinux_K_XLATE
        case .unicode: return CLinux_K_UNICODE
        case .off: return CLinux_K_OFF
        case .unknown(let value): return Int32(clamping: value)
        }
    }

    /// `K_OFF`, for logs.
    var kernelName: String {
        switch self {
        case .raw: return "K_RAW"
        case .mediumRaw: return "K_MEDIUMRAW"
        case .translated: return "K_XLATE"
        case .unicode: return "K_UNICODE"
        case .off: return "K_OFF"
        case .unknown(let value): return "keyboard mode \(value)"
        }
    }
}
