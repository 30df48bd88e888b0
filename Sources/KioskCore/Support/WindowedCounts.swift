/// How often each key happened in the last `window` (a sliding window of times): the rate
/// limits of hooks and of fleet commands. Only noted times are kept, so a caller that notes
/// at most N per window keeps at most N times per key.
public struct WindowedCounts<Key: Hashable & Sendable>: Sendable {
    public let window: Duration
    /// Each key's noted times in the window, oldest first.
    private var times: [Key: [TimeStamp]] = [:]

    public init(window: Duration) { self.window = window }

    /// How many times `key` was noted in the window that ends at `time`; older times are
    /// forgotten here.
    public mutating func count(_ key: Key, at time: TimeStamp) -> Int {
        guard var recent = times[key] else { return 0 }
        let horizon = time - window
        if let keep = recent.firstIndex(where: { $0 > horizon }) {
            recent.removeFirst(keep)
        } else {
            recent.removeAll()
        }
        times[key] = recent.isEmpty ? nil : recent
        return recent.count
    }

    /// Counts `key` at `time` from now on.
    public mutating func note(_ key: Key, at time: TimeStamp) {
        times[key, default: []].append(time)
    }
}
