import Testing
@testable import KioskCore
import KioskTestSupport

func tap(_ p: Vector2, at ms: Double = 0) -> Gesture {
    Gesture(kind: .tap, time: TimeStamp(milliseconds: ms), device: 0, slot: 0, position: p, start: p, count: 1)
}

func swipe(from p: Vector2, angle: Double, length: Double = 100, at ms: Double = 0) -> Gesture {
    let end = p + Angle.unitVector(degrees: angle) * length
    return Gesture(kind: .swipe, time: TimeStamp(milliseconds: ms), device: 0, slot: 0, position: end, start: p,
                   velocity: Angle.unitVector(degrees: angle) * 1000)
}

func dragGesture(_ kind: Gesture.Kind, from start: Vector2, to p: Vector2, at ms: Double = 0,
                 device: Int = 0, slot: Int = 0) -> Gesture {
    Gesture(kind: kind, time: TimeStamp(milliseconds: ms), device: device, slot: slot, position: p, start: start)
}

/// Picks up what lies at `from`, carries it to `to` and lets go, as one finger's drag gestures.
@discardableResult
func carry(_ round: inout Round, from: Vector2, to: Vector2, at ms: Double = 0, slot: Int = 0) -> [GameEvent] {
    var events = round.handle(dragGesture(.dragStart, from: from, to: from + (to - from) * 0.1, at: ms, slot: slot))
    events += round.handle(dragGesture(.dragMove, from: from, to: from + (to - from) * 0.6, at: ms + 100, slot: slot))
    events += round.handle(dragGesture(.dragEnd, from: from, to: to, at: ms + 200, slot: slot))
    return events
}

@Suite struct LayoutTests {
    @Test func sameSeedSameBubbles() {
        #expect(makeRound(seed: 42).bubbles == makeRound(seed: 42).bubbles)
        #expect(makeRound(seed: 42).bubbles != makeRound(seed: 43).bubbles)
    }

    @Test func layoutIsPinnedAcrossMachines() {
        // The generator and the trigonometry are the project's own: these numbers must not drift.
        let b = makeRound(seed: 1).bubbles
        #expect(b.count == 10)
        #expect(b[0].kind == .tap(required: 2))
        #expect(abs(b[0].center.x - 865.23) < 0.01 && abs(b[0].center.y - 205.06) < 0.01)
        #expect(b[1].kind == .swipe(angleDeg: 133))
        var g = SeededGenerator(seed: 1)
        #expect(g.next() == 0xb3f2_af6d_0fc7_10c5)
    }

    @Test(arguments: [PixelSize(width: 1280, height: 800), PixelSize(width: 800, height: 480),
                      PixelSize(width: 1080, height: 1920), PixelSize(width: 3840, height: 2160)])
    func bubblesFitAndDoNotOverlap(size: PixelSize) {
        let settings = Settings()
        for seed in UInt64(0)..<40 {
            let round = makeRound(seed: seed, size: size, settings: settings)
            let area = round.field.area
            #expect(round.bubbles.count == 10, "seed \(seed) at \(size)")
            for (i, b) in round.bubbles.enumerated() {
                #expect(b.center.x - b.radius >= area.x && b.center.x + b.radius <= area.maxX)
                #expect(b.center.y - b.radius >= area.y && b.center.y + b.radius <= area.maxY)
                #expect(b.center.y - b.radius >= settings.game.hudHeightMM * 4, "below the HUD bar")
                #expect(b.diameter >= 18 * 4 * 0.999 && b.diameter <= 30 * 4 * 1.001)
                for other in round.bubbles[(i + 1)...] {
                    #expect(b.center.distance(to: other.center) >= b.radius + other.radius)
                }
                switch b.kind {
                case .tap(let n): #expect((1...3).contains(n) && b.tapsLeft == n)
                case .swipe(let a): #expect(a > -180 && a <= 180 && a == a.rounded())
                case .drag: #expect(b.tapsLeft == 0)
                }
            }
        }
    }

