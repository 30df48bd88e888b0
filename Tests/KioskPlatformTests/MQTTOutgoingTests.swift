@testable import KioskPlatform
import Testing

/// The outgoing queue's accounting, whatever order the loop's publish and the worker's
/// publish callback come in.
@Suite struct MQTTOutgoingTests {
    @Test func boundedByCountAndBytes() {
        var q = MQTTOutgoing()
        for mid in 1...Int32(MQTTOutgoing.maxMessages) {
            let g = q.reserve(10)
            #expect(g != nil)
            q.queued(mid: mid, size: 10, generation: g!)
        }
        #expect(q.reserve(10) == nil)
        q.written(mid: 1)
        #expect(q.reserve(10) != nil)

        var big = MQTTOutgoing()
        // A message over the byte bound goes alone; nothing joins it until it is written.
        let g = big.reserve(MQTTOutgoing.maxBytes + 1)!
        big.queued(mid: 7, size: MQTTOutgoing.maxBytes + 1, generation: g)
        #expect(big.reserve(1) == nil)
        #expect(big.reserve(1, force: true) != nil)
    }

    @Test func writtenBeforeItsIdWasRecorded() {
        var q = MQTTOutgoing()
        let g = q.reserve(100)!
        q.written(mid: 5)          // the worker wrote it before mosquitto_publish returned
        #expect(q.count == 1)
        q.queued(mid: 5, size: 100, generation: g)
        #expect(q.count == 0 && q.bytes == 0 && !q.isPending(5))
    }

    @Test func aResetForgetsTheOldConnectionsReservations() {
        var q = MQTTOutgoing()
        let old = q.reserve(100)!
        q.reset()
        q.queued(mid: 1, size: 100, generation: old)
        #expect(q.count == 0 && !q.isPending(1))
        let now = q.reserve(50)!
        q.cancel(size: 100, generation: old)
        #expect(q.count == 1 && q.bytes == 50)
        q.queued(mid: 2, size: 50, generation: now)
        #expect(q.isPending(2))
        q.written(mid: 2)
        #expect(q.count == 0 && q.bytes == 0)
    }
}
