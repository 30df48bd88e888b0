internal import CLinux
import Glibc
import KioskCore

/// The one place the kiosk waits: a single-threaded `poll()` over every file descriptor
/// (display, input devices, inotify, a timerfd and a signalfd), in the manner of libinput and
/// Weston. Deadlines are named timers the loop owns; with none armed and no input it sleeps in
/// the kernel: no busy waiting, no wake-ups while nothing moves.
///
/// Each iteration: wait; read signals; run the handlers of ready descriptors; fire the timers
/// that are due (earliest first); call `onIteration`; arm the timerfd for the earliest timer.
/// Tests run the same iterations on a `VirtualClock` with `run(until:advancing:)`.
public final class EventLoop {
    /// A named timer's handle, from `addTimer`.
    public struct TimerID: Hashable, Sendable {
        fileprivate let index: Int
    }

    /// A registered descriptor and what to do when it is readable (or hung up).
    private struct Source {
        /// The registration's own number: a descriptor's number may be used again once closed.
        var id: Int
        var fd: Int32
        var name: String
        /// What poll() waits for: POLLIN, with POLLPRI for devices that signal events that way (CEC).
        var events: Int16
        var onReadable: () -> Void
    }

    private struct Timer {
        var name: String
        var deadline: TimeStamp?
        /// Repeating timers re-arm themselves this long after each deadline.
        var period: Duration?
        var fire: (TimeStamp) -> Void
    }

    /// The clock every deadline is on (the monotonic clock, or a virtual one in tests).
    public let clock: KioskClock
    private var sources: [Source] = []
    private var nextSourceID = 0
    private var timers: [Timer] = []
    private let timer: FileDescriptor
    private let signalSet: FileDescriptor
    private var timerFD: Int32 { timer.rawValue }
    private var signalFD: Int32 { signalSet.rawValue }
    private var signals: [Int32]
    private var armedDeadline: TimeStamp?
    /// Set when the timerfd could not be armed: poll's own timeout keeps the deadlines then.
    private var timerFDBroken = false
    private var running = false
    /// Times the loop woke up, for the benchmark and the idle check.
    public private(set) var wakeups = 0
    /// Called with the signal number for every signal the loop watches.
    public var onSignal: (Int32) -> Void = { _ in }
    /// Called once per iteration after descriptors and timers, with the time: the frame's work.
    public var onIteration: (TimeStamp) -> Void = { _ in }
    /// Where the loop reports a problem it works around (a timer that cannot be armed).
    public var log: Logger

    /// The signals every kiosk process watches: stop (SIGINT, SIGTERM, SIGQUIT), reload (SIGHUP)
    /// and screenshot (SIGUSR1), and the `ignoredSignals`. A loop blocks them from normal
    /// delivery, so worker threads started later inherit the mask, and ignores SIGPIPE: a closed
    /// pipe fails a write with EPIPE instead of killing the kiosk with its display unrestored.
    public static let standardSignals: [Int32] = [SIGINT, SIGTERM, SIGQUIT, SIGHUP, SIGUSR1] + ignoredSignals

    /// Signals whose default action ends the process but which mean nothing to the kiosk (a
    /// stray `kill -USR2`, timers it never set, a CPU or file-size limit, a UPS's power
    /// warning, I/O readiness it never asked for, a seccomp report, every real-time signal but
    /// the VT's): read like the others, logged (rate-limited) and otherwise ignored, never
    /// passed to `onSignal`. With SIGXFSZ blocked, a write past the file-size limit fails with
    /// EFBIG, a write error like any other. Blocked rather than set to SIG_IGN, which hooks would
    /// inherit; they get an empty mask. What is left ends the process on purpose: SIGKILL and
    /// SIGSTOP (which no process can catch), and the faults SIGSEGV, SIGBUS, SIGILL, SIGFPE and
    /// SIGABRT (a crash, which systemd restarts; `kill -SEGV` is how tests make one).
    public static let ignoredSignals: [Int32] = [SIGUSR2, SIGALRM, SIGVTALRM, SIGXCPU, SIGPWR, SIGIO, SIGPROF, SIGXFSZ,
                                                 SIGSTKFLT, SIGSYS, SIGTRAP] + Array(CLinux_sigrtmin()...CLinux_sigrtmax())
    /// The ignored signals this loop reads (one given to `watch` goes to `onSignal` instead),
    /// and how often each came.
    private var ignoring: Set<Int32> = []
    private var ignoredCounts: [Int32: RateLimitedLog] = [:]

