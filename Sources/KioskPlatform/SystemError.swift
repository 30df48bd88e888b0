#if canImport(Glibc)
import Glibc
#endif
import KioskCore

/// A failed system call: which call, on what, and errno.
public struct SystemError: Error, CustomStringConvertible {
    public var call: String
    public var context: String
    public var errno: Int32

    public init(_ call: String, _ context: String, errno: Int32 = Glibc.errno) {
        self.call = call
        self.context = context
        self.errno = errno
    }

    public var description: String {
        // The context is often a path from the command line or a directory listing.
        "\(echoed(context, limit: 200)): \(reason)"
    }

    /// The device behind the descriptor went away (unplugged, its driver unbound).
    public var deviceGone: Bool { errno == ENODEV || errno == ENXIO }

    /// What went wrong without the context, for a line that names the file itself.
    public var reason: String { "\(String(cString: strerror(errno))) (\(call), errno \(errno))" }
}

/// The one EINTR loop: calls `body` again while `interrupted` says its result means "interrupted
/// by a signal", and returns the first other result. The helpers below are its usual forms;
/// call it directly for another convention (libevdev returns `-EINTR`).
public func retrying<T>(whileInterrupted interrupted: (T) -> Bool, _ body: () throws -> T) rethrows -> T {
    while true {
        let r = try body()
        if !interrupted(r) { return r }
    }
}

/// Throws `SystemError` when `result`, a call's error number (the pthread and posix_spawn
/// convention: 0 or an errno value, never -1), is not 0.
public func checkErrorNumber(_ call: String, _ context: String, _ result: Int32) throws {
    if result != 0 { throw SystemError(call, context, errno: result) }
}

/// Calls `body` until it does not fail with EINTR; throws `SystemError` on -1.
@discardableResult
public func retryingInterrupts<T: BinaryInteger>(_ call: String, _ context: String, _ body: () -> T) throws -> T {
    let r = uninterrupted(body)
    if r == -1 { throw SystemError(call, context) }
    return r
}

/// Calls `body` until it does not fail with EINTR and returns its result, with `errno` as the
/// call left it: for callers that expect some failures (EAGAIN) and decide themselves.
@discardableResult
public func uninterrupted<T: BinaryInteger>(_ body: () -> T) -> T {
    retrying(whileInterrupted: { $0 == -1 && errno == EINTR }, body)
}
