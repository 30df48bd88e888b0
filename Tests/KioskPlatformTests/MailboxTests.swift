import Glibc
import KioskCore
import KioskPlatform
import KioskTestSupport
import Synchronization
import Testing

/// Worker threads hand results back to the loop through a mailbox's eventfd.
@Suite struct MailboxTests {
    @Test func aWorkerThreadsMessagesReachTheLoopInOrder() throws {
        let loop = try EventLoop(signals: [])
        let toWorker = try Mailbox<Int>(name: "to worker")
        let toLoop = try Mailbox<Int>(name: "to loop")
        var received: [Int] = []
        let watch = toLoop.attach(to: loop, name: "results") { messages in
            received += messages
            if received.count == 100 { loop.stop() }
        }
        let worker = try WorkerThread(name: "doubler") {
            var done = 0
            while done < 100 {
                for n in toWorker.wait() {
                    toLoop.post(n * 2)
                    done += 1
                }
            }
        }
        for n in 0..<100 { toWorker.post(n) }
        let giveUp = loop.addTimer("give up") { _ in loop.stop() }
        loop.arm(giveUp, at: (loop.now + .milliseconds(10_000)))
        try loop.run()
        worker.join()
        #expect(received == (0..<100).map { $0 * 2 })
        #expect(loop.watchedCount == 1)
        watch.cancel()
        #expect(loop.watchedCount == 0, "a cancelled registration is watched no more")
    }
}

extension MailboxTests {
    /// A wait with a timeout lasts that long: real time, measured.
    @Suite(.tags(.timing)) struct Timing {
        @Test func takeNeverBlocksAndWaitTimesOut() throws {
            let box = try Mailbox<String>(name: "test")
            #expect(box.take().isEmpty)
            let start = EventLoop.now()
            #expect(box.wait(timeout: .milliseconds(20)).isEmpty)
            #expect((EventLoop.now() - start).inMilliseconds >= 19)
            box.post("a")
            box.post("b")
            #expect(box.wait(timeout: .seconds(1)) == ["a", "b"])
        }
    }
}
