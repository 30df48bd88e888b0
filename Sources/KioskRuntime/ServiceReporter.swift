import KioskCore
import KioskPlatform

/// What the service manager (systemd) is told: READY=1 with the first frame on screen (that is
/// what "started" means for a kiosk), or at start when no screen is connected (waiting for one
/// is running as intended, not a start that hangs), STATUS= when what the kiosk does changes, reloads, stops
/// and the watchdog's keep-alive.
struct ServiceReporter {
    let notifier: ServiceNotifier?
    /// READY=1 was sent.
    private(set) var ready = false
    private var lastStatus: String?

    init(notifier: ServiceNotifier?) {
        self.notifier = notifier
    }

    /// Half the watchdog interval, when systemd asks for keep-alives: a hung loop misses them.
    var keepAlivePeriod: Duration? { notifier?.watchdogInterval.map { max($0 / 2, .milliseconds(1)) } }

    mutating func ready(status: String) {
        guard !ready else { return }
        ready = true
        lastStatus = status
        notifier?.notify("READY=1\nSTATUS=\(status)")
    }

    /// Sends `STATUS=` when it changed (after READY: before it, systemd shows "activating").
    mutating func report(status: String) {
        guard ready, status != lastStatus else { return }
        lastStatus = status
        notifier?.notify("STATUS=\(status)")
    }

    /// A reload begins; `monotonicUS` is the real monotonic clock, which systemd compares with its own.
    func reloading(monotonicUS: Int64) {
        notifier?.notify("RELOADING=1\nMONOTONIC_USEC=\(monotonicUS)")
    }

    /// The reload is over (done or refused).
    mutating func reloaded(status: String) {
        lastStatus = status
        notifier?.notify("READY=1\nSTATUS=\(status)")
    }

    func stopping(status: String? = nil) {
        notifier?.notify("STOPPING=1" + (status.map { "\nSTATUS=\($0)" } ?? ""))
    }

    func keepAlive() { notifier?.notify("WATCHDOG=1") }
}
