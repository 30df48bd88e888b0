import KioskCore
import Testing

/// The delays before MQTT reconnect attempts, on virtual time.
@Suite struct ReconnectBackoffTests {
    /// The base delays of the first `n` failures in a row, without jitter.
    static func bases(_ n: Int) -> [Duration] {
        var b = ReconnectBackoff(seed: 1, jitter: 0)
        return (0..<n).map { i in b.delay(afterFailureAt: TimeStamp(microseconds: Int64(i) * 1_000_000)) }
    }

    @Test func doublesFromOneSecondUpToAMinute() {
        #expect(Self.bases(9) == [1, 2, 4, 8, 16, 32, 60, 60, 60].map { Duration.seconds($0) })
    }

    @Test func jitteredDelaysStayWithinHalfToAllOfTheBase() {
        var b = ReconnectBackoff(seed: 42)
        var t = TimeStamp.zero
        for base in Self.bases(12) {
            let d = b.delay(afterFailureAt: t)
            #expect(d <= base && d >= base / 2, "\(d) for base \(base)")
            t = t + d
        }
        #expect(b.failures == 12)
    }

    @Test func sameSeedSameDelaysOtherSeedOthers() {
        func delays(_ seed: UInt64) -> [Duration] {
            var b = ReconnectBackoff(seed: seed)
            return (0..<8).map { _ in b.delay(afterFailureAt: .zero) }
        }
        #expect(delays(7) == delays(7))
        #expect(delays(7) != delays(8))
    }

    @Test func aFleetComesBackSpreadOut() {
        // 100 kiosks with their own ids lose the broker at the same instant.
        let firsts = (0..<100).map { i -> Duration in
            var b = ReconnectBackoff(seed: ReconnectBackoff.seed("kiosk-\(i)"))
            return b.delay(afterFailureAt: .zero)
        }
        #expect(Set(firsts).count == 100)
        #expect(firsts.min()! < .milliseconds(600) && firsts.max()! > .milliseconds(900))
    }

    @Test func aStableConnectionResetsTheDelay() {
        var b = ReconnectBackoff(seed: 3, jitter: 0, spread: .zero)
        var t = TimeStamp.zero
        for _ in 0..<5 { t = t + b.delay(afterFailureAt: t) }
        #expect(b.base == .seconds(32))
        b.connected(at: t)
        t = t + .seconds(30)
        #expect(b.delay(afterFailureAt: t) == .zero, "the loss of a lasting connection: at once, with no spread")
        #expect(b.failures == 0)
        #expect(b.delay(afterFailureAt: t) == .seconds(1), "then from the first delay again")
        #expect(b.delay(afterFailureAt: t + .seconds(1)) == .seconds(2))
    }

    /// A fleet that loses its broker together comes back over the spread, not in one second.
    @Test func aFleetThatLostALastingConnectionComesBackOverTheSpread() {
        let n = 1000
        var perSecond = [Int](repeating: 0, count: 11)
        for i in 0..<n {
            var b = ReconnectBackoff(seed: ReconnectBackoff.seed("bubble-kiosk-k\(i)"))
            b.connected(at: .zero)
            let d = b.delay(afterFailureAt: TimeStamp.zero + .seconds(3600))
            #expect(d >= .zero && d <= ReconnectBackoff.defaultSpread, "\(d)")
            perSecond[Int(d.inSeconds)] += 1
        }
        // Evenly over 10 s: about 100 a second; never the whole fleet at once.
        #expect(perSecond.max()! < 150, "\(perSecond)")
        #expect(perSecond.prefix(10).allSatisfy { $0 > 50 }, "\(perSecond)")
    }

    @Test func aConnectionThatDropsAtOnceKeepsDoubling() {
        var b = ReconnectBackoff(seed: 3, jitter: 0)
        var t = TimeStamp.zero
        var waits: [Duration] = []
        for _ in 0..<4 {
            b.connected(at: t)
            t = t + .seconds(29)
            let d = b.delay(afterFailureAt: t)
            waits.append(d)
            t = t + d
        }
        #expect(waits == [1, 2, 4, 8].map { Duration.seconds($0) })
        #expect(b.connectedAt == nil)
    }

    @Test func seedsFromTextAreStable() {
        // FNV-1a's published value for "a": the same on every machine and run.
        #expect(ReconnectBackoff.seed("a") == 0xaf63_dc4c_8601_ec8c)
        #expect(ReconnectBackoff.seed("kiosk-1") != ReconnectBackoff.seed("kiosk-2"))
    }

    @Test func customLimits() {
        var b = ReconnectBackoff(seed: 0, first: .milliseconds(200), maximum: .seconds(1), jitter: 0)
        let waits = (0..<5).map { _ in b.delay(afterFailureAt: .zero) }
        #expect(waits == [200, 400, 800, 1000, 1000].map { Duration.milliseconds($0) })
    }
}
