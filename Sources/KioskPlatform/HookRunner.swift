internal import CLinux
import Glibc
import KioskCore

/// Runs `[hooks]`: a command line per kiosk event, started as a child process that the loop
/// looks after without ever waiting for it.
///
/// - The command line is split by `HookCommandLine` and executed with `posix_spawn`, never
///   through a shell. The program is found like `execvp` does: a name with a `/` as it is,
///   else in `$PATH`; it is looked up (and a missing or non-executable one reported) once at
///   start and at each reload.
/// - The child gets its own process group, an empty signal mask and default dispositions for
///   every signal (the kiosk blocks its signals for the signalfd and ignores SIGPIPE), the
///   kiosk's environment without `NOTIFY_SOCKET` and `WATCHDOG_*` (a hook cannot speak to
///   systemd as the kiosk) plus the event's `BUBBLE_*` variables, the event as one JSON line
///   on standard input, and no other descriptor of the kiosk's.
/// - Standard output and error are one non-blocking pipe the loop reads; lines go to the log
///   with the hook's name and pid, bounded in length and number.
/// - After `[hooks] timeout_s` the run's whole process group gets SIGTERM, and SIGKILL
///   `killGraceMS` later. Children are reaped through a pidfd in the poll loop (a 100 ms
///   timer with `waitpid(WNOHANG)` where pidfds are missing).
/// - `HookLimiter` caps how many run at once and how often each event runs; drops are counted
///   and logged on their 1st, 2nd, 4th, 8th... time.
public final class HookRunner {
    /// Longest output line logged, in bytes; the rest of the line is cut.
    public static let maximumLineBytes = 300
    /// Output lines logged per run; then one `... output truncated` line.
    public static let maximumLines = 20
    /// Output read per run; beyond it the pipe is closed (the hook gets EPIPE or SIGPIPE).
    public static let maximumOutputBytes = 1 << 20
    /// Longest JSON line written to a hook's standard input (a pipe holds 64 KiB).
    public static let maximumPayloadBytes = 16 * 1024
    /// Variables a hook does not inherit: the service manager's, which would let it notify
    /// systemd (or feed the watchdog) as the kiosk.
    public static let withheldVariables: Set<String> = ["NOTIFY_SOCKET", "WATCHDOG_USEC", "WATCHDOG_PID"]

    public private(set) var settings: HookSettings
    /// Between SIGTERM and SIGKILL to a hook's process group.
    public var killGraceMS = 2000.0
    /// Watch each child through a pidfd (Linux 5.3); false (or a kernel without pidfds) polls
    /// with `waitpid(WNOHANG)` every 100 ms while hooks run.
    public var usesPidfds = true
    /// Where log lines go.
    public var log: (Console.Level, String) -> Void
    /// Unix time in seconds for `BUBBLE_TIME` (the realtime clock).
    public var wallClock: () -> Double = {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }

    private let loop: EventLoop
    private var limiter: HookLimiter
    private var commands: [HookEvent: Command] = [:]
    private var runs: [Run] = []
    private var timer: EventLoop.TimerID!
    private let baseEnvironment: [String]
    private var spawnFailures: [HookEvent: RateLimitedLog] = [:]
    private var stopped = false
    /// Runs started, and runs not started for want of a usable program, since the start.
    public private(set) var started = 0
    public private(set) var skippedUnusable = 0

    private enum Command {
        case ready(path: String, words: [String])
        case unusable(words: [String], why: String)
    }

    private final class Run {
        let event: HookEvent
        let pid: pid_t
        let started: TimeStamp
        /// Readable when the process exits; nil without pidfds (then a timer polls).
        var pidfd: FileDescriptor?
        /// The read end of its standard output and error, until end of output or the limit.
        var output: FileDescriptor?
        var exited = false
        /// When the next step against it is due: SIGTERM, then SIGKILL; nil after SIGKILL.
        var deadline: TimeStamp?
        var terminated = false
        var partial: [UInt8] = []
        var partialCut = false
        var lines = 0
        var bytes = 0
        var truncated = false

        init(event: HookEvent, pid: pid_t, started: TimeStamp, deadline: TimeStamp) {
            self.event = event
            self.pid = pid
            self.started = started
            self.deadline = deadline
        }

        var label: String { "hook \(event.rawValue)[\(pid)]" }
        var watchedByPidfd: Bool { pidfd?.rawValue != nil }
    }