    public init(clock: KioskClock = MonotonicClock.shared, signals: [Int32] = EventLoop.standardSignals,
                log: Logger = .standardError) throws {
        self.clock = clock
        self.log = log
        self.signals = signals
        ignoring = Set(signals).intersection(Self.ignoredSignals)
        try retryingInterrupts("signal(SIGPIPE, SIG_IGN)", "event loop") { CLinux_ignore_sigpipe() }
        timer = FileDescriptor(adopting: try retryingInterrupts("timerfd_create", "event loop timer") {
            CLinux_timerfd_create()
        })
        signalSet = FileDescriptor(adopting: try retryingInterrupts("signalfd", "event loop signals") {
            signals.withUnsafeBufferPointer { CLinux_signalfd_set(-1, $0.baseAddress, Int32($0.count)) }
        })
    }

    /// The monotonic clock, which the kernel stamps evdev events and page flips with.
    public static func now() -> TimeStamp { TimeStamp(microseconds: CLinux_monotonic_us()) }

    /// The loop's clock now.
    public var now: TimeStamp { clock.now }

    /// Also delivers `signal` to `onSignal` (say, a VT's release and acquire signal).
    public func watch(signal: Int32) throws {
        ignoring.remove(signal)
        guard !signals.contains(signal) else { return }
        signals.append(signal)
        try retryingInterrupts("signalfd", "event loop signals") {
            signals.withUnsafeBufferPointer { CLinux_signalfd_set(signalFD, $0.baseAddress, Int32($0.count)) }
        }
    }

    /// Watches `descriptor` for input until the registration is cancelled or goes away. The loop
    /// only polls it: its owner keeps it open for as long as it keeps the registration.
    /// `urgent`: also when it has urgent data (POLLPRI: a CEC adapter's state events).
    public func register(_ descriptor: borrowing FileDescriptor, name: String, urgent: Bool = false,
                         onReadable: @escaping () -> Void) -> LoopRegistration {
        register(number: descriptor.rawValue, name: name, urgent: urgent, onReadable: onReadable)
    }

    /// The same for a descriptor a C library owns (libudev's monitor, libdrm's card).
    func register(number fd: Int32, name: String, urgent: Bool = false, onReadable: @escaping () -> Void) -> LoopRegistration {
        nextSourceID += 1
        let events = Int16(POLLIN) | (urgent ? Int16(POLLPRI) : 0)
        sources.append(Source(id: nextSourceID, fd: fd, name: name, events: events, onReadable: onReadable))
        return LoopRegistration(loop: self, id: nextSourceID)
    }

    fileprivate func unregister(_ id: Int) {
        sources.removeAll { $0.id == id }
    }

    /// How many descriptors the loop watches (tests: a registration that went away is no longer).
    public var watchedCount: Int { sources.count }

    /// A timer, disarmed until `arm`; `fire` runs with the loop's time once it is due.
    public func addTimer(_ name: String, _ fire: @escaping (TimeStamp) -> Void = { _ in }) -> TimerID {
        timers.append(Timer(name: name, deadline: nil, period: nil, fire: fire))
        return TimerID(index: timers.count - 1)
    }

    /// Sets what `timer` does when due: owners make their timers in `init` (a `let`, never
    /// optional) and say what they do once `self` is whole.
    public func onFire(_ timer: TimerID, _ fire: @escaping (TimeStamp) -> Void) {
        timers[timer.index].fire = fire
    }

