#if canImport(Glibc)
import Glibc
#endif

/// Writes to standard output and error through the file descriptors
/// (the C `stderr` global is not concurrency-safe in Swift 6).
public enum Console {
    public static func out(_ text: String) { write(fd: STDOUT_FILENO, text) }
    public static func err(_ text: String) { write(fd: STDERR_FILENO, text) }

    /// Prints a line to standard output.
    public static func line(_ text: String) { out(text + "\n") }
    /// Prints a line to standard error.
    public static func errorLine(_ text: String) { err(text + "\n") }

    private static func write(fd: Int32, _ text: String) {
        var bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeMutableBytes { buf in
                Glibc.write(fd, buf.baseAddress! + offset, buf.count - offset)
            }
            if n < 0 {
                if errno == EINTR { continue }
                return
            }
            offset += n
        }
        bytes.removeAll()
    }
}
