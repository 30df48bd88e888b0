import Glibc
import KioskCore

/// A file's identity: its device and inode number. A file renamed over a path (as dpkg installs
/// one) has another inode than the one it replaced, which the running process keeps in use until
/// it exits, so the two never compare equal. Times are left out: `touch` changes them without
/// making a new program.
public struct FileIdentity: Equatable, Sendable {
    public var device: UInt64
    public var inode: UInt64

    public init(device: UInt64, inode: UInt64) {
        self.device = device
        self.inode = inode
    }

    /// The file at `path` (links followed); nil when there is none or it cannot be looked at.
    public init?(_ path: String) {
        var st = stat()
        guard stat(path, &st) == 0 else { return nil }
        self.init(device: UInt64(st.st_dev), inode: UInt64(st.st_ino))
    }
}

/// The program file the running kiosk was started from, and whether a new one has been
/// installed in its place since.
public struct InstalledProgram: Equatable, Sendable {
    /// Where the program is installed (`/usr/bin/bubble-kiosk`).
    public var path: String
    /// The file the process runs.
    public var running: FileIdentity

    public init(path: String, running: FileIdentity) {
        self.path = path
        self.running = running
    }

    /// The file at `path` now stands for the running program (tests stand one in for it).
    public init?(standingIn path: String) {
        guard let identity = FileIdentity(path) else { return nil }
        self.init(path: path, running: identity)
    }

    /// The process's own program, from `/proc/self/exe`; nil when the kernel does not say.
    /// A program replaced before this was asked still counts: the link then names its path with
    /// ` (deleted)` after it, and `running` is the old file, so `isReplaced` is true at once.
    public static func current() -> InstalledProgram? {
        let link = "/proc/self/exe"
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let n = readlink(link, &buffer, buffer.count - 1)
        guard n > 0, let running = FileIdentity(link) else { return nil }
        var path = String(decoding: buffer[..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let deleted = " (deleted)"
        if path.hasSuffix(deleted) { path.removeLast(deleted.count) }
        return InstalledProgram(path: path, running: running)
    }

    /// The directory the program is installed in and its name there (what inotify reports).
    public var directoryAndName: (directory: String, name: String) {
        guard let slash = path.lastIndex(of: "/") else { return (".", path) }
        let directory = String(path[..<slash])
        return (directory.isEmpty ? "/" : directory, String(path[path.index(after: slash)...]))
    }

    /// Another file than the running one is at `path` now (a missing one is no new program).
    public var isReplaced: Bool {
        guard let now = FileIdentity(path) else { return false }
        return now != running
    }
}
