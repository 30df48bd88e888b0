#if canImport(Glibc)
import Glibc
#endif

/// An open file descriptor with one owner, which closes it: in `deinit`, or with `close()`
/// where the caller wants to hear of a failure. Move-only, so no copy can close it twice or
/// keep using a number the kernel has handed to someone else.
///
/// C calls take `rawValue` while the owner keeps the descriptor alive; an event loop
/// registration takes it the same way (the owner removes it before closing).
public struct FileDescriptor: ~Copyable, Sendable {
    /// The descriptor number, valid as long as this value lives.
    public let rawValue: Int32

    /// Takes ownership of `rawValue` (from `open`, `pipe2`, `eventfd`...), which must be open.
    public init(adopting rawValue: Int32) {
        precondition(rawValue >= 0, "a FileDescriptor needs an open descriptor, got \(rawValue)")
        self.rawValue = rawValue
    }

    /// Opens `path` with `flags` (O_CLOEXEC is the caller's to add), retrying on EINTR.
    public static func open(_ path: String, _ flags: Int32, permissions: mode_t = 0) throws -> FileDescriptor {
        FileDescriptor(adopting: try retryingInterrupts("open", path) { Glibc.open(path, flags, permissions) })
    }

    /// A close-on-exec duplicate (`F_DUPFD_CLOEXEC`) of a descriptor someone else owns.
    public static func duplicate(_ rawValue: Int32, context: String) throws -> FileDescriptor {
        FileDescriptor(adopting: try retryingInterrupts("fcntl(F_DUPFD_CLOEXEC)", context) {
            fcntl(rawValue, F_DUPFD_CLOEXEC, 0)
        })
    }

    /// Closes it now and reports a failure (EIO from a delayed write, say). Linux frees the
    /// number even when close fails, so this never retries, not even on EINTR.
    public consuming func close() throws {
        let fd = rawValue
        discard self
        if Glibc.close(fd) != 0 { throw SystemError("close", "descriptor \(fd)") }
    }

    /// Gives the descriptor to a C library that closes it itself (`sf_open_fd` with
    /// `close_desc`); returns the number, which this type no longer closes.
    public consuming func release() -> Int32 {
        let fd = rawValue
        discard self
        return fd
    }

    deinit {
        // Nothing can be done about a failure here, and a retry could close a reused number.
        _ = Glibc.close(rawValue)
    }
}
