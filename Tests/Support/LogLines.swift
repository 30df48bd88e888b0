import Synchronization

/// The log lines a test captures: a logger's sink, safe from any thread (the sound thread logs
/// from its own).
public final class LogLines: Sendable {
    private let lines = Mutex<[String]>([])

    public init() {}

    public func add(_ line: String) { lines.withLock { $0.append(line) } }

    public var all: [String] { lines.withLock { $0 } }

    public func removeAll() { lines.withLock { $0.removeAll() } }
}
