import Glibc
import KioskCore

extension LockdownStatus {
    /// logind's drop-in from `bubble-kiosk-lockdown` (or an administrator's copy in /etc).
    public static let logindDropIns = ["/usr/lib/systemd/logind.conf.d/50-bubble-kiosk-lockdown.conf",
                                       "/etc/systemd/logind.conf.d/50-bubble-kiosk-lockdown.conf"]

    /// The machine's state now, below `root` ("" for this machine; tests hand in a folder).
    public static func read(root: String = "") -> LockdownStatus {
        let sysrq = (try? FileSystem.readText(root + "/proc/sys/kernel/sysrq", limit: 64))
            .flatMap { Int($0.split(separator: "\n").first ?? "") }
        return LockdownStatus(sysrq: sysrq, ctrlAltDelMasked: isMasked(root + "/etc/systemd/system/ctrl-alt-del.target"),
                              logindDropIn: logindDropIns.contains { FileSystem.exists(root + $0) })
    }

    /// A unit file linked to /dev/null: systemd's mask.
    static func isMasked(_ path: String) -> Bool {
        var buffer = [CChar](repeating: 0, count: 64)
        let n = readlink(path, &buffer, buffer.count - 1)
        guard n > 0 else { return false }
        return String(decoding: buffer[..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self) == "/dev/null"
    }
}