    /// A timer that fires every `period` from `first` on. A late wake-up fires it once and keeps
    /// the rhythm (no burst of catch-up calls).
    @discardableResult
    public func addRepeatingTimer(_ name: String, every period: Duration, from first: TimeStamp,
                                  _ fire: @escaping (TimeStamp) -> Void) -> TimerID {
        precondition(period > .zero, "a repeating timer needs a positive period")
        timers.append(Timer(name: name, deadline: first, period: period, fire: fire))
        return TimerID(index: timers.count - 1)
    }

    /// Sets (or with nil clears) the timer's deadline; it fires once, in the first iteration at
    /// or after it.
    public func arm(_ timer: TimerID, at deadline: TimeStamp?) {
        timers[timer.index].deadline = deadline
    }

    public func deadline(of timer: TimerID) -> TimeStamp? { timers[timer.index].deadline }

    /// The armed timers' names and deadlines, earliest first (status and tests).
    public var armedTimers: [(name: String, deadline: TimeStamp)] {
        timers.compactMap { t in t.deadline.map { (t.name, $0) } }.sorted { $0.deadline < $1.deadline }
    }

    /// Ends `run()` after the current iteration.
    public func stop() { running = false }

    /// Runs until `stop()`, waiting in `poll()`.
    public func run() throws {
        running = true
        iterate(ready: [])
        while running {
            var fds = [pollfd(fd: signalFD, events: Int16(POLLIN), revents: 0),
                       pollfd(fd: timerFD, events: Int16(POLLIN), revents: 0)]
            fds += sources.map { pollfd(fd: $0.fd, events: $0.events, revents: 0) }
            // The timeout is worked out again after an interruption, so no deadline slips.
            try retryingInterrupts("poll", "event loop") { poll(&fds, nfds_t(fds.count), pollTimeoutMS()) }
            wakeups += 1
            if fds[0].revents != 0 { readSignals() }
            if fds[1].revents != 0 { drainTimerFD() }
            iterate(ready: ids(fds.dropFirst(2)))
        }
    }

    /// The sources whose pollfds (in `sources` order) came back ready.
    private func ids(_ fds: ArraySlice<pollfd>) -> [Int] {
        zip(sources, fds).compactMap { $1.revents != 0 ? $0.id : nil }
    }

    /// Runs on virtual time until `end` (or `stop()`): instead of sleeping, moves `clock` to the
    /// next deadline. Ready descriptors are still handled (polled without waiting).
    public func run(until end: TimeStamp, advancing clock: VirtualClock) {
        precondition(clock === self.clock, "run(until:) advances the loop's own clock")
        running = true
        while running {
            wakeups += 1
            iterate(ready: readyNow())
            guard running else { break }
            guard let next = nextDeadline, next <= end else {
                clock.now = max(clock.now, end)
                // What a timer's work made ready (a device's answer) is handled at the end too.
                iterate(ready: readyNow())
                break
            }
            clock.now = max(clock.now, next)
        }
        running = false
    }

    /// The sources ready now, polled without waiting (virtual time).
    private func readyNow() -> [Int] {
        var fds = sources.map { pollfd(fd: $0.fd, events: $0.events, revents: 0) }
        if !fds.isEmpty && uninterrupted({ poll(&fds, nfds_t(fds.count), 0) }) < 0 {
            // Only ENOMEM (or a bad list, a bug): handle no descriptor this time round.
            log(.error, "\(SystemError("poll", "event loop"))")
            return []
        }
        return ids(fds[...])
    }

    /// One iteration without waiting: due timers, then `onIteration` (benchmarks).
    public func iterateNow() {
        running = true
        iterate(ready: [])
        running = false
    }

    /// Delivers `signal` as if the signalfd had read it (tests).
    public func deliver(signal: Int32) { onSignal(signal) }

    private var nextDeadline: TimeStamp? { timers.compactMap(\.deadline).min() }

