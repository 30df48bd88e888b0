import Glibc
import KioskCore

/// One started hook: its process group, the descriptors the loop watches, its timeout steps,
/// and its output cut into bounded log lines. Owned by `HookRunner` until it exited and its
/// output is closed.
final class HookRun {
    let event: HookEvent
    /// The hook's pid, which is also its process group's id.
    let pid: pid_t
    let started: TimeStamp
    /// Readable when the process exits; nil without pidfds (then a timer polls).
    var pidfd: FileDescriptor?
    /// The read end of its standard output and error, until end of output or the limit.
    var output: FileDescriptor?
    /// The loop watching `pidfd` and `output`; cancelled before either closes.
    var pidfdWatch: LoopRegistration?
    var outputWatch: LoopRegistration?
    var exited = false
    /// When the next step against it is due: SIGTERM, then SIGKILL; nil after SIGKILL.
    var deadline: TimeStamp?
    var terminated = false
    private var partial: [UInt8] = []
    private var partialCut = false
    private(set) var lines = 0
    private(set) var bytes = 0
    /// Lines past the limit: the first says the output is cut.
    private var truncations = RateLimitedLog()

    init(event: HookEvent, pid: pid_t, started: TimeStamp, deadline: TimeStamp, output: consuming FileDescriptor) {
        self.event = event
        self.pid = pid
        self.started = started
        self.deadline = deadline
        self.output = consume output
    }

    var label: String { "hook \(event.rawValue)[\(pid)]" }
    var watchedByPidfd: Bool { pidfd?.rawValue != nil }
    var outputFD: Int32? { output?.rawValue }

    /// Sends `signal` to the run's process group; false (with errno) when that failed for
    /// another reason than the whole group being gone (ESRCH).
    func signalGroup(_ signal: Int32) -> Bool {
        kill(-pid, signal) == 0 || errno == ESRCH
    }

    /// Whether any process of its group is left (an unreaped leader counts).
    var groupIsAlive: Bool { kill(-pid, 0) == 0 || errno == EPERM }

    // MARK: - Output

    /// Raw bytes kept of one line: enough that a cut line is longer than `maximumLineBytes`
    /// characters even when every byte is part of a 4-byte character, so `echoed` marks the cut.
    static let bufferedLineBytes = 4 * HookRunner.maximumLineBytes + 4

    /// Splits `bytes` into lines and logs the complete ones.
    func consume(_ bytes: ArraySlice<UInt8>, log: Logger) {
        self.bytes += bytes.count
        for byte in bytes {
            if byte == UInt8(ascii: "\n") {
                emitLine(log)
            } else if partial.count < Self.bufferedLineBytes {
                partial.append(byte)
            } else {
                partialCut = true
            }
        }
    }

    /// Logs a last line without its line end.
    func flushPartial(_ log: Logger) {
        if !partial.isEmpty || partialCut { emitLine(log) }
    }

    private func emitLine(_ log: Logger) {
        defer {
            partial.removeAll(keepingCapacity: true)
            partialCut = false
        }
        guard lines < HookRunner.maximumLines else {
            if truncations.noteFirst() {
                log(.info, "\(label): ... output truncated (more than \(HookRunner.maximumLines) lines)")
            }
            return
        }
        lines += 1
        // Escaped first, then cut: escapes make a line longer, and the log line is what is bounded.
        log(.info, "\(label): \(echoed(String(decoding: partial, as: UTF8.self), limit: HookRunner.maximumLineBytes))")
    }
}