    /// - Parameter environment: the variables children inherit (default: the kiosk's own),
    ///   before the withheld ones are taken out.
    public init(settings: HookSettings, loop: EventLoop, environment: [String]? = nil,
                log: @escaping (Console.Level, String) -> Void = { Console.log($0, $1) }) {
        self.settings = settings
        self.loop = loop
        self.log = log
        limiter = HookLimiter(settings)
        baseEnvironment = (environment ?? Self.processEnvironment()).filter { entry in
            let name = entry.split(separator: "=", maxSplits: 1).first.map(String.init) ?? entry
            if Self.withheldVariables.contains(name) { return false }
            // The event's own variables come from the event, never from the kiosk's environment.
            return !(name.hasPrefix("BUBBLE_") && !name.hasPrefix("BUBBLE_KIOSK_"))
        }
        timer = loop.addTimer("hooks") { [unowned self] now in handleTimer(now) }
        resolveAll()
    }

    /// Takes over reloaded settings: programs are looked up (and problems reported) again;
    /// runs in progress keep their timeouts.
    public func configure(_ settings: HookSettings) {
        self.settings = settings
        limiter.maxRunning = settings.maxRunning
        limiter.perMinute = settings.perEventPerMinute
        resolveAll()
    }

    /// Hooks running now (started and not yet both exited and done writing).
    public var running: Int { runs.count }

    /// Process ids of the hooks running now.
    public var runningPIDs: [Int32] { runs.map(\.pid) }

    /// Runs of `event` dropped by the rate limit, and because `max_running` were running.
    public func dropped(_ event: HookEvent) -> (rateLimited: Int, busy: Int) {
        (limiter.rateLimitedCount(event), limiter.busyCount(event))
    }

    /// Runs the hook of the event named `name` (`high_score`, `reset`, ...) with `fields`;
    /// false when no event has that name.
    @discardableResult
    public func fire(named name: String, fields: [(String, JSON)] = []) -> Bool {
        guard let event = HookEvent(rawValue: name) else { return false }
        fire(event, fields: fields)
        return true
    }

    /// Runs `event`'s hook, if one is configured and the limits allow, with `fields` as its
    /// data (`BUBBLE_<NAME>` variables and the JSON line, after `event` and `time`). Returns at
    /// once: the run is looked after by the loop.
    public func fire(_ event: HookEvent, fields: [(String, JSON)] = []) {
        guard !stopped else { return }
        guard let command = commands[event] else { return }
        let path: String, words: [String]
        switch command {
        case .ready(let p, let w): (path, words) = (p, w)
        case .unusable(let w, _):
            // Reported at start or reload; look again quietly in case it was installed since.
            guard case .success(let p) = Self.resolve(w[0], searchPath: searchPath) else {
                skippedUnusable += 1
                return
            }
            commands[event] = .ready(path: p, words: w)
            (path, words) = (p, w)
        }
        let now = loop.now
        let (decision, shouldLog) = limiter.admit(event, at: now, running: runs.count)
        switch decision {
        case .run: break
        case .rateLimited:
            if shouldLog {
                log(.warning, "hook \(event.rawValue): dropped, it ran \(settings.perEventPerMinute) times in the last minute "
                    + "(\(limiter.rateLimitedCount(event)) dropped so far)")
            }
            return
        case .busy:
            if shouldLog {
                log(.warning, "hook \(event.rawValue): dropped, \(runs.count) hooks are running already "
                    + "(\(limiter.busyCount(event)) dropped so far)")
            }
            return
        }
        let payload = HookPayload(event, time: wallClock(), fields: fields)
        do {
            let run = try spawn(event, path: path, words: words, payload: payload, at: now)
            runs.append(run)
            started += 1
            spawnFailures[event]?.reset()
        } catch {
            if spawnFailures[event, default: RateLimitedLog()].note() {
                log(.error, "hook \(event.rawValue): cannot start \(echoed(path, limit: 200)): \(error) "
                    + "(\(spawnFailures[event]!.count) times)")
            }
        }
        armTimer()
    }

    /// The kiosk is stopping: the loop lets go of every run without waiting or killing (under
    /// systemd, stopping the unit ends what is left of them); no hook starts from now on.
    public func stop() {
        guard !stopped else { return }
        stopped = true
        loop.arm(timer, at: nil)
        if !runs.isEmpty {
            log(.notice, "\(runs.count) hook\(runs.count == 1 ? "" : "s") still running at exit, left to finish: "
                + runs.map(\.label).joined(separator: ", "))
        }
        for run in runs {
            closeOutput(run)
            if let pidfd = run.pidfd.take() { loop.remove(fd: pidfd.rawValue) }
        }
        runs.removeAll()
    }

