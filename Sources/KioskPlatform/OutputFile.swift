#if canImport(Glibc)
import Glibc
#endif
import KioskCore

/// The one way the kiosk writes a file (screenshots, `play --audio-out`, `touch-heatmap --out`,
/// the metrics textfile, generated sounds), the writers' twin of `FileSystem.openRegularFile`.
///
/// - Nothing there: the file is created.
/// - A regular file (or a symlink to one): replaced atomically: a temporary file beside the
///   target (`NAME.tmp.PID`), written, fsynced, then renamed over it, so a reader or a power cut
///   sees the old file or the new one, never half of one. A symlink stays and its target is
///   replaced; the old file's permission bits are kept.
/// - Anything else (a FIFO, a device such as `/dev/null`, a directory, a socket, a dangling
///   symlink): refused with `OutputRefusal` and left as it is. The path itself is never opened,
///   so a FIFO cannot block the writer, and a device node is never replaced by a regular file.
///
/// Something put in the file's place between the check and the rename is replaced: the check
/// guards against mistakes, not against a hostile writer of the same folder.
public enum OutputFile {
    /// Where a write to `path` would go: `path` itself, or the regular file a symlink at `path`
    /// points to; throws `OutputRefusal` when something other than a regular file is there.
    /// One-shot commands call it before their work, so a refused output costs nothing.
    @discardableResult
    public static func check(_ path: String) throws -> String {
        guard !path.isEmpty else { throw SystemError("open", path, errno: ENOENT) }
        var st = stat()
        if lstat(path, &st) != 0 {
            if errno == ENOENT { return path }
            throw SystemError("lstat", path)
        }
        var target = path
        if (st.st_mode & S_IFMT) == S_IFLNK {
            guard stat(path, &st) == 0 else {
                if errno == ENOENT { throw OutputRefusal(path: path, kind: "a symlink to nothing") }
                throw SystemError("stat", path)
            }
            guard let resolved = realpath(path, nil) else { throw SystemError("realpath", path) }
            target = String(cString: resolved)
            free(resolved)
        }
        guard (st.st_mode & S_IFMT) == S_IFREG else {
            throw OutputRefusal(path: path, kind: FileSystem.fileKind(st.st_mode))
        }
        return target
    }

    /// Writes `bytes` to `path` as the type's documentation says; throws `OutputRefusal` or
    /// `SystemError` (errno and the file it failed on) and then leaves no temporary file behind.
    public static func write(_ path: String, _ bytes: [UInt8]) throws {
        let target = try check(path)
        var st = stat()
        let existingMode: mode_t? = stat(target, &st) == 0 ? st.st_mode & 0o7777 : nil
        let tmp = target + ".tmp.\(getpid())"
        // A leftover from a crashed run of the same pid goes first; O_EXCL|O_NOFOLLOW then makes
        // sure the temporary file is ours and not a link planted to redirect the write.
        unlink(tmp)
        let file = try FileDescriptor.open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                                           permissions: existingMode ?? 0o644)
        let fd = file.rawValue
        var renamed = false
        defer { if !renamed { unlink(tmp) } }
        // A replaced file keeps its permissions (the umask narrowed the create mode).
        if let existingMode { try retryingInterrupts("fchmod", tmp) { fchmod(fd, existingMode) } }
        var offset = 0
        while offset < bytes.count {
            let n = try bytes.withUnsafeBytes { buf in
                try retryingInterrupts("write", tmp) { Glibc.write(fd, buf.baseAddress! + offset, buf.count - offset) }
            }
            offset += n
        }
        try retryingInterrupts("fsync", tmp) { fsync(fd) }
        // A failed close can be the write's delayed error (NFS, a full disk): never rename then.
        try file.close()
        try retryingInterrupts("rename", target) { rename(tmp, target) }
        renamed = true
    }

    /// Writes `bytes` into the regular file already at `path`, in place: opened for writing and
    /// truncated, never created, renamed or fsynced. For kernel attributes (sysfs), which take
    /// their value in one write(2) and cannot be replaced; anything but a regular file is
    /// refused with `OutputRefusal`. Throws `SystemError` with errno and the path.
    public static func writeInPlace(_ path: String, _ bytes: [UInt8]) throws {
        var st = stat()
        guard stat(path, &st) == 0 else { throw SystemError("stat", path) }
        guard (st.st_mode & S_IFMT) == S_IFREG else { throw OutputRefusal(path: path, kind: FileSystem.fileKind(st.st_mode)) }
        let file = try FileDescriptor.open(path, O_WRONLY | O_TRUNC | O_CLOEXEC | O_NOCTTY)
        let fd = file.rawValue
        var offset = 0
        while offset < bytes.count {
            let n = try bytes.withUnsafeBytes { buf in
                try retryingInterrupts("write", path) { Glibc.write(fd, buf.baseAddress! + offset, buf.count - offset) }
            }
            offset += n
        }
        // sysfs reports a refused value (EINVAL) at write; a regular file's late error at close.
        try file.close()
    }

    /// Why a write failed, without the path, for a line that names the path first (so a long
    /// path is not shown twice): `No such file or directory (open, errno 2)`.
    public static func reason(_ error: any Error) -> String {
        switch error {
        case let refusal as OutputRefusal: return refusal.reason
        case let error as SystemError: return "\(String(cString: strerror(error.errno))) (\(error.call), errno \(error.errno))"
        default: return "\(error)"
        }
    }
}

/// An output file that was not written because something other than a regular file is in its place.
public struct OutputRefusal: Error, Equatable, CustomStringConvertible {
    /// The path as given.
    public var path: String
    /// What is there: `a FIFO`, `a character device`, `a directory`...
    public var kind: String

    public init(path: String, kind: String) {
        self.path = path
        self.kind = kind
    }

    /// What is wrong, without the path.
    public var reason: String { "not a regular file (\(kind)); left as it is" }

    public var description: String { "\(echoed(path, limit: 200)): \(reason)" }
}
