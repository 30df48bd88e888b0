import CLinux
import Glibc
import KioskCore

/// The one place the kiosk waits: a single-threaded `poll()` over every file descriptor
/// (display, input devices, inotify, a timerfd and a signalfd), in the manner of libinput and
/// Weston. With no deadline and no input it sleeps in the kernel: no busy waiting, no wake-ups
/// while nothing moves.
public final class EventLoop {
    /// A registered descriptor and what to do when it is readable (or hung up).
    private struct Source {
        var fd: Int32
        var name: String
        var onReadable: () -> Void
    }

    private var sources: [Source] = []
    private let timerFD: Int32
    private let signalFD: Int32
    private var armedDeadline: TimeStamp?
    private var running = false
    /// Times poll() returned, for the benchmark and the idle check.
    public private(set) var wakeups = 0
    /// Called with the signal number when SIGINT, SIGTERM or SIGHUP arrives.
    public var onSignal: (Int32) -> Void = { _ in }
    /// Called on every wake-up, after the ready sources, with the current time; returns the next
    /// deadline at which it wants to be called again without input (nil: only on input).
    public var onWake: (TimeStamp) -> TimeStamp? = { _ in nil }

    public init() throws {
        timerFD = try retryingInterrupts("timerfd_create", "event loop timer") { CLinux_timerfd_create() }
        signalFD = try retryingInterrupts("signalfd", "event loop signals") { CLinux_signalfd_for_termination() }
    }

    deinit {
        close(timerFD)
        close(signalFD)
    }

    /// The monotonic clock, which all game time in a live run uses.
    public static func now() -> TimeStamp { TimeStamp(microseconds: CLinux_monotonic_us()) }

    /// Watches `fd` for input until `remove` is called with it.
    public func add(fd: Int32, name: String, onReadable: @escaping () -> Void) {
        sources.append(Source(fd: fd, name: name, onReadable: onReadable))
    }

    public func remove(fd: Int32) {
        sources.removeAll { $0.fd == fd }
    }

    /// Ends `run()` after the current iteration.
    public func stop() { running = false }

    /// Runs until `stop()`. Each iteration: wait, handle what is ready, let `onWake` do the
    /// frame's work and name the next deadline, arm the timer for it.
    public func run() throws {
        running = true
        schedule(onWake(Self.now()))
        while running {
            var fds = [pollfd(fd: signalFD, events: Int16(POLLIN), revents: 0),
                       pollfd(fd: timerFD, events: Int16(POLLIN), revents: 0)]
            fds += sources.map { pollfd(fd: $0.fd, events: Int16(POLLIN), revents: 0) }
            let n = poll(&fds, nfds_t(fds.count), -1)
            if n < 0 {
                if errno == EINTR { continue }
                throw SystemError("poll", "event loop")
            }
            wakeups += 1
            if fds[0].revents != 0 {
                while case let signo = CLinux_signalfd_read(signalFD), signo > 0 { onSignal(Int32(signo)) }
            }
            if fds[1].revents != 0 {
                var expirations: UInt64 = 0
                _ = read(timerFD, &expirations, 8)
                armedDeadline = nil
            }
            // Snapshot: a callback may add or remove sources (hotplug).
            let ready = zip(fds.dropFirst(2), sources).filter { $0.0.revents != 0 }.map(\.1)
            for source in ready where sources.contains(where: { $0.fd == source.fd }) {
                source.onReadable()
            }
            guard running else { break }
            schedule(onWake(Self.now()))
        }
    }

    private func schedule(_ deadline: TimeStamp?) {
        guard deadline != armedDeadline else { return }
        armedDeadline = deadline
        // An absolute time of 0 disarms; a deadline already past fires at once.
        let at = deadline.map { max(1, $0.microseconds) } ?? 0
        _ = CLinux_timerfd_arm_at(timerFD, at)
    }
}
