import KioskCore
import Testing

@Suite struct RateLimitedLogTests {
    @Test func logsOnPowersOfTwoOnly() {
        var log = RateLimitedLog()
        let logged = (1...20).filter { _ in log.note() }
        #expect(logged == [1, 2, 4, 8, 16])
        #expect(log.count == 20)
    }

    @Test func resetLogsTheNextOccurrenceAgain() {
        var log = RateLimitedLog()
        for _ in 0..<5 { _ = log.note() }
        let sixth = log.note()
        #expect(!sixth)
        log.reset()
        #expect(log.count == 0)
        let afterReset = (0..<3).map { _ in log.note() }
        #expect(afterReset == [true, true, false])
    }

    @Test func noteFirstSaysTheFirstOnlyUntilReset() {
        var log = RateLimitedLog()
        let said = (1...5).filter { _ in log.noteFirst() }
        #expect(said == [1])
        #expect(log.count == 5)
        log.reset()
        let again = log.noteFirst()
        #expect(again)
    }
}
