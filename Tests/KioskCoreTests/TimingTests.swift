import KioskCore
import Testing

/// The one median: the bench, the latency stats and the play statistics share it.
struct TimingTests {
    @Test func medianOfOddEvenAndEmpty() {
        #expect(Timing.median([5, 1, 3]) == 3)
        #expect(Timing.median([10, 1, 3, 2]) == 2.5)
        #expect(Timing.median([7]) == 7)
        #expect(Timing.median([]) == nil)
    }

    @Test func timingUsesTheSameMedian() {
        let samples: [Double] = [4, 1, 9, 2]
        #expect(Timing(samples).median == Timing.median(samples))
        #expect(Timing([]).median == 0)
    }
}
