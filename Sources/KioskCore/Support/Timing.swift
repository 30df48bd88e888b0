/// Median and 95th percentile (nearest rank) of a set of times: the bench's frames and the
/// kiosk's input-to-screen latency.
public struct Timing: Sendable {
    public var median = 0.0
    public var p95 = 0.0

    public init() {}

    public init(_ samples: [Double]) {
        let s = samples.sorted()
        guard let middle = Self.median(sorted: s) else { return }
        median = middle
        let rank = Int((0.95 * Double(s.count)).rounded(.up))
        p95 = s[min(max(rank - 1, 0), s.count - 1)]
    }

    /// The middle value, or the mean of the two middle ones; nil for no values.
    public static func median(_ values: [Double]) -> Double? {
        median(sorted: values.sorted())
    }

    private static func median(sorted s: [Double]) -> Double? {
        guard !s.isEmpty else { return nil }
        let mid = s.count / 2
        return s.count % 2 == 1 ? s[mid] : (s[mid - 1] + s[mid]) / 2
    }

    public var json: JSON { .object([("median", JSON.rounded(median, 4)), ("p95", JSON.rounded(p95, 4))]) }
}