    // MARK: - Programs

    private func resolveAll() {
        commands = [:]
        for event in HookEvent.allCases {
            let text = settings.command(for: event)
            guard case .success(let line?) = HookCommandLine.parse(text) else { continue }
            switch Self.resolve(line.program, searchPath: searchPath) {
            case .success(let path):
                commands[event] = .ready(path: path, words: line.words)
            case .failure(let why):
                commands[event] = .unusable(words: line.words, why: why.message)
                log(.warning, "hook \(event.rawValue): \(echoed(line.program, limit: 200)): \(why.message); it will not run")
            }
        }
    }

    /// `$PATH` as the hooks get it.
    private var searchPath: String? {
        baseEnvironment.last { $0.hasPrefix("PATH=") }.map { String($0.dropFirst(5)) }
    }

    public struct Unusable: Error {
        public let message: String
    }

    /// Where `program` is, as `execvp` would find it: a name with a `/` as it is, else the
    /// first executable regular file of that name in `searchPath` (the hooks' `$PATH`;
    /// `/usr/local/bin:/usr/bin:/bin` when unset).
    public static func resolve(_ program: String, searchPath: String? = nil) -> Result<String, Unusable> {
        if program.contains("/") {
            if let problem = unusable(program) { return .failure(Unusable(message: problem)) }
            return .success(program)
        }
        let pathList = searchPath ?? "/usr/local/bin:/usr/bin:/bin"
        var firstProblem: String?
        for dir in pathList.split(separator: ":", omittingEmptySubsequences: false) {
            let base = dir.isEmpty ? "." : String(dir)
            let candidate = base.hasSuffix("/") ? base + program : base + "/" + program
            guard let problem = unusable(candidate) else { return .success(candidate) }
            if problem != "no such file", firstProblem == nil { firstProblem = "\(candidate): \(problem)" }
        }
        return .failure(Unusable(message: firstProblem ?? "not found in PATH (\(echoed(pathList, limit: 200)))"))
    }

    /// Why `path` cannot be executed, or nil when it can.
    private static func unusable(_ path: String) -> String? {
        var st = stat()
        if stat(path, &st) != 0 { return errno == ENOENT || errno == ENOTDIR ? "no such file" : String(cString: strerror(errno)) }
        if (st.st_mode & S_IFMT) != S_IFREG { return "not a regular file" }
        if access(path, X_OK) != 0 { return "not executable (\(String(cString: strerror(errno))))" }
        return nil
    }

    private static func processEnvironment() -> [String] {
        var result: [String] = []
        guard let env = CLinux_environ() else { return result }
        var i = 0
        while let entry = env[i] {
            result.append(String(cString: entry))
            i += 1
        }
        return result
    }

    // MARK: - Starting

