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
        "\(echoed(context, limit: 200)): \(String(cString: strerror(errno))) (\(call), errno \(errno))"
    }
}

/// Calls `body` until it does not fail with EINTR; throws `SystemError` on -1.
@discardableResult
public func retryingInterrupts<T: BinaryInteger>(_ call: String, _ context: String, _ body: () -> T) throws -> T {
    while true {
        let r = body()
        if r != -1 { return r }
        if errno == EINTR { continue }
        throw SystemError(call, context)
    }
}