    @Test func bothKindsAppear() {
        let kinds = (UInt64(0)..<10).flatMap { makeRound(seed: $0).bubbles.map(\.kindName) }
        #expect(kinds.contains("tap") && kinds.contains("swipe"))
        let taps = Set((UInt64(0)..<10).flatMap { makeRound(seed: $0).bubbles.compactMap { b -> Int? in
            if case .tap(let n) = b.kind { return n }
            return nil
        } })
        #expect(taps == [1, 2, 3])
    }

    @Test func crowdedScreenPlacesWhatFitsAndStops() {
        var settings = Settings()
        settings.game.bubbles = 200
        let round = makeRound(size: PixelSize(width: 400, height: 300), settings: settings)
        #expect(round.bubbles.count > 0 && round.bubbles.count < 200)
    }
}

@Suite struct RuleTests {
    func firstBubble(_ round: Round, tap wanted: Bool) -> Bubble? {
        round.bubbles.first { ($0.kindName == "tap") == wanted }
    }

    @Test func tapBubblePopsAfterItsCount() throws {
        var round = makeRound()
        let b = try #require(round.bubbles.first { if case .tap(3) = $0.kind { return true } else { return false } }
            ?? round.bubbles.first { $0.kindName == "tap" })
        let needed = b.tapsLeft
        for i in 1..<needed {
            #expect(round.handle(tap(b.center)) == [.tapped(bubble: b.id, tapsLeft: needed - i)])
        }
        #expect(round.handle(tap(b.center)) == [.popped(bubble: b.id, points: 10 * needed)])
        #expect(round.score == 10 * needed)
        #expect(round.bubbles[b.id].isPopped)
        // A popped bubble is gone: tapping there again misses.
        #expect(round.handle(tap(b.center)) == [.missed(at: b.center)])
    }

    @Test func hitMarginHelpsFingers() throws {
        var round = makeRound()
        let b = try #require(firstBubble(round, tap: true))
        let justOutside = b.center + Vector2(b.radius + 2 * 4, 0)   // 2 mm outside, margin is 3 mm
        let farOutside = b.center + Vector2(b.radius + 4 * 4, 0)    // 4 mm outside
        #expect(round.bubble(at: justOutside) == b.id)
        #expect(round.bubble(at: farOutside) != b.id)
        _ = round.handle(tap(justOutside))
        #expect(round.bubbles[b.id].tapsLeft == b.tapsLeft - 1)
    }

    @Test func swipeWithinToleranceOfTheArrowPops() throws {
        let round = makeRound()
        let b = try #require(round.bubbles.first { $0.swipeAngle != nil }, "the seed's round has a swipe bubble")
        let angle = try #require(b.swipeAngle)
        for (offset, pops) in [(0.0, true), (29.5, true), (-29.5, true), (30.5, false), (-31, false), (180, false)] {
            var r = round
            let events = r.handle(swipe(from: b.center, angle: angle + offset))
            #expect(r.bubbles[b.id].isPopped == pops, "offset \(offset)")
            #expect(events.first == (pops ? .popped(bubble: b.id, points: 20) : .wrongDirection(bubble: b.id)))
        }
    }

    @Test func swipeToleranceIsConfigurable() throws {
        var settings = Settings()
        settings.game.swipeToleranceDeg = 45
        var round = makeRound(settings: settings)
        let b = try #require(round.bubbles.first { $0.swipeAngle != nil }, "the seed's round has a swipe bubble")
        let angle = try #require(b.swipeAngle)
        _ = round.handle(swipe(from: b.center, angle: angle + 40))
        #expect(round.bubbles[b.id].isPopped)
    }

    @Test func swipeMustStartOnTheBubble() throws {
        var round = makeRound()
        let b = try #require(round.bubbles.first { $0.swipeAngle != nil }, "the seed's round has a swipe bubble")
        let angle = try #require(b.swipeAngle)
        // Ends on the bubble but starts well outside it.
        let start = b.center - Angle.unitVector(degrees: angle) * (b.radius + 60)
        _ = round.handle(swipe(from: start, angle: angle, length: b.radius + 60))
        #expect(!round.bubbles[b.id].isPopped)
    }

    @Test func tapsDoNotPopSwipeBubblesNorSwipesTapBubbles() throws {
        var round = makeRound()
        let s = try #require(firstBubble(round, tap: false))
        let t = try #require(firstBubble(round, tap: true))
        #expect(round.handle(tap(s.center)).isEmpty)
        #expect(round.handle(swipe(from: t.center, angle: 0)).isEmpty)
        #expect(round.popped == 0 && round.score == 0)
    }

    @Test func clearingTheRoundEndsItWithABonus() {
        var round = makeRound()
        var expected = 0
        for b in round.bubbles {
            switch b.kind {
            case .tap(let n):
                for _ in 0..<n { _ = round.handle(tap(b.center, at: 100)) }
                expected += 10 * n
            case .swipe(let a):
                _ = round.handle(swipe(from: b.center, angle: a, at: 100))
                expected += 20
            case .drag:
                carry(&round, from: b.center, to: round.goal!.center, at: 100)
                expected += 20
            }
        }
        #expect(round.isOver && round.remaining == 0 && round.popped == 10)
        #expect(round.score == expected + 50)
        #expect(round.clock(at: TimeStamp(milliseconds: 5000)) == .seconds(0.1))
        // Nothing changes after the end.
        #expect(round.handle(tap(Vector2(1, 1))).isEmpty)
    }

    @Test func missesCostWhatTheConfigSays() {
        var settings = Settings()
        settings.score.miss = -5
        var round = makeRound(settings: settings)
        _ = round.handle(tap(Vector2(2, 2)))
        #expect(round.score == 0, "the score never goes below zero")
        let b = round.bubbles.first { $0.kindName == "swipe" }!
        if case .swipe(let a) = b.kind { _ = round.handle(swipe(from: b.center, angle: a)) }
        _ = round.handle(tap(Vector2(2, 2)))
        #expect(round.score == 15)
    }
}

