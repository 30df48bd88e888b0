import Testing
@testable import KioskCore
import KioskTestSupport

/// A real finger tapping at `p`: down at `ms`, up 60 ms later.
func realTap(_ s: inout KioskSession, _ p: Vector2, at ms: Double, id: Int = 1) -> [GameEvent] {
    var events = s.process(TouchFrame(time: TimeStamp(milliseconds: ms), contacts: [
        TouchPoint(slot: 0, trackingID: id, position: p),
    ]))
    events += s.process(TouchFrame(time: TimeStamp(milliseconds: ms + 60), contacts: []))
    return events
}


@Suite struct KioskScreenTests {
    @Test func startButtonStartsARound() {
        var s = makeSession()
        #expect(s.game.screen == .start)
        #expect(realTap(&s, Vector2(5, 5), at: 100).isEmpty, "a tap beside the button does nothing")
        #expect(realTap(&s, s.game.button.center, at: 500) == [.roundStarted(demo: false)])
        #expect(s.game.screen == .playing(demo: false))
        #expect(s.game.round?.bubbles.count == 10)
    }

    @Test func withSeveralModesATouchOnTheDemoShowsTheModeButtons() {
        var s = makeSession { $0.modes.timed = true }
        _ = s.startDemo(at: .zero)
        #expect(s.game.isDemo)
        // The touch lands where the timed mode's button is: it only stops the demo.
        let timed = s.game.button(for: .timed)!.center
        #expect(realTap(&s, timed, at: 1000) == [.roundAbandoned])
        #expect(s.game.screen == .start && s.game.round == nil)
        #expect(s.contacts.isEmpty)
        // The next tap chooses.
        #expect(realTap(&s, timed, at: 2000) == [.roundStarted(demo: false)])
        #expect(s.game.round?.mode == .timed)
    }

    @Test func withOneModeATouchOnTheDemoStartsARoundAtOnce() {
        var s = makeSession()
        _ = s.startDemo(at: .zero)
        #expect(realTap(&s, Vector2(5, 5), at: 1000).first == .roundStarted(demo: false))
        #expect(s.game.screen == .playing(demo: false))
    }

    @Test func walkingAwayMidRoundReturnsToStart() {
        var s = makeSession { $0.attract.idleTimeout = .seconds(30); $0.attract.demo = false }
        _ = realTap(&s, s.game.button.center, at: 0)
        // Idle time counts from the last real touch: the tap's lift at 60 ms.
        #expect(s.nextDeadline == TimeStamp(milliseconds: 30_060))
        #expect(s.advance(to: TimeStamp(milliseconds: 30_059)).isEmpty)
        #expect(s.game.screen == .playing(demo: false))
        #expect(s.advance(to: TimeStamp(milliseconds: 30_060)) == [.idleReturn])
        #expect(s.game.screen == .start && s.game.round == nil)
        #expect(s.nextDeadline == nil, "no demo, no timer: the loop can sleep until input")
    }

    @Test func touchesKeepTheRoundAlive() {
        var s = makeSession { $0.attract.idleTimeout = .seconds(30) }
        _ = realTap(&s, s.game.button.center, at: 0)
        _ = realTap(&s, Vector2(3, 3), at: 25_000)
        #expect(s.advance(to: TimeStamp(milliseconds: 40_000)).isEmpty)
        #expect(s.game.screen == .playing(demo: false))
    }

    @Test func roundOverScreenTimesOut() {
        var s = makeSession { $0.attract.roundOver = .seconds(5); $0.attract.demo = false }
        _ = realTap(&s, s.game.button.center, at: 0)
        var t = 1000.0
        for b in s.game.round!.bubbles {
            switch b.kind {
            case .tap(let n):
                for _ in 0..<n {
                    _ = realTap(&s, b.center, at: t)
                    t += 400
                }
            case .swipe(let a):
                let end = b.center + Angle.unitVector(degrees: a) * 100
                for i in 0...10 {
                    let p = b.center + (end - b.center) * (Double(i) / 10)
                    _ = s.process(TouchFrame(time: TimeStamp(milliseconds: t + Double(i) * 10),
                                             contacts: [TouchPoint(slot: 0, trackingID: 99, position: p)]))
                }
                _ = s.process(TouchFrame(time: TimeStamp(milliseconds: t + 110), contacts: []))
                t += 400
            case .drag:
                let goal = s.game.round!.goal!.center
                for i in 0...30 {
                    let p = b.center + (goal - b.center) * (Double(i) / 30)
                    _ = s.process(TouchFrame(time: TimeStamp(milliseconds: t + Double(i) * 10),
                                             contacts: [TouchPoint(slot: 0, trackingID: 99, position: p)]))
                }
                _ = s.process(TouchFrame(time: TimeStamp(milliseconds: t + 400), contacts: []))
                t += 700
            }
        }
        // A swipe is delivered once its bounce time (25 ms) after the lift has passed.
        _ = s.advance(to: TimeStamp(milliseconds: t))
        #expect(s.game.screen == .roundOver)
        #expect(s.game.round?.isOver == true && s.game.round?.remaining == 0)
        let over = s.game.screenSince
        _ = s.advance(to: (over + .milliseconds(4999)))
        #expect(s.game.screen == .roundOver)
        _ = s.advance(to: (over + .milliseconds(5000)))
        #expect(s.game.screen == .start)
    }
}