    private func spawn(_ event: HookEvent, path: String, words: [String], payload: HookPayload,
                       at now: TimeStamp) throws -> Run {
        var fds: [Int32] = [-1, -1]
        try retryingInterrupts("pipe2", "hook \(event.rawValue) input") { CLinux_pipe_cloexec(&fds) }
        let inputRead = FileDescriptor(adopting: fds[0]), inputWrite = FileDescriptor(adopting: fds[1])
        try retryingInterrupts("pipe2", "hook \(event.rawValue) output") { CLinux_pipe_cloexec(&fds) }
        let outputRead = FileDescriptor(adopting: fds[0]), outputWrite = FileDescriptor(adopting: fds[1])
        // Only the kiosk's ends are non-blocking: the child's are ordinary blocking pipes.
        try retryingInterrupts("fcntl(F_SETFL)", "hook \(event.rawValue) input") {
            fcntl(inputWrite.rawValue, F_SETFL, O_WRONLY | O_NONBLOCK)
        }
        try retryingInterrupts("fcntl(F_SETFL)", "hook \(event.rawValue) output") {
            fcntl(outputRead.rawValue, F_SETFL, O_RDONLY | O_NONBLOCK)
        }

        // Any failure here refuses the spawn: a child without its close-all step would inherit
        // the DRM card and the input devices.
        let context = "hook \(event.rawValue)"
        var actions = posix_spawn_file_actions_t()
        try checkErrorNumber("posix_spawn_file_actions_init", context, posix_spawn_file_actions_init(&actions))
        defer { posix_spawn_file_actions_destroy(&actions) }
        try checkErrorNumber("posix_spawn_file_actions_adddup2", context,
                             posix_spawn_file_actions_adddup2(&actions, inputRead.rawValue, 0))
        try checkErrorNumber("posix_spawn_file_actions_adddup2", context,
                             posix_spawn_file_actions_adddup2(&actions, outputWrite.rawValue, 1))
        try checkErrorNumber("posix_spawn_file_actions_adddup2", context,
                             posix_spawn_file_actions_adddup2(&actions, outputWrite.rawValue, 2))
        try checkErrorNumber("posix_spawn_file_actions_addclosefrom_np", context, CLinux_spawn_closefrom(&actions, 3))

        var attributes = posix_spawnattr_t()
        try checkErrorNumber("posix_spawnattr_init", context, posix_spawnattr_init(&attributes))
        defer { posix_spawnattr_destroy(&attributes) }
        let flags = CLinux_POSIX_SPAWN_SETPGROUP | CLinux_POSIX_SPAWN_SETSIGMASK | CLinux_POSIX_SPAWN_SETSIGDEF
        try checkErrorNumber("posix_spawnattr_setflags", context, posix_spawnattr_setflags(&attributes, flags))
        try checkErrorNumber("posix_spawnattr_setpgroup", context, posix_spawnattr_setpgroup(&attributes, 0))
        var none = sigset_t(), all = sigset_t()
        try retryingInterrupts("sigemptyset", context) { CLinux_sigset_empty(&none) }
        try retryingInterrupts("sigfillset", context) { CLinux_sigset_fill(&all) }
        try checkErrorNumber("posix_spawnattr_setsigmask", context, posix_spawnattr_setsigmask(&attributes, &none))
        try checkErrorNumber("posix_spawnattr_setsigdefault", context, posix_spawnattr_setsigdefault(&attributes, &all))

        let argv = words.map { strdup($0) } + [nil]
        let envp = (baseEnvironment + payload.environment).map { strdup($0) } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var pid: pid_t = 0
        let status = argv.withUnsafeBufferPointer { a in
            envp.withUnsafeBufferPointer { e in
                posix_spawn(&pid, path, &actions, &attributes, a.baseAddress!, e.baseAddress!)
            }
        }
        // The child has its copies now; closing a pipe end loses nothing, so failures do not matter.
        try? inputRead.close()
        try? outputWrite.close()
        guard status == 0 else { throw SystemError("posix_spawn", path, errno: status) }

        // The JSON line fits the pipe's buffer; a hook that never reads it loses nothing else.
        var line = Array(payload.json.utf8)
        if line.count > Self.maximumPayloadBytes { line = Array(HookPayload(event, time: wallClock()).json.utf8) }
        let written = line.withUnsafeBytes { buf in uninterrupted { write(inputWrite.rawValue, buf.baseAddress, buf.count) } }
        if written != line.count {
            // The hook runs anyway, with what arrived (EPIPE: it closed its standard input at once).
            let why = written < 0 ? String(cString: strerror(errno)) : "\(written) of \(line.count) bytes"
            log(.warning, "hook \(event.rawValue)[\(pid)]: writing its JSON line: \(why)")
        }
        try? inputWrite.close()

        let run = Run(event: event, pid: pid, started: now, deadline: now.adding(milliseconds: settings.timeoutS * 1000))
        let outputFD = outputRead.rawValue
        run.output = consume outputRead
        loop.add(fd: outputFD, name: run.label) { [unowned self, unowned run] in readOutput(run) }
        let pidfd = usesPidfds ? CLinux_pidfd_open(pid) : -1
        if pidfd >= 0 {
            run.pidfd = FileDescriptor(adopting: pidfd)
            loop.add(fd: pidfd, name: run.label) { [unowned self, unowned run] in reap(run) }
        }
        return run
    }

    // MARK: - Looking after runs

    private func handleTimer(_ now: TimeStamp) {
        for run in runs where !run.exited && !run.watchedByPidfd { reap(run) }
        for run in runs {
            guard let due = run.deadline, due <= now else { continue }
            if !run.terminated {
                run.terminated = true
                run.deadline = now.adding(milliseconds: killGraceMS)
                signalGroup(run, SIGTERM)
                log(.warning, "\(run.label): still running after its \(formatSeconds(settings.timeoutS)) s timeout; "
                    + "SIGTERM to its process group")
            } else {
                run.deadline = nil
                signalGroup(run, SIGKILL)
                log(.warning, "\(run.label): still running \(formatSeconds(killGraceMS / 1000)) s after SIGTERM; "
                    + "SIGKILL to its process group")
                // A process that left the group must not keep the run (and its slot) forever.
                closeOutput(run)
                finishIfDone(run)
            }
        }
        armTimer()
    }

