/// The latest `capacity` spans measured (latencies, frame times): a kiosk runs for months, so
/// old samples are overwritten rather than kept.
public struct SampleRing: Sendable {
    public let capacity: Int
    /// The samples kept, in no particular order.
    public private(set) var samples: [Duration] = []
    private var next = 0
    /// Samples ever added and their sum, overwritten ones included (a summary's `_count`, `_sum`).
    public private(set) var totalCount = 0
    public private(set) var totalSum = Duration.zero

    public init(capacity: Int) {
        precondition(capacity > 0)
        self.capacity = capacity
    }

    public mutating func add(_ sample: Duration) {
        totalCount += 1
        totalSum += sample
        if samples.count < capacity {
            samples.append(sample)
        } else {
            samples[next] = sample
        }
        next = (next + 1) % capacity
    }

    /// The samples' median, 95th percentile and so on, in milliseconds.
    public var timing: Timing { Timing(samples.map(\.inMilliseconds)) }
}
