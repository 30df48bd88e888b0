import Glibc
import KioskCore
import KioskPlatform
import KioskTestSupport
import Testing

/// The lockdown read from a folder laid out as the machine's would be.
struct LockdownProbeTests {
    @Test func readsTheMaskTheSysRqValueAndLogindsDropIn() throws {
        let root = makeTemporaryDirectory("bubble-kiosk-lockdown")
        defer { removeTree(root) }
        #expect(LockdownStatus.read(root: root) == LockdownStatus(sysrq: nil, ctrlAltDelMasked: false, logindDropIn: false))
        for dir in ["/proc/sys/kernel", "/etc/systemd/system", "/usr/lib/systemd/logind.conf.d"] {
            #expect(makeDirectories(root + dir))
        }
        writeFile(root + "/proc/sys/kernel/sysrq", "16\n")
        #expect(symlink("/dev/null", root + "/etc/systemd/system/ctrl-alt-del.target") == 0)
        writeFile(root + "/usr/lib/systemd/logind.conf.d/50-bubble-kiosk-lockdown.conf", "[Login]\n")
        #expect(LockdownStatus.read(root: root) == LockdownStatus(sysrq: 16, ctrlAltDelMasked: true, logindDropIn: true))
        // A target linked anywhere else is not masked.
        unlink(root + "/etc/systemd/system/ctrl-alt-del.target")
        #expect(symlink("/lib/systemd/system/reboot.target", root + "/etc/systemd/system/ctrl-alt-del.target") == 0)
        #expect(!LockdownStatus.read(root: root).ctrlAltDelMasked)
    }
}
