import CLinux
import Glibc
import KioskCore
@testable import KioskPlatform
import KioskRender
import Testing

/// What can be checked without a VT: which devices count as one, that anything else is not
/// taken over, and the displays' suspend/resume defaults. The VM test (Tests/vm/e2e) switches
/// real VTs.
struct VirtualTerminalTests {
    @Test(arguments: [(4, 1, 1), (4, 2, 2), (4, 63, 63)])
    func virtualConsolesAreVTs(major: Int, minor: Int, number: Int) {
        let dev = CLinux_dev_make(UInt32(major), UInt32(minor))
        #expect(VirtualTerminal.vtNumber(mode: S_IFCHR | 0o620, device: dev) == number)
    }

    @Test(arguments: [(4, 0), (4, 64), (4, 65), (5, 0), (5, 1), (1, 3), (136, 0), (226, 0)])
    func otherCharacterDevicesAreNot(major: Int, minor: Int) {
        // tty0 (the current VT), ttyS0/ttyS1, /dev/tty, /dev/console, /dev/null, a pty, a DRM card.
        let dev = CLinux_dev_make(UInt32(major), UInt32(minor))
        #expect(VirtualTerminal.vtNumber(mode: S_IFCHR | 0o620, device: dev) == nil)
    }

    @Test func aBlockDeviceWithTheSameNumbersIsNot() {
        #expect(VirtualTerminal.vtNumber(mode: S_IFBLK | 0o660, device: CLinux_dev_make(4, 1)) == nil)
    }

    @Test func aPipeIsNoVT() throws {
        var fds: [Int32] = [-1, -1]
        #expect(pipe(&fds) == 0)
        defer { close(fds[0]); close(fds[1]) }
        #expect(try VirtualTerminal.open(fd: fds[0], keyboard: ConsoleKeyboardPolicy(allowVTSwitch: false), log: .discard) == nil)
    }

    @Test func devNullIsNoVT() throws {
        let fd = Glibc.open("/dev/null", O_RDONLY | O_CLOEXEC)
        #expect(fd >= 0)
        defer { close(fd) }
        #expect(try VirtualTerminal.open(fd: fd, keyboard: ConsoleKeyboardPolicy(allowVTSwitch: false), log: .discard) == nil)
    }

    @Test func aClosedDescriptorIsNoVT() throws {
        let fd = Glibc.open("/dev/null", O_RDONLY | O_CLOEXEC)
        close(fd)
        #expect(try VirtualTerminal.open(fd: fd, keyboard: ConsoleKeyboardPolicy(allowVTSwitch: false), log: .discard) == nil)
    }

    @Test func theSwitchSignalIsARealTimeSignalNotUSR1() {
        let signal = VirtualTerminal.signal
        #expect(signal > SIGUSR2)
        #expect(signal != SIGUSR1)
    }

    @Test func displaysWithoutAMasterKeepPresentingAcrossSuspend() throws {
        let display = VirtualDisplay(size: PixelSize(width: 8, height: 8))
        display.suspend()
        #expect(display.canPresent)
        try display.resume()
        #expect(display.canPresent)
    }

    @Test func lostDisplaySaysSo() {
        #expect("\(DisplayError.lost("drm:/dev/dri/card0: refused"))" == "display lost: drm:/dev/dri/card0: refused")
    }
}
