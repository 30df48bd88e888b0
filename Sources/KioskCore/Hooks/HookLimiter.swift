/// Whether a hook may run now: at most `maxRunning` hooks at once, and at most `perMinute`
/// runs of each event in any 60 seconds. A run that may not start is dropped, not queued (a
/// late pop light is worse than none); drops are counted per event and reason, and the log is
/// told about the 1st, 2nd, 4th, 8th... of each.
public struct HookLimiter: Sendable {
    public enum Decision: Equatable, Sendable {
        case run
        /// This event already ran `perMinute` times in the last minute.
        case rateLimited
        /// `maxRunning` hooks are running.
        case busy
    }

    public var maxRunning: Int
    public var perMinute: Int
    /// Start times of each event's runs in the last minute.
    private var starts = WindowedCounts<HookEvent>(window: HookLimiter.window)
    private var rateDrops: [HookEvent: RateLimitedLog] = [:]
    private var busyDrops: [HookEvent: RateLimitedLog] = [:]

    /// How far back the per-minute rate looks.
    public static let window = Duration.seconds(60)

    public init(maxRunning: Int, perMinute: Int) {
        self.maxRunning = maxRunning
        self.perMinute = perMinute
    }

    public init(_ settings: HookSettings) {
        self.init(maxRunning: settings.maxRunning, perMinute: settings.perEventPerMinute)
    }

    /// Decides on a run of `event` at `time` with `running` hooks running; a `.run` counts
    /// against the event's rate from then on. `log` is true when the drop should be logged.
    public mutating func admit(_ event: HookEvent, at time: TimeStamp, running: Int) -> (decision: Decision, log: Bool) {
        if starts.count(event, at: time) >= perMinute {
            return (.rateLimited, rateDrops[event, default: RateLimitedLog()].note())
        }
        if running >= maxRunning {
            return (.busy, busyDrops[event, default: RateLimitedLog()].note())
        }
        starts.note(event, at: time)
        return (.run, false)
    }

    /// Runs of `event` dropped so far for its rate.
    public func rateLimitedCount(_ event: HookEvent) -> Int { rateDrops[event]?.count ?? 0 }
    /// Runs of `event` dropped so far because too many hooks were running.
    public func busyCount(_ event: HookEvent) -> Int { busyDrops[event]?.count ?? 0 }
}
