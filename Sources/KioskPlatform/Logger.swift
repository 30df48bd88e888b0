/// Where log lines go: one value the executable hands down to everything below it (the
/// journal, through standard error with its levels), and a test to what it checks. Any thread
/// may log (the sound thread does).
public struct Logger: Sendable {
    public let write: @Sendable (Console.Level, String) -> Void

    public init(_ write: @escaping @Sendable (Console.Level, String) -> Void) { self.write = write }

    public func callAsFunction(_ level: Console.Level, _ message: String) { write(level, message) }

    /// The same lines with `prefix` in front (`input: `).
    public func prefixed(_ prefix: String) -> Logger {
        let write = self.write
        return Logger { write($0, prefix + $1) }
    }

    /// Standard error as `bubble-kiosk: message`, with the journal's levels when it is the journal.
    public static let standardError = Logger { Console.log($0, $1) }

    /// Nowhere (benchmarks that measure, not report).
    public static let discard = Logger { _, _ in }
}