    private func iterate(ready ids: [Int]) {
        // Snapshot: a callback may add or remove sources (hotplug).
        let ready = sources.filter { ids.contains($0.id) }
        for source in ready where sources.contains(where: { $0.id == source.id }) {
            source.onReadable()
        }
        fireDueTimers()
        guard running else { return }
        onIteration(now)
        schedule(nextDeadline)
    }

    private func fireDueTimers() {
        let t = now
        let due = timers.indices.filter { timers[$0].deadline.map { $0 <= t } ?? false }
            .sorted { timers[$0].deadline! < timers[$1].deadline! }
        for i in due {
            // Cleared (or moved on) before the call, so the callback can re-arm it.
            let deadline = timers[i].deadline!
            timers[i].deadline = timers[i].period.map { period in
                let next = deadline + period
                return next > t ? next : t + period
            }
            timers[i].fire(t)
        }
    }

    private func readSignals() {
        while true {
            let signo = uninterrupted { CLinux_signalfd_read(signalFD) }
            if signo > 0 {
                if ignoring.contains(Int32(signo)) {
                    ignored(signal: Int32(signo))
                } else {
                    onSignal(Int32(signo))
                }
                continue
            }
            if errno != EAGAIN { log(.error, "\(SystemError("read", "event loop signals"))") }
            return
        }
    }

    private func ignored(signal signo: Int32) {
        guard ignoredCounts[signo, default: RateLimitedLog()].note() else { return }
        let count = ignoredCounts[signo]?.count ?? 1
        log(.notice, "signal \(signo) (\(IgnoredSignalName.of(signo))) ignored" + (count > 1 ? " (\(count) so far)" : ""))
    }

    private func drainTimerFD() {
        var expirations: UInt64 = 0
        let n = uninterrupted { read(timerFD, &expirations, 8) }
        if n < 0 && errno != EAGAIN {
            reportTimerProblem(SystemError("read", "event loop timer"))
        }
        armedDeadline = nil
    }

    private func schedule(_ deadline: TimeStamp?) {
        guard deadline != armedDeadline || timerFDBroken else { return }
        armedDeadline = deadline
        guard !timerFDBroken, clock is MonotonicClock else { return }
        // An absolute time of 0 disarms; a deadline already past fires at once.
        let at = deadline.map { max(1, $0.microseconds) } ?? 0
        if CLinux_timerfd_arm_at(timerFD, at) != 0 {
            reportTimerProblem(SystemError("timerfd_settime", "event loop timer"))
        }
    }

    private func reportTimerProblem(_ error: SystemError) {
        guard !timerFDBroken else { return }
        timerFDBroken = true
        log(.warning, "\(error); keeping deadlines with poll's timeout instead")
    }

    /// -1 (sleep until input) while the timerfd keeps the deadlines; else milliseconds to the
    /// next one, rounded up so a deadline is never missed by waking early.
    private func pollTimeoutMS() -> Int32 {
        guard timerFDBroken || !(clock is MonotonicClock), let next = nextDeadline else { return -1 }
        let us = next.microseconds &- now.microseconds
        if us <= 0 { return 0 }
        return Int32(min((us + 999) / 1000, 60_000))
    }
}

/// The monotonic clock (CLOCK_MONOTONIC): what the kernel stamps input events and page flips with.
public final class MonotonicClock: KioskClock, Sendable {
    public static let shared = MonotonicClock()
    public init() {}
    public var now: TimeStamp { TimeStamp(microseconds: CLinux_monotonic_us()) }
}

/// A descriptor the loop watches, until `cancel()` or until this goes away: its owner keeps it
/// beside the descriptor and cancels before closing it.
public final class LoopRegistration {
    private weak var loop: EventLoop?
    private let id: Int

    fileprivate init(loop: EventLoop, id: Int) {
        self.loop = loop
        self.id = id
    }

    deinit { cancel() }

    public func cancel() {
        loop?.unregister(id)
        loop = nil
    }
}