    /// Sends `signal` to the run's process group; ESRCH (all of it gone) is no problem.
    private func signalGroup(_ run: Run, _ signal: Int32) {
        if kill(-run.pid, signal) != 0 && errno != ESRCH {
            log(.error, "\(run.label): \(SystemError("kill", "process group \(run.pid)"))")
        }
    }

    private func armTimer() {
        guard !stopped else { return }
        var next = runs.compactMap(\.deadline).min()
        if runs.contains(where: { !$0.exited && !$0.watchedByPidfd }) {
            let poll = loop.now.adding(milliseconds: 100)
            next = min(next ?? poll, poll)
        }
        loop.arm(timer, at: next)
    }

    private func reap(_ run: Run) {
        guard !run.exited else { return }
        var status: Int32 = 0
        let r = uninterrupted { waitpid(run.pid, &status, WNOHANG) }
        if r == 0 { return }
        run.exited = true
        if let pidfd = run.pidfd.take() { loop.remove(fd: pidfd.rawValue) }
        let seconds = formatSeconds(loop.now.milliseconds(since: run.started) / 1000)
        if r < 0 {
            log(.error, "\(run.label): waitpid: \(String(cString: strerror(errno)))")
        } else if CLinux_wifexited(status) != 0 {
            let code = CLinux_wexitstatus(status)
            log(code == 0 ? .info : .warning, "\(run.label): exited with status \(code) after \(seconds) s")
        } else if CLinux_wifsignaled(status) != 0 {
            let signo = CLinux_wtermsig(status)
            let why = run.terminated ? " (its timeout)" : ""
            log(.warning, "\(run.label): killed by signal \(signo)\(why) after \(seconds) s")
        }
        // The group may live on (a child left running in the background): its timeout stands.
        finishIfDone(run)
        armTimer()
    }

    private func finishIfDone(_ run: Run) {
        guard run.exited, run.output?.rawValue == nil else { return }
        runs.removeAll { $0 === run }
    }

    private func closeOutput(_ run: Run) {
        guard let output = run.output.take() else { return }
        flushPartial(run)
        loop.remove(fd: output.rawValue)
    }

    private func readOutput(_ run: Run) {
        guard let fd = run.output?.rawValue else { return }
        var buffer = [UInt8](repeating: 0, count: 4096)
        // A few reads per wake-up, so a flood cannot hold up the frame.
        for _ in 0..<16 {
            let n = buffer.withUnsafeMutableBytes { buf in uninterrupted { read(fd, buf.baseAddress, buf.count) } }
            if n > 0 {
                consume(buffer[..<n], of: run)
                if run.bytes >= Self.maximumOutputBytes {
                    log(.warning, "\(run.label): more than \(Self.maximumOutputBytes) bytes of output; no longer read")
                    closeOutput(run)
                    break
                }
                continue
            }
            if n < 0 && errno == EAGAIN { return }
            // End of output (every writer closed it), or an error reading it.
            closeOutput(run)
            break
        }
        finishIfDone(run)
        if !runs.contains(where: { $0 === run }) { armTimer() }
    }

    private func consume(_ bytes: ArraySlice<UInt8>, of run: Run) {
        run.bytes += bytes.count
        for byte in bytes {
            if byte == UInt8(ascii: "\n") {
                emitLine(run)
            } else if run.partial.count < Self.maximumLineBytes {
                run.partial.append(byte)
            } else {
                run.partialCut = true
            }
        }
    }

    private func flushPartial(_ run: Run) {
        if !run.partial.isEmpty || run.partialCut { emitLine(run) }
    }

    private func emitLine(_ run: Run) {
        defer {
            run.partial.removeAll(keepingCapacity: true)
            run.partialCut = false
        }
        guard run.lines < Self.maximumLines else {
            if !run.truncated {
                run.truncated = true
                log(.info, "\(run.label): ... output truncated (more than \(Self.maximumLines) lines)")
            }
            return
        }
        run.lines += 1
        let text = String(decoding: run.partial, as: UTF8.self)
        log(.info, "\(run.label): \(echoed(text, limit: Self.maximumLineBytes))" + (run.partialCut ? "..." : ""))
    }
}

/// Seconds to the millisecond, without a trailing `.0`: `0.004`, `2.5`, `10`.
private func formatSeconds(_ s: Double) -> String {
    let rounded = (s * 1000).rounded() / 1000
    return rounded == rounded.rounded() ? String(Int(rounded)) : String(rounded)
}
