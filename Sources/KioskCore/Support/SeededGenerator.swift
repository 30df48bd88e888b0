/// The project's own random generator (xoshiro256**, seeded through SplitMix64).
///
/// Same seed, same numbers on every machine and Swift version, which the standard library's
/// `SystemRandomNumberGenerator` does not promise. Game layout and particles draw from it.
public struct SeededGenerator: RandomNumberGenerator, Sendable {
    private var s: (UInt64, UInt64, UInt64, UInt64)

    public init(seed: UInt64) {
        var sm = seed
        func splitMix() -> UInt64 {
            sm &+= 0x9E37_79B9_7F4A_7C15
            var z = sm
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        s = (splitMix(), splitMix(), splitMix(), splitMix())
    }

    public mutating func next() -> UInt64 {
        let result = rotl(s.1 &* 5, 7) &* 9
        let t = s.1 << 17
        s.2 ^= s.0
        s.3 ^= s.1
        s.1 ^= s.2
        s.0 ^= s.3
        s.2 ^= t
        s.3 = rotl(s.3, 45)
        return result
    }

    private func rotl(_ x: UInt64, _ k: UInt64) -> UInt64 { (x << k) | (x >> (64 - k)) }

    /// Uniform in [0, 1), from the top 53 bits (not the stdlib's algorithm, which may change).
    public mutating func unit() -> Double {
        Double(next() >> 11) * (1.0 / 9_007_199_254_740_992.0)
    }

    /// Uniform in [lower, upper).
    public mutating func uniform(_ lower: Double, _ upper: Double) -> Double {
        lower + (upper - lower) * unit()
    }

    /// Uniform integer in the closed range, without modulo bias worth noticing for small ranges.
    public mutating func integer(in range: ClosedRange<Int>) -> Int {
        let span = UInt64(range.upperBound - range.lowerBound + 1)
        return range.lowerBound + Int(next().multipliedFullWidth(by: span).high)
    }
}
