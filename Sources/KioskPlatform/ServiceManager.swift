internal import CSystemd
import Glibc
import KioskCore

/// Where the kiosk tells its supervisor how it is doing: `READY=1`, `STATUS=`, `WATCHDOG=1`,
/// `RELOADING=1`. A protocol so runtime tests can read the messages.
public protocol ServiceNotifier: AnyObject {
    /// How often the supervisor wants a `WATCHDOG=1`, if it watches at all.
    var watchdogInterval: Duration? { get }
    /// Sends one message of `KEY=VALUE` lines.
    func notify(_ message: String)
}

/// systemd, through libsystemd's sd_notify: every call does nothing outside a unit with
/// `NOTIFY_SOCKET` set, so the same binary runs from a shell unchanged.
public final class SystemdNotifier: ServiceNotifier {
    public let watchdogInterval: Duration?
    /// Whether a supervisor listens (NOTIFY_SOCKET is set).
    public let isSupervised: Bool
    private var failures = RateLimitedLog()

    private let log: Logger

    public init(log: Logger) {
        self.log = log
        isSupervised = getenv("NOTIFY_SOCKET") != nil
        var usec: UInt64 = 0
        // 0 keeps WATCHDOG_USEC in the environment; hook processes get a cleaned environment.
        let r = sd_watchdog_enabled(0, &usec)
        watchdogInterval = r > 0 && usec > 0 ? .microseconds(Int64(clamping: usec)) : nil
    }

    public func notify(_ message: String) {
        guard isSupervised else { return }
        let r = sd_notify(0, message)
        if r < 0, failures.note() {
            log(.warning, "sd_notify: \(String(cString: strerror(-r))) (errno \(-r), \(failures.count) times)")
        }
    }
}
