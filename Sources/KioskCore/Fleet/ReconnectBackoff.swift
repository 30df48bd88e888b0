/// How long to wait before the next attempt to reach the MQTT broker.
///
/// The base delay starts at `first` (1 s) and doubles after every failure (a refused or failed
/// attempt, or a connection that dropped soon after it was made) up to `maximum` (60 s). A
/// connection that stayed up for `stable` (30 s) or longer resets it: the broker was fine, so
/// the first retry comes quickly again. A connection that keeps dropping at once (a duplicate
/// client id, a broker that closes on an ACL error) keeps doubling instead of hammering.
///
/// Each delay is the base scaled by a factor in [1 - `jitter`, 1] drawn from a generator
/// seeded by the caller (the kiosk seeds it from its client id): the same kiosk waits the same
/// on every run (tests, logs). Never above `maximum`.
///
/// The loss of a stable connection is what a whole fleet sees at the same instant (the broker
/// restarted, its network went away): the first attempt after it comes at a time drawn evenly
/// from 0 to `spread` instead, so a fleet of N comes back at about N / `spread` a second rather
/// than all within the same second.
public struct ReconnectBackoff: Sendable {
    public static let defaultFirst: Duration = .seconds(1)
    public static let defaultMaximum: Duration = .seconds(60)
    public static let defaultStable: Duration = .seconds(30)
    /// Half the base at most: a factor of two between the fleet's earliest and latest retry.
    public static let defaultJitter = 0.5
    /// 10 s: a kiosk is back within seconds, and a fleet of 10,000 comes at about 1,000 a second.
    public static let defaultSpread: Duration = .seconds(10)

    public let first: Duration
    public let maximum: Duration
    public let stable: Duration
    public let jitter: Double
    public let spread: Duration
    private var generator: SeededGenerator
    /// The un-jittered delay the next failure waits.
    public private(set) var base: Duration
    /// Failures since the last stable connection (0 after one).
    public private(set) var failures = 0
    /// When the current connection was made; nil while there is none.
    public private(set) var connectedAt: TimeStamp?

    public init(seed: UInt64, first: Duration = defaultFirst, maximum: Duration = defaultMaximum,
                stable: Duration = defaultStable, jitter: Double = defaultJitter, spread: Duration = defaultSpread) {
        precondition(first > .zero && maximum >= first, "a backoff needs 0 < first <= maximum")
        self.first = first
        self.maximum = maximum
        self.stable = stable
        self.jitter = min(max(jitter, 0), 1)
        self.spread = max(spread, .zero)
        self.base = first
        generator = SeededGenerator(seed: seed)
    }

    /// A connection was made (the broker accepted it) at `now`.
    public mutating func connected(at now: TimeStamp) {
        connectedAt = now
    }

    /// An attempt failed, or the connection dropped, at `now`: how long to wait before the next
    /// attempt.
    public mutating func delay(afterFailureAt now: TimeStamp) -> Duration {
        if let since = connectedAt, now - since >= stable {
            base = first
            failures = 0
            connectedAt = nil
            // The next failure (the broker still away) waits `first`, jittered, and so on.
            return spread * generator.unit()
        }
        connectedAt = nil
        let wait = base * (1 - jitter * generator.unit())
        failures += 1
        base = min(base * 2, maximum)
        return min(wait, maximum)
    }

    /// A stable seed from a text (the client id): FNV-1a, the same on every machine and run,
    /// unlike `Hasher`, which is seeded per process.
    public static func seed(_ text: String) -> UInt64 {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 {
            h ^= UInt64(byte)
            h = h &* 0x0000_0100_0000_01b3
        }
        return h
    }
}
