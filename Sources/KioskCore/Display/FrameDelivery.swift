/// Whether frames really reach the screen, for the service watchdog: `WATCHDOG=1` is sent only
/// while this says healthy, so a display that stops completing page flips gets the kiosk
/// restarted instead of a loop that pings forever in front of a frozen picture.
///
/// A frame handed to the display starts a wait that its showing (the page-flip event, or the
/// mode set) ends. Healthy while no wait is older than `stuckAfter`. While the kiosk
/// legitimately draws nothing (asleep, switched away, no screen, retrying a lost display) there
/// is nothing to wait for, and `idle` clears the wait.
public struct FrameDelivery: Equatable, Sendable {
    /// A frame not shown after this long means the display is stuck: far beyond a 60 Hz flip
    /// (17 ms) and the flip timeout that retries a lost event, inside systemd's WatchdogSec=.
    public static let stuckAfter = Duration.seconds(5)

    /// When the oldest frame not yet shown was handed over; nil when every frame has shown.
    public private(set) var waitingSince: TimeStamp?
    /// Whether the stuck state was already reported (said once per stuck spell).
    public private(set) var reported = false

    public init() {}

    /// A frame was handed to the display (or handing it over failed: that is no showing either).
    public mutating func handedOver(at now: TimeStamp) {
        if waitingSince == nil { waitingSince = now }
    }

    /// A frame became visible: the display works.
    public mutating func shown() {
        waitingSince = nil
        reported = false
    }

    /// Nothing is to be drawn now (asleep, switched away, no screen): nothing to wait for.
    public mutating func idle() { shown() }

    /// False once a frame has waited longer than `stuckAfter`.
    public func isHealthy(at now: TimeStamp) -> Bool {
        guard let since = waitingSince else { return true }
        return now - since < Self.stuckAfter
    }

    /// True the first time `isHealthy` turns false in a stuck spell (the moment to log it).
    public mutating func shouldReport(at now: TimeStamp) -> Bool {
        guard !isHealthy(at: now), !reported else { return false }
        reported = true
        return true
    }
}
