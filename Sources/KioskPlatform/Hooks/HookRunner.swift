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
///   `killGrace` later. Children are reaped through a pidfd in the poll loop (a 100 ms
///   timer with `waitpid(WNOHANG)` where pidfds are missing).
/// - When the kiosk stops (`stop()`), hooks still running get SIGTERM to their process groups
///   and SIGKILL a moment later: the exit waits about a second at most, and leaves none behind.
/// - `HookLimiter` caps how many run at once and how often each event runs; drops are counted
///   and logged on their 1st, 2nd, 4th, 8th... time.
public final class HookRunner {
    /// Longest output line logged, in characters after escaping (`echoed`); the rest is cut.
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
    public var killGrace = Duration.seconds(2)
    /// Watch each child through a pidfd (Linux 5.3); false (or a kernel without pidfds) polls
    /// with `waitpid(WNOHANG)` every 100 ms while hooks run.
    public var usesPidfds = true
    /// Where log lines go.
    public var log: Logger

    private let loop: EventLoop
    private var limiter: HookLimiter
    private var commands: [HookEvent: Command] = [:]
    private var runs: [HookRun] = []
    private let timer: EventLoop.TimerID
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

    /// - Parameter environment: the variables children inherit (default: the kiosk's own),
    ///   before the withheld ones are taken out.
    public init(settings: HookSettings, loop: EventLoop, environment: [String]? = nil,
                log: Logger) {
        self.settings = settings
        self.loop = loop
        self.log = log
        limiter = HookLimiter(settings)
        timer = loop.addTimer("hooks")
        baseEnvironment = (environment ?? HookProgram.processEnvironment()).filter { entry in
            let name = entry.split(separator: "=", maxSplits: 1).first.map(String.init) ?? entry
            if Self.withheldVariables.contains(name) { return false }
            // The event's own variables come from the event, never from the kiosk's environment.
            return !(name.hasPrefix("BUBBLE_") && !name.hasPrefix("BUBBLE_KIOSK_"))
        }
        loop.onFire(timer) { [unowned self] now in handleTimer(now) }
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
    public func fire(named name: String, fields: [(String, JSON)] = [], at wall: WallTime? = nil) -> Bool {
        guard let event = HookEvent(rawValue: name) else { return false }
        fire(event, fields: fields, at: wall)
        return true
    }

    /// Runs `event`'s hook, if one is configured and the limits allow, with `fields` as its
    /// data (`BUBBLE_<NAME>` variables and the JSON line, after `event` and `time`). Returns at
    /// once: the run is looked after by the loop. `wall`: when the event happened (`BUBBLE_TIME`);
    /// nil for now on the system's clock.
    public func fire(_ event: HookEvent, fields: [(String, JSON)] = [], at wall: WallTime? = nil) {
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
        let payload = HookPayload(event, time: wall ?? SystemWallClock.now(), fields: fields)
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

    /// Between SIGTERM and SIGKILL to the hooks still running when the kiosk stops, and the
    /// most `stop()` then waits for SIGKILL to take: together they bound the kiosk's exit.
    public var exitGrace = Duration.milliseconds(500)
    public var exitKillWait = Duration.milliseconds(250)

    /// The kiosk is stopping: no hook starts from now on, and the process groups of hooks still
    /// running get SIGTERM, then SIGKILL `exitGrace` later if anything of them is left, so no
    /// hook outlives the kiosk (one ignoring SIGTERM would otherwise stay, with its children).
    /// Waits at most `exitGrace + exitKillWait`.
    public func stop() {
        guard !stopped else { return }
        stopped = true
        loop.arm(timer, at: nil)
        let left = runs.filter { !$0.exited || $0.groupIsAlive }
        if !left.isEmpty {
            log(.notice, "\(left.count) hook\(left.count == 1 ? "" : "s") still running at exit: "
                + left.map(\.label).joined(separator: ", ") + "; SIGTERM to \(left.count == 1 ? "its process group" : "their process groups")")
            for run in left { signalGroup(run, SIGTERM) }
            let alive = waitForGroups(left, for: exitGrace)
            if !alive.isEmpty {
                log(.warning, alive.map(\.label).joined(separator: ", ")
                    + ": still running \(NumberText.trimmed(exitGrace.inSeconds, places: 3)) s after SIGTERM at exit; SIGKILL to "
                    + (alive.count == 1 ? "its process group" : "their process groups"))
                for run in alive { signalGroup(run, SIGKILL) }
                // SIGKILL cannot be refused: only our own children are left to reap (their
                // children's zombies are init's).
                let end = EventLoop.now() + exitKillWait
                while alive.contains(where: { !$0.exited }) && EventLoop.now() < end {
                    for run in alive where !run.exited { reap(run) }
                    if alive.contains(where: { !$0.exited }) { pause() }
                }
            }
        }
        for run in runs {
            closeOutput(run)
            run.pidfdWatch?.cancel()
            run.pidfd = nil
        }
        runs.removeAll()
    }

    /// Reaps and waits (in 10 ms steps, at most `ms`) until no process of `runs`' groups is
    /// left; returns the runs whose groups still have one (a zombie not yet reaped by init
    /// counts: then SIGKILL goes to a group that is dead already, which does no harm).
    private func waitForGroups(_ runs: [HookRun], for wait: Duration) -> [HookRun] {
        let end = EventLoop.now() + wait
        while true {
            for run in runs where !run.exited { reap(run) }
            let alive = runs.filter { $0.groupIsAlive }
            if alive.isEmpty || EventLoop.now() >= end { return alive }
            pause()
        }
    }

    /// 10 ms, restarted when a signal interrupts it: nothing to poll for a process group.
    private func pause() {
        uninterrupted { poll(nil, 0, 10) }
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

    /// Why a hook's program cannot run.
    public typealias Unusable = HookProgram.Unusable

    /// Where `program` is, as `execvp` would find it (see `HookProgram.resolve`).
    public static func resolve(_ program: String, searchPath: String? = nil) -> Result<String, Unusable> {
        HookProgram.resolve(program, searchPath: searchPath)
    }

    // MARK: - Starting

    private func spawn(_ event: HookEvent, path: String, words: [String], payload: HookPayload,
                       at now: TimeStamp) throws -> HookRun {
        var line = Array(payload.json.utf8)
        if line.count > Self.maximumPayloadBytes { line = Array(HookPayload(event, time: payload.time).json.utf8) }
        let run = try HookSpawn.start(event, path: path, words: words, environment: baseEnvironment + payload.environment,
                                      input: line, at: now, deadline: now + settings.timeout,
                                      log: log)
        if let output = run.outputFD {
            run.outputWatch = loop.register(number: output, name: run.label) { [unowned self, unowned run] in readOutput(run) }
        }
        if usesPidfds, let pidfd = HookSpawn.pidfd(run.pid) {
            run.pidfdWatch = loop.register(pidfd, name: run.label) { [unowned self, unowned run] in reap(run) }
            run.pidfd = consume pidfd
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
                run.deadline = now + killGrace
                signalGroup(run, SIGTERM)
                log(.warning, "\(run.label): still running after its \(NumberText.trimmed(settings.timeout.inSeconds, places: 3)) s timeout; "
                    + "SIGTERM to its process group")
            } else {
                run.deadline = nil
                signalGroup(run, SIGKILL)
                log(.warning, "\(run.label): still running \(NumberText.trimmed(killGrace.inSeconds, places: 3)) s after SIGTERM; "
                    + "SIGKILL to its process group")
                // A process that left the group must not keep the run (and its slot) forever.
                closeOutput(run)
                finishIfDone(run)
            }
        }
        armTimer()
    }

    /// Sends `signal` to the run's process group; ESRCH (all of it gone) is no problem.
    private func signalGroup(_ run: HookRun, _ signal: Int32) {
        if !run.signalGroup(signal) {
            log(.error, "\(run.label): \(SystemError("kill", "process group \(run.pid)"))")
        }
    }

    private func armTimer() {
        guard !stopped else { return }
        var next = runs.compactMap(\.deadline).min()
        if runs.contains(where: { !$0.exited && !$0.watchedByPidfd }) {
            let poll = loop.now + .milliseconds(100)
            next = min(next ?? poll, poll)
        }
        loop.arm(timer, at: next)
    }

    private func reap(_ run: HookRun) {
        guard !run.exited else { return }
        var status: Int32 = 0
        let r = uninterrupted { waitpid(run.pid, &status, WNOHANG) }
        if r == 0 { return }
        run.exited = true
        run.pidfdWatch?.cancel()
        run.pidfd = nil
        let seconds = NumberText.trimmed((loop.now - run.started).inSeconds, places: 3)
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

    private func finishIfDone(_ run: HookRun) {
        guard run.exited, run.output?.rawValue == nil else { return }
        runs.removeAll { $0 === run }
    }

    private func closeOutput(_ run: HookRun) {
        guard run.output?.rawValue != nil else { return }
        run.flushPartial(log)
        run.outputWatch?.cancel()
        run.output = nil
    }

    private func readOutput(_ run: HookRun) {
        guard let fd = run.output?.rawValue else { return }
        var buffer = [UInt8](repeating: 0, count: 4096)
        // A few reads per wake-up, so a flood cannot hold up the frame.
        for _ in 0..<16 {
            let n = buffer.withUnsafeMutableBytes { buf in uninterrupted { read(fd, buf.baseAddress, buf.count) } }
            if n > 0 {
                run.consume(buffer[..<n], log: log)
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
}