@Suite struct TimedModeTests {
    @Test func spawnsUntilTheCountdownEnds() {
        var settings = Settings()
        settings.timed.duration = .seconds(10)
        settings.timed.startBubbles = 3
        settings.timed.spawnInterval = .milliseconds(1000)
        settings.timed.maxBubbles = 6
        var round = makeRound(settings: settings, mode: .timed)
        #expect(round.bubbles.count == 3)
        #expect(round.nextDeadline == TimeStamp(milliseconds: 1000))
        let events = round.advance(to: TimeStamp(milliseconds: 2500))
        #expect(events == [.spawned(bubble: 3), .spawned(bubble: 4)])
        #expect(round.clock(at: TimeStamp(milliseconds: 2500)) == .seconds(7.5))
        // Capped at maxBubbles live bubbles.
        _ = round.advance(to: TimeStamp(milliseconds: 9000))
        #expect(round.remaining == 6)
        #expect(round.advance(to: TimeStamp(milliseconds: 10000)).last == .roundOver(score: 0))
        #expect(round.isOver && round.clock(at: TimeStamp(milliseconds: 20000)) == .seconds(0))
    }
}

@Suite struct AngleTests {
    @Test func atan2MatchesKnownValues() {
        #expect(abs(Angle.degrees(atan2: 1, 1) - 45) < 1e-9)
        #expect(abs(Angle.degrees(atan2: 1, -1) - 135) < 1e-9)
        #expect(abs(Angle.degrees(atan2: -1, -1) + 135) < 1e-9)
        #expect(abs(Angle.degrees(atan2: 1, 1.7320508075688772) - 30) < 1e-9)
        #expect(abs(Angle.degrees(atan2: -3, 0.2) + 86.18592516570965) < 1e-9)
    }

    @Test func differenceWrapsAround() {
        #expect(Angle.difference(170, -170) == 20)
        #expect(Angle.difference(-90, 270) == 0)
        #expect(Angle.difference(0, 180) == 180)
        #expect(Angle.normalized(-180) == 180)
    }

    @Test func unitVectorIsAccurate() {
        let u = Angle.unitVector(degrees: 30)
        #expect(abs(u.x - 0.8660254037844387) < 1e-12 && abs(u.y - 0.5) < 1e-12)
        let v = Angle.unitVector(degrees: -120)
        #expect(abs(v.x + 0.5) < 1e-12 && abs(v.y + 0.8660254037844387) < 1e-12)
    }
}