@Suite struct AttractModeTests {
    /// Runs the session's own timers from `from` to `to` in 10 ms steps of virtual time.
    func run(_ s: inout KioskSession, from: Double, to: Double) -> [GameEvent] {
        var events: [GameEvent] = []
        var t = from
        while t <= to {
            events += s.advance(to: TimeStamp(milliseconds: t))
            t += 10
        }
        return events
    }

    @Test func idleStartScreenPlaysADemoThatPopsEverything() {
        var s = makeSession { $0.attract.demoAfter = .seconds(5) }
        #expect(s.nextDeadline == TimeStamp(milliseconds: 5000))
        let events = run(&s, from: 0, to: 5000)
        #expect(events == [.roundStarted(demo: true)])
        #expect(s.game.screen == .playing(demo: true))
        let bubbles = s.game.round!.bubbles.count
        // Ghost fingers show while they touch.
        var sawGhost = false
        var popped: [GameEvent] = []
        var t = 5010.0
        while s.game.isDemo && t < 60_000 {
            popped += s.advance(to: TimeStamp(milliseconds: t)).filter {
                if case .popped = $0 { return true } else { return false }
            }
            if s.contacts[DemoPlayer.device] != nil { sawGhost = true }
            t += 10
        }
        #expect(sawGhost)
        #expect(popped.count == bubbles, "the demo pops every bubble")
        #expect(s.game.screen == .start, "and loops back to the start screen")
    }

    @Test func aRealTouchTakesOverAtOnce() {
        var s = makeSession { $0.attract.demoAfter = .seconds(1) }
        _ = run(&s, from: 0, to: 2500)
        #expect(s.game.isDemo)
        let demoRound = s.game.round!.bubbles
        let events = s.process(TouchFrame(time: TimeStamp(milliseconds: 2505), contacts: [
            TouchPoint(slot: 0, trackingID: 1, position: Vector2(3, 3)),
        ]))
        #expect(events == [.roundStarted(demo: false)])
        #expect(s.game.screen == .playing(demo: false))
        #expect(s.game.round!.bubbles != demoRound)
        #expect(s.game.round!.score == 0 && s.game.round!.popped == 0)
        #expect(s.contacts[DemoPlayer.device] == nil, "ghost fingers vanish")
        // The ghosts stay gone.
        _ = run(&s, from: 2510, to: 8000)
        #expect(s.contacts[DemoPlayer.device] == nil)
        #expect(s.game.round!.popped == 0)
    }

    @Test func demoCanBeTurnedOff() {
        var s = makeSession { $0.attract.demo = false }
        #expect(run(&s, from: 0, to: 120_000).isEmpty)
        #expect(s.game.screen == .start)
    }
}

@Suite struct RoundSeedTests {
    @Test func firstRealRoundIsTheOneStatePrints() {
        var s = makeSession { $0.attract.demoAfter = .seconds(1) }
        // A demo first must not change which round the first visitor gets.
        _ = s.advance(to: TimeStamp(milliseconds: 1000))
        #expect(s.game.isDemo)
        _ = realTap(&s, Vector2(3, 3), at: 1500)
        let expected = Round(field: s.game.field, settings: s.game.settings, seed: 11, at: .zero)
        #expect(s.game.round?.bubbles.map(\.center) == expected.bubbles.map(\.center))
        #expect(s.game.round?.bubbles.map(\.kind) == expected.bubbles.map(\.kind))
    }
}

@Suite struct BounceInTheGameTests {
    @Test func bouncedTapTakesOneTapOffABubble() throws {
        var s = makeSession { $0.attract.demo = false }
        _ = realTap(&s, s.game.button.center, at: 0)
        let bubble = try #require(s.game.round?.bubbles.first { $0.tapsLeft >= 2 })
        // One press whose contact drops out for 15 ms, as cheap panels do.
        for (ms, down) in [(1000.0, true), (1040, false), (1055, true), (1100, false)] {
            let contacts = down ? [TouchPoint(slot: 0, trackingID: Int(ms), position: bubble.center)] : []
            _ = s.process(TouchFrame(time: TimeStamp(milliseconds: ms), contacts: contacts))
        }
        _ = s.advance(to: TimeStamp(milliseconds: 1200))
        let after = try #require(s.game.round?.bubbles.first { $0.id == bubble.id })
        #expect(after.tapsLeft == bubble.tapsLeft - 1)
    }
}

@Suite struct KioskSessionCancelTests {
    /// A swipe lifted just before its device vanishes (still inside the bounce time) pops.
    @Test func aSwipeLiftedJustBeforeAnUnplugStillPlays() throws {
        var s = makeSession { $0.attract.demo = false }
        _ = realTap(&s, s.game.button.center, at: 0)
        let round = try #require(s.game.round)
        let b = try #require(round.bubbles.first { $0.swipeAngle != nil })
        let a = try #require(b.swipeAngle)
        let end = b.center + Angle.unitVector(degrees: a) * 100
        for i in 0...10 {
            let p = b.center + (end - b.center) * (Double(i) / 10)
            _ = s.process(TouchFrame(time: TimeStamp(milliseconds: 1000 + Double(i) * 10),
                                     contacts: [TouchPoint(slot: 0, trackingID: 5, position: p)]))
        }
        #expect(s.process(TouchFrame(time: TimeStamp(milliseconds: 1110), contacts: [])).isEmpty,
                "the swipe waits out the bounce time")
        let events = s.cancel(device: 0, at: TimeStamp(milliseconds: 1115))
        #expect(events.contains(.popped(bubble: b.id, points: 20)), "\(events)")
    }
}
