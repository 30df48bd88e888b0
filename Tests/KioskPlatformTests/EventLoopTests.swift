import Glibc
import KioskCore
import KioskPlatform
import KioskTestSupport
import Testing

/// The loop's named timers and signals.
@Suite struct EventLoopTests {
    @Test func timersFireInDeadlineOrderAndCanBeReArmed() throws {
        let clock = VirtualClock()
        let loop = try EventLoop(clock: clock, signals: [])
        var fired: [String] = []
        let t0 = clock.now
        let b = loop.addTimer("b") { _ in fired.append("b") }
        var a: EventLoop.TimerID!
        a = loop.addTimer("a") { now in
            fired.append("a")
            if fired.count < 3 { loop.arm(a, at: (now + .milliseconds(100))) }
        }
        loop.arm(b, at: (t0 + .milliseconds(150)))
        loop.arm(a, at: (t0 + .milliseconds(50)))
        #expect(loop.armedTimers.map(\.name) == ["a", "b"])
        loop.run(until: (t0 + .milliseconds(1000)), advancing: clock)
        #expect(fired == ["a", "b", "a"])
        #expect(loop.armedTimers.isEmpty)
        #expect(clock.now == (t0 + .milliseconds(1000)))
    }

    /// A repeating timer woken late fires once and keeps its rhythm instead of catching up.
    @Test func repeatingTimersKeepTheirRhythm() throws {
        let clock = VirtualClock()
        let loop = try EventLoop(clock: clock, signals: [])
        var at: [Double] = []
        let t0 = clock.now
        loop.addRepeatingTimer("tick", every: .milliseconds(100), from: t0 + .milliseconds(100)) { now in
            at.append((now - t0).inMilliseconds)
        }
        loop.run(until: (t0 + .milliseconds(350)), advancing: clock)
        #expect(at == [100, 200, 300])
        // Asleep for a while (the machine was busy): one call, then on the next period.
        clock.advance(by: .seconds(1))
        loop.run(until: (t0 + .milliseconds(1500)), advancing: clock)
        #expect(at == [100, 200, 300, 1350, 1450])
    }

    /// A watched signal arrives through the signalfd as an event, not as a handler.
    @Test func watchedSignalsArriveInTheLoop() throws {
        let loop = try EventLoop(signals: [])
        try loop.watch(signal: SIGUSR2)
        var got: [Int32] = []
        loop.onSignal = { got.append($0); loop.stop() }
        let giveUp = loop.addTimer("give up") { _ in loop.stop() }
        loop.arm(giveUp, at: (loop.now + .milliseconds(2000)))
        raise(SIGUSR2)
        try loop.run()
        #expect(got == [SIGUSR2])
    }
}

extension EventLoopTests {
    /// A timer fires no earlier than its deadline: real time, measured.
    @Suite(.tags(.timing)) struct Timing {
        /// The real loop sleeps until its timer: one wake-up for a deadline 30 ms out.
        @Test func theMonotonicLoopSleepsUntilItsTimer() throws {
            let loop = try EventLoop(signals: [])
            let start = EventLoop.now()
            var firedAt: TimeStamp?
            let t = loop.addTimer("t") { now in firedAt = now; loop.stop() }
            loop.arm(t, at: (start + .milliseconds(30)))
            try loop.run()
            let fired = try #require(firedAt)
            #expect(fired >= (start + .milliseconds(30)))
            #expect(loop.wakeups == 1)
        }
    }
}
