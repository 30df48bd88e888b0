#if canImport(Glibc)
import Glibc
#endif
import KioskCore

/// Writes to standard output and error through the file descriptors
/// (the C `stderr` global is not concurrency-safe in Swift 6).
public enum Console {
    public static func out(_ text: String) { write(fd: STDOUT_FILENO, text) }
    public static func err(_ text: String) { write(fd: STDERR_FILENO, text) }

    /// Prints a line to standard output.
    public static func line(_ text: String) { out(text + "\n") }
    /// Prints a line to standard error (to the journal at `level`), bounded as `bounded` says;
    /// `log` is the same with the program's name in front.
    public static func errorLine(_ text: String, level: Level = .warning) {
        err((toJournal ? "<\(level.rawValue)>" : "") + bounded(text) + "\n")
    }

    /// Longest message a line on standard error carries, in characters as shown.
    public static let maximumLineLength = 300

    /// `text` as one log line: through `echoed`, so whatever a message quotes unescaped still
    /// cannot drive the terminal or split the line (already escaped text is left as it is), and
    /// cut to `maximumLineLength`, however many values and paths it quotes.
    public static func bounded(_ text: String) -> String { echoed(text, limit: maximumLineLength) }

    /// How serious a log line is; the journal reads it from a `<N>` prefix (sd-daemon.h).
    public enum Level: Int, Sendable {
        case error = 3
        case warning = 4
        case notice = 5
        case info = 6
    }

    /// Logs `bubble-kiosk: message` on standard error, with the level's `<N>` prefix when
    /// standard error is the journal, so `journalctl -p err` finds the errors.
    public static func log(_ level: Level, _ message: String) {
        errorLine("bubble-kiosk: " + message, level: level)
    }

    /// Whether standard error is the journal: systemd sets `JOURNAL_STREAM` to its device and
    /// inode, which a redirected stderr no longer matches.
    public static let toJournal: Bool = {
        guard let value = getenv("JOURNAL_STREAM") else { return false }
        let parts = String(cString: value).split(separator: ":")
        var st = stat()
        guard parts.count == 2, fstat(STDERR_FILENO, &st) == 0,
              let dev = UInt64(parts[0]), let ino = UInt64(parts[1]) else { return false }
        return UInt64(st.st_dev) == dev && UInt64(st.st_ino) == ino
    }()

    private static func write(fd: Int32, _ text: String) {
        var bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeMutableBytes { buf in
                uninterrupted { Glibc.write(fd, buf.baseAddress! + offset, buf.count - offset) }
            }
            // Nowhere left to report a failing standard output or error (EPIPE, ENOSPC).
            if n < 0 { return }
            offset += n
        }
        bytes.removeAll()
    }
}
