internal import CLinux
import Glibc
import KioskCore

/// Changes to files in watched directories, from the kernel (inotify): one descriptor on the
/// loop, any number of watches, and the notices read from it handed on in batches.
///
/// The touchscreens' hotplug (`/dev/input`) and the program file's upgrade
/// (`InstalledProgram`) both watch through this, each with its own.
public final class FileNotifications {
    /// What happened, inotify's event bits by name; also what a watch asks for.
    public struct Events: OptionSet, Sendable {
        public let rawValue: UInt32
        public init(rawValue: UInt32) { self.rawValue = rawValue }

        /// A file was made in the directory (`IN_CREATE`).
        public static let created = Events(rawValue: CLinux_IN_CREATE)
        /// A file was removed from it (`IN_DELETE`).
        public static let deleted = Events(rawValue: CLinux_IN_DELETE)
        /// A file's permissions, owner or times changed (`IN_ATTRIB`).
        public static let attributesChanged = Events(rawValue: CLinux_IN_ATTRIB)
        /// A file was renamed into the directory, perhaps over another (`IN_MOVED_TO`).
        public static let movedIn = Events(rawValue: CLinux_IN_MOVED_TO)
        /// A file was renamed away from it (`IN_MOVED_FROM`).
        public static let movedOut = Events(rawValue: CLinux_IN_MOVED_FROM)
        /// A file opened for writing was closed (`IN_CLOSE_WRITE`).
        public static let closedAfterWrite = Events(rawValue: CLinux_IN_CLOSE_WRITE)
        /// The watched directory itself was removed (`IN_DELETE_SELF`).
        public static let selfDeleted = Events(rawValue: CLinux_IN_DELETE_SELF)
        /// The watch is gone (removed, or its directory was) (`IN_IGNORED`).
        public static let watchGone = Events(rawValue: CLinux_IN_IGNORED)
        /// The kernel's queue overflowed and notices were lost: look again (`IN_Q_OVERFLOW`).
        public static let overflow = Events(rawValue: CLinux_IN_Q_OVERFLOW)
        /// When adding a watch: only if the path is a directory (`IN_ONLYDIR`).
        public static let onlyDirectory = Events(rawValue: CLinux_IN_ONLYDIR)
    }

    /// One watch, as `add` returned it.
    public struct Watch: Hashable, Sendable {
        let descriptor: Int32
    }

    /// One notice: which watch (nil for an overflow, which concerns them all), what happened,
    /// and the name of the file in the watched directory ("" for the directory itself).
    public struct Notice: Equatable, Sendable {
        public var watch: Watch?
        public var events: Events
        public var name: String
    }

    private let descriptor: FileDescriptor
    private var registration: LoopRegistration?
    /// What the notices are about, for error lines (`/dev/input`).
    private let subject: String
    private let log: Logger

    /// - Parameters:
    ///   - subject: what is watched, for error lines.
    ///   - notices: called on the loop with every notice read at once, oldest first.
    public init(_ subject: String, loop: EventLoop, log: Logger, notices: @escaping ([Notice]) -> Void) throws {
        self.subject = subject
        self.log = log
        descriptor = FileDescriptor(adopting: try retryingInterrupts("inotify_init1", subject) { CLinux_inotify_init() })
        registration = loop.register(descriptor, name: "inotify \(subject)") { [weak self] in
            guard let self else { return }
            let read = readNotices()
            if !read.isEmpty { notices(read) }
        }
    }

    deinit {
        // The loop lets go of the descriptor before it closes (after this).
        registration?.cancel()
    }

    /// Watches `path` for `events`; a path watched already gets the same watch, with `events` now.
    public func add(_ path: String, for events: Events) throws -> Watch {
        let wd = inotify_add_watch(descriptor.rawValue, path, events.rawValue)
        if wd < 0 { throw SystemError("inotify_add_watch", path) }
        return Watch(descriptor: wd)
    }

    /// Stops a watch; `path` names it in the error. EINVAL: it was gone already (its directory
    /// was removed and took it along).
    public func remove(_ watch: Watch, path: String) throws {
        if inotify_rm_watch(descriptor.rawValue, watch.descriptor) != 0 { throw SystemError("inotify_rm_watch", path) }
    }

    /// Everything the kernel has queued, until it has no more.
    private func readNotices() -> [Notice] {
        var notices: [Notice] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = buffer.withUnsafeMutableBytes { buf in uninterrupted { read(descriptor.rawValue, buf.baseAddress, buf.count) } }
            if n < 0 {
                if errno != EAGAIN { log(.error, "\(SystemError("read", "inotify \(subject)"))") }
                return notices
            }
            if n == 0 { return notices }
            notices += Self.parse(buffer[..<n])
        }
    }

    /// The notices in `bytes`: struct inotify_event (wd, mask, cookie, len) and then `len`
    /// bytes of name, padded with NULs. The kernel hands out whole records only; one cut short
    /// ends the list rather than yield half a name.
    static func parse(_ bytes: ArraySlice<UInt8>) -> [Notice] {
        var notices: [Notice] = []
        var offset = bytes.startIndex
        while offset + 16 <= bytes.endIndex {
            let (wd, mask, length) = bytes.withUnsafeBytes { raw in
                let at = offset - bytes.startIndex
                return (raw.loadUnaligned(fromByteOffset: at, as: Int32.self),
                        raw.loadUnaligned(fromByteOffset: at + 4, as: UInt32.self),
                        Int(raw.loadUnaligned(fromByteOffset: at + 12, as: UInt32.self)))
            }
            guard offset + 16 + length <= bytes.endIndex else { break }
            let nameBytes = bytes[(offset + 16)..<(offset + 16 + length)].prefix { $0 != 0 }
            notices.append(Notice(watch: wd < 0 ? nil : Watch(descriptor: wd), events: Events(rawValue: mask),
                                  name: String(decoding: nameBytes, as: UTF8.self)))
            offset += 16 + length
        }
        return notices
    }
}
