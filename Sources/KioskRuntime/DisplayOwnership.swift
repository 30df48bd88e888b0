import KioskCore
import KioskPlatform

/// Whether the kiosk may draw: the VT can be switched away and DRM master lost.
public enum DisplayState: Equatable, Sendable {
    case showing
    /// The VT was switched away: drawing stops until it comes back.
    case switchedAway
    /// Master was lost some other way: `resume` is retried with backoff.
    case lost(since: TimeStamp, retry: Duration)
}

/// The display's ownership: shown, switched away, or lost and retried with a backoff that
/// doubles from `firstRetry` to `longestRetry`. Its retry timer is made with it.
struct DisplayOwnership {
    static let firstRetry = Duration.milliseconds(250)
    static let longestRetry = Duration.seconds(8)

    private(set) var state = DisplayState.showing
    let retryTimer: EventLoop.TimerID

    init(retryTimer: EventLoop.TimerID) { self.retryTimer = retryTimer }

    mutating func shown() { state = .showing }

    mutating func switchedAway() { state = .switchedAway }

    /// Lost now: when to try to take it back first.
    mutating func lost(at now: TimeStamp) -> TimeStamp {
        state = .lost(since: now, retry: Self.firstRetry)
        return now + Self.firstRetry
    }

    /// A retry failed: when to try next (nil when it is not lost).
    mutating func retryFailed(at now: TimeStamp) -> TimeStamp? {
        guard case .lost(let since, let retry) = state else { return nil }
        let next = min(retry * 2, Self.longestRetry)
        state = .lost(since: since, retry: next)
        return now + next
    }
}
