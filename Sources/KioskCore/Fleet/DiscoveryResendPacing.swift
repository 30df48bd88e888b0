/// When to send Home Assistant's discovery configs again after it says `online` on its status
/// topic: at once, but at most once per `minimumInterval`. Requests within the interval are
/// folded into one resend at its end, so a flood of `online` messages costs one resend per
/// interval and the last request is still answered.
public struct DiscoveryResendPacing: Equatable, Sendable {
    /// What to do about a request.
    public enum Decision: Equatable, Sendable {
        /// Send now.
        case sendNow
        /// Send at this time (arm a timer); the first request folded into it.
        case sendAt(TimeStamp)
        /// A resend is due at that time already; this request is folded into it.
        case folded
    }

    public static let defaultMinimumInterval = Duration.seconds(10)

    public let minimumInterval: Duration
    private var lastSent: TimeStamp?
    /// When the folded resend is due; nil when none waits.
    public private(set) var pendingAt: TimeStamp?
    /// Requests folded into the pending resend.
    public private(set) var folded = 0

    public init(minimumInterval: Duration = defaultMinimumInterval) {
        self.minimumInterval = minimumInterval
    }

    /// Home Assistant asked at `now`.
    public mutating func request(at now: TimeStamp) -> Decision {
        if pendingAt != nil {
            folded += 1
            return .folded
        }
        if let last = lastSent, now < last + minimumInterval {
            pendingAt = last + minimumInterval
            folded = 1
            return .sendAt(last + minimumInterval)
        }
        lastSent = now
        return .sendNow
    }

    /// The timer fired at `now`: true when the folded resend is due (and counts as sent).
    public mutating func due(at now: TimeStamp) -> Bool {
        guard let at = pendingAt, now >= at else { return false }
        pendingAt = nil
        folded = 0
        lastSent = now
        return true
    }

    /// The configs went out for another reason (a new connection): the interval starts again and
    /// nothing waits.
    public mutating func sent(at now: TimeStamp) {
        lastSent = now
        pendingAt = nil
        folded = 0
    }
}
