import Testing
@testable import KioskCore

// Screen 1000x1000 px at 4 px/mm with default settings: tap slop and drag start 12 px,
// swipe at least 32 px and 80 px/s, long press 500 ms, multi-tap 300 ms / 64 px.

@Suite struct TapTests {
    @Test func quickTapIsOneTap() throws {
        var s = EvemuScript()
        s.stroke([(500, 500), (501, 500)], start: 0, stepMS: 40)
        let g = try s.gestures()
        #expect(g.kinds == [.tap])
        #expect(g[0].count == 1)
        #expect(g[0].position == Vector2(501, 500))
        #expect(g[0].time == TimeStamp(milliseconds: 80))
    }

    @Test func jitterWithinSlopIsStillATap() throws {
        var s = EvemuScript()
        s.stroke([(500, 500), (508, 495), (492, 506), (503, 498)], start: 0, stepMS: 20)
        #expect(try s.gestures().kinds == [.tap])
    }

    @Test func slowTapBeyondTapMaxIsALongPressNotATap() throws {
        var s = EvemuScript()
        s.stroke([(500, 500), (500, 501)], start: 0, stepMS: 600)
        let g = try s.gestures()
        #expect(g.kinds == [.longPress])
        #expect(g[0].time == TimeStamp(milliseconds: 500))
    }

    @Test func tapMaxShorterThanLongPressLeavesAGapWithNeither() throws {
        var settings = GestureSettings()
        settings.tapMax = .milliseconds(200)
        var s = EvemuScript()
        s.stroke([(500, 500)], start: 0, stepMS: 300)
        #expect(try s.gestures(settings).isEmpty)
    }

    @Test func consecutiveTapsCountUpAtOnce() throws {
        var s = EvemuScript()
        s.stroke([(500, 500)], start: 0, stepMS: 50)
        s.stroke([(505, 502)], start: 200, stepMS: 50, id: 2)
        s.stroke([(498, 497)], start: 400, stepMS: 50, id: 3)
        // Too late for the fourth to continue the series.
        s.stroke([(500, 500)], start: 1000, stepMS: 50, id: 4)
        let g = try s.gestures()
        #expect(g.kinds == [.tap, .tap, .tap, .tap])
        #expect(g.map(\.count) == [1, 2, 3, 1])
        // Delivered when each finger lifts, not held back for a possible next tap.
        #expect(g.map(\.time) == [50, 250, 450, 1050].map { TimeStamp(milliseconds: $0) })
    }

    @Test func tapsFarApartDoNotCountTogether() throws {
        var s = EvemuScript()
        s.stroke([(100, 100)], start: 0, stepMS: 50)
        s.stroke([(600, 600)], start: 150, stepMS: 50, id: 2)
        #expect(try s.gestures().map(\.count) == [1, 1])
    }
}

@Suite struct DragTests {
    @Test func moveBelowDragStartIsATap() throws {
        var s = EvemuScript()
        s.stroke(EvemuScript.line(from: (500, 500), to: (511, 500), steps: 5), start: 0)
        #expect(try s.gestures().kinds == [.tap])
    }

    @Test func moveAboveDragStartDragsAndEnds() throws {
        var s = EvemuScript()
        // A slow drag that stops before lifting: no swipe.
        var points = EvemuScript.line(from: (500, 500), to: (600, 500), steps: 20)
        points += Array(repeating: (600, 500), count: 5)
        s.stroke(points, start: 0, stepMS: 30)
        let g = try s.gestures()
        #expect(g.kinds == [.dragStart, .dragEnd])
        let start = try #require(g.first)
        #expect(start.start == Vector2(500, 500))
        #expect(start.position.x > 512 && start.position.x <= 520)
        #expect(g.filter { $0.kind == .dragMove }.count >= 15)
    }

    @Test func dragThatPausesBeforeLiftIsNoSwipe() throws {
        var s = EvemuScript()
        s.stroke(EvemuScript.line(from: (200, 500), to: (400, 500), steps: 10), start: 0, stepMS: 10)
        // The finger rests 200 ms at the end before lifting.
        var t = EvemuScript()
        t.put(0, slot: 0, id: 1, 200, 500)
        t.syn(0)
        for (i, p) in EvemuScript.line(from: (200, 500), to: (400, 500), steps: 10).enumerated().dropFirst() {
            t.put(Double(i) * 10, slot: 0, p.0, p.1)
            t.syn(Double(i) * 10)
        }
        t.lift(300, slot: 0)
        t.syn(300)
        #expect(try t.gestures().kinds == [.dragStart, .dragEnd])
        // The same stroke lifted while moving is a swipe.
        #expect(try s.gestures().kinds == [.dragStart, .dragEnd, .swipe])
    }

    @Test func longPressThenMoveStillDrags() throws {
        var s = EvemuScript()
        var points = Array(repeating: (500, 500), count: 61)  // 600 ms still
        points += EvemuScript.line(from: (500, 500), to: (560, 500), steps: 6).dropFirst()
        points += Array(repeating: (560, 500), count: 12)  // rests 120 ms before lifting: no swipe
        s.stroke(points, start: 0, stepMS: 10)
        let g = try s.gestures()
        #expect(g.kinds == [.longPress, .dragStart, .dragEnd], "\(g)")
    }
}

@Suite struct SwipeTests {
    /// A fast straight swipe of 150 px in 100 ms at `angle`.
    static func swipe(angle: Double, from c: (Int, Int) = (500, 500)) -> EvemuScript {
        let u = Angle.unitVector(degrees: angle)
        let end = (c.0 + Int((u.x * 150).rounded()), c.1 + Int((u.y * 150).rounded()))
        var s = EvemuScript()
        s.stroke(EvemuScript.line(from: c, to: end, steps: 10), start: 0, stepMS: 10)
        return s
    }

    @Test(arguments: [0.0, 45, 90, 135, 180, -135, -90, -45, 30, -150])
    func swipeInEveryDirection(angle: Double) throws {
        let g = try Self.swipe(angle: angle).gestures()
        #expect(g.kinds == [.dragStart, .dragEnd, .swipe])
        let swipe = try #require(g.last)
        #expect(Angle.difference(swipe.angleDegrees, angle) < 1)
        #expect(abs(swipe.distance - 150) < 2)
        // 150 px in 100 ms: about 1500 px/s from the fit over the last 100 ms.
        #expect(abs(swipe.speed - 1500) < 100)
        #expect(swipe.start == Vector2(500, 500))
    }

    @Test func angleConventionIsScreenCoordinates() throws {
        // Down the screen is +90 degrees (y grows downwards); left is 180, never -180.
        #expect(try Self.swipe(angle: 90).gestures().last?.angleDegrees ?? 0 > 89)
        #expect(Angle.degrees(atan2: 0, -1) == 180)
        #expect(Angle.degrees(atan2: -1, 0) == -90)
    }

    @Test func shortFlickIsNoSwipe() throws {
        var s = EvemuScript()
        s.stroke(EvemuScript.line(from: (500, 500), to: (525, 500), steps: 3), start: 0, stepMS: 10)
        #expect(try s.gestures().kinds == [.dragStart, .dragEnd])
    }

    @Test func slowDragIsNoSwipe() throws {
        // 100 px over 2 s: 50 px/s, below the 80 px/s minimum.
        var s = EvemuScript()
        s.stroke(EvemuScript.line(from: (500, 500), to: (600, 500), steps: 100), start: 0, stepMS: 20)
        #expect(try s.gestures().kinds == [.dragStart, .dragEnd])
    }

    @Test func thresholdsFollowPixelDensity() throws {
        // The same 40 px flick is a swipe at 4 px/mm (10 mm) but too short at 8 px/mm (5 mm).
        var s = EvemuScript()
        s.stroke(EvemuScript.line(from: (500, 500), to: (540, 500), steps: 4), start: 0, stepMS: 10)
        #expect(try s.gestures(pxPerMM: 4).kinds == [.dragStart, .dragEnd, .swipe])
        #expect(try s.gestures(pxPerMM: 8).kinds == [.dragStart, .dragEnd])
    }
}

@Suite struct MultiFingerTests {
    @Test func twoFingersTapAndSwipeAtOnce() throws {
        var s = EvemuScript()
        let swipe = EvemuScript.line(from: (700, 500), to: (700, 350), steps: 10)
        for (i, p) in swipe.enumerated() {
            let t = Double(i) * 10
            s.put(t, slot: 1, id: i == 0 ? 21 : nil, p.0, p.1)
            if i == 0 { s.put(t, slot: 0, id: 20, 200, 200) }
            if i == 5 { s.lift(t, slot: 0) }
            s.syn(t)
        }
        s.lift(110, slot: 1)
        s.syn(110)
        let g = try s.gestures()
        #expect(g.kinds == [.dragStart, .tap, .dragEnd, .swipe])
        #expect(g.first { $0.kind == .tap }?.slot == 0)
        let sw = try #require(g.last)
        #expect(sw.slot == 1)
        #expect(Angle.difference(sw.angleDegrees, -90) < 1)
    }

    @Test func fiveFingersTapTogether() throws {
        var s = EvemuScript()
        for slot in 0..<5 { s.put(0, slot: slot, id: 100 + slot, 100 + slot * 150, 400) }
        s.syn(0)
        for slot in 0..<5 { s.lift(60, slot: slot) }
        s.syn(60)
        let g = try s.gestures()
        #expect(g.kinds == Array(repeating: .tap, count: 5))
        #expect(g.map(\.slot) == [0, 1, 2, 3, 4])
        #expect(g.map(\.count) == [1, 1, 1, 1, 1])
        #expect(g.map(\.position.x) == [100, 250, 400, 550, 700])
    }

    @Test func newTrackingIDInSameSlotIsANewContact() throws {
        var s = EvemuScript()
        s.put(0, slot: 0, id: 1, 300, 300)
        s.syn(0)
        // The finger lifted and another went down elsewhere between two reports.
        s.put(50, slot: 0, id: 2, 800, 800)
        s.syn(50)
        s.lift(100, slot: 0)
        s.syn(100)
        let g = try s.gestures()
        #expect(g.kinds == [.tap, .tap])
        #expect(g.map(\.position) == [Vector2(300, 300), Vector2(800, 800)])
    }
}

@Suite struct OtherProtocolTests {
    @Test func protocolASwipe() throws {
        var s = EvemuScript(.protocolA)
        s.stroke(EvemuScript.line(from: (500, 500), to: (350, 350), steps: 10), start: 0)
        let g = try s.gestures()
        #expect(g.kinds == [.dragStart, .dragEnd, .swipe])
        #expect(Angle.difference(g.last?.angleDegrees ?? 0, -135) < 1)
    }

    @Test func singleTouchTapAndSwipe() throws {
        var s = EvemuScript(.singleTouch)
        s.stroke([(400, 400)], start: 0, stepMS: 50)
        s.stroke(EvemuScript.line(from: (500, 500), to: (500, 700), steps: 10), start: 500)
        let g = try s.gestures()
        #expect(g.kinds == [.tap, .dragStart, .dragEnd, .swipe])
        #expect(Angle.difference(g.last?.angleDegrees ?? 0, 90) < 1)
    }

    @Test func synDroppedCancelsTheContact() throws {
        var s = EvemuScript()
        s.put(0, slot: 0, id: 1, 500, 500)
        s.syn(0)
        s.put(10, slot: 0, 560, 500)
        s.syn(10)
        s.event(20, 0, 3, 0)  // SYN_DROPPED
        s.put(30, slot: 0, 620, 500)
        s.syn(30)
        s.put(40, slot: 0, 680, 500)
        s.syn(40)
        s.lift(50, slot: 0)
        s.syn(50)
        let g = try s.gestures()
        // The drag is cancelled; the rest of that contact is ignored, so no swipe from stale data.
        #expect(g.kinds == [.dragStart, .cancel])
        // A new contact afterwards works normally.
        s.stroke([(100, 100)], start: 100, stepMS: 40, id: 9)
        #expect(try s.gestures().kinds == [.dragStart, .cancel, .tap])
    }
}

@Suite struct VelocityTrackerTests {
    @Test func leastSquaresIgnoresJitterOfTheLastTwoPoints() {
        var v = VelocityTracker(window: .milliseconds(100))
        // 1000 px/s along x with ±2 px jitter; the last step alone would read 1400 px/s.
        let xs: [Double] = [0, 12, 18, 32, 38, 52, 58, 72, 78, 92, 98, 112]
        for (i, x) in xs.enumerated() { v.add(Vector2(x, 0), at: TimeStamp(milliseconds: Double(i) * 10)) }
        let vel = v.velocity(at: TimeStamp(milliseconds: 110))
        #expect(abs(vel.x - 1000) < 60)
        #expect(abs(vel.y) < 1e-9)
    }

    @Test func stoppedFingerHasNoVelocity() {
        var v = VelocityTracker(window: .milliseconds(100))
        v.add(Vector2(0, 0), at: TimeStamp(milliseconds: 0))
        v.add(Vector2(50, 0), at: TimeStamp(milliseconds: 10))
        #expect(v.velocity(at: TimeStamp(milliseconds: 100)) == .zero)
    }
}

@Suite struct EdgeSwipeTests {
    /// A fast swipe (20 px per 10 ms frame, 2000 px/s) from `start` straight to `edge`, held
    /// there `holdMS` before lifting; `frames` when the panel keeps reporting the held contact.
    static func swipeIntoEdge(from start: (Int, Int), to edge: (Int, Int), holdMS: Double,
                              frames: Bool) -> EvemuScript {
        let dx = Double(edge.0 - start.0), dy = Double(edge.1 - start.1)
        let steps = Int(((dx * dx + dy * dy).squareRoot() / 20).rounded())
        var s = EvemuScript()
        var t = 0.0
        for (i, p) in EvemuScript.line(from: start, to: edge, steps: steps).enumerated() {
            s.put(t, slot: 0, id: i == 0 ? 1 : nil, p.0, p.1)
            s.syn(t)
            t += 10
        }
        let lift = t - 10 + holdMS
        if frames {
            // The panel repeats the pinned position (pressure or touch-size changes do this).
            while t < lift {
                s.event(t, 3, 0x3a, 0)
                s.syn(t)
                t += 10
            }
        }
        s.lift(lift, slot: 0)
        s.syn(lift)
        return s
    }

    @Test(arguments: [(60.0, false), (100.0, false), (60.0, true), (100.0, true)])
    func swipeHeldAtTheRightEdgeIsStillASwipe(holdMS: Double, frames: Bool) throws {
        let g = try Self.swipeIntoEdge(from: (700, 500), to: (999, 500), holdMS: holdMS, frames: frames).gestures()
        #expect(g.kinds == [.dragStart, .dragEnd, .swipe], "\(g.kinds)")
        let swipe = try #require(g.last)
        #expect(Angle.difference(swipe.angleDegrees, 0) < 1)
        // The velocity is the one before the finger reached the edge, not the rest after.
        #expect(abs(swipe.speed - 2000) < 150, "\(swipe.speed)")
    }

    @Test(arguments: [(500, 0), (0, 500), (500, 999)])
    func everyEdgeCounts(edge: (Int, Int)) throws {
        let g = try Self.swipeIntoEdge(from: (500, 500), to: edge, holdMS: 100, frames: true).gestures()
        #expect(g.kinds == [.dragStart, .dragEnd, .swipe], "\(edge)")
        #expect(abs((g.last?.speed ?? 0) - 2000) < 150)
    }

    @Test(arguments: [false, true])
    func swipeThatRestsShortOfTheEdgeIsNoSwipe(frames: Bool) throws {
        // Mid-screen, and 20 px (5 mm) before the edge: both deliberate rests of 100 ms.
        for end in [(500, 500), (979, 500)] {
            let g = try Self.swipeIntoEdge(from: (300, 500), to: end, holdMS: 100, frames: frames).gestures()
            #expect(g.kinds == [.dragStart, .dragEnd], "\(end)")
        }
    }

    @Test func contactMovingAlongTheEdgeIsNotPinned() throws {
        // Down the right edge at 2000 px/s and lifted while moving: a swipe downwards.
        let g = try Self.swipeIntoEdge(from: (999, 300), to: (999, 600), holdMS: 10, frames: false).gestures()
        #expect(g.kinds == [.dragStart, .dragEnd, .swipe])
        #expect(abs((g.last?.speed ?? 0) - 2000) < 150)
    }
}

@Suite struct BounceTests {
    /// A press at (500, 500) from 0 to 100 ms whose contact drops out from 40 to 55 ms (15 ms),
    /// coming back 1 px away with a new tracking id.
    static func bouncedPress() -> EvemuScript {
        var s = EvemuScript()
        s.put(0, slot: 0, id: 1, 500, 500)
        s.syn(0)
        s.lift(40, slot: 0)
        s.syn(40)
        s.put(55, slot: 0, id: 2, 501, 500)
        s.syn(55)
        s.lift(100, slot: 0)
        s.syn(100)
        return s
    }

    @Test func liftOf15MSInsideOnePressIsOneTap() throws {
        let g = try Self.bouncedPress().gestures()
        #expect(g.kinds == [.tap])
        #expect(g.map(\.count) == [1])
        // Delivered at the first lift, not held back.
        #expect(g.first?.time == TimeStamp(milliseconds: 40))
    }

    @Test func bounceOffRestoresTwoTaps() throws {
        var settings = GestureSettings()
        settings.bounce = .milliseconds(0)
        let g = try Self.bouncedPress().gestures(settings)
        #expect(g.kinds == [.tap, .tap])
        #expect(g.map(\.count) == [1, 2])
    }

    @Test func tapsAHumanMakesStayTwoTaps() throws {
        var s = EvemuScript()
        s.stroke([(500, 500)], start: 0, stepMS: 50)
        s.stroke([(502, 501)], start: 170, stepMS: 50, id: 2)  // 120 ms after the first lift
        let g = try s.gestures()
        #expect(g.kinds == [.tap, .tap])
        #expect(g.map(\.count) == [1, 2])
        #expect(g.map(\.time) == [50, 220].map { TimeStamp(milliseconds: $0) })
    }

    @Test func reTouchElsewhereIsAnotherFinger() throws {
        var s = EvemuScript()
        s.stroke([(500, 500)], start: 0, stepMS: 40)
        s.stroke([(530, 500)], start: 50, stepMS: 40, id: 2)  // 10 ms later, 30 px away
        #expect(try s.gestures().map(\.count) == [1, 2])
    }

    @Test func reTouchAfterTheBounceTimeIsANewTap() throws {
        var settings = GestureSettings()
        settings.bounce = .milliseconds(10)
        #expect(try Self.bouncedPress().gestures(settings).map(\.count) == [1, 2])
    }

    @Test func bounceAfterALongPressGivesNoTap() throws {
        var s = EvemuScript()
        s.put(0, slot: 0, id: 1, 500, 500)
        s.syn(0)
        s.lift(600, slot: 0)
        s.syn(600)
        s.put(612, slot: 0, id: 2, 500, 501)
        s.syn(612)
        s.lift(650, slot: 0)
        s.syn(650)
        #expect(try s.gestures().kinds == [.longPress])
    }

    /// A swipe of 300 px at 1500 px/s whose contact drops out for 15 ms halfway.
    static func bouncedSwipe() -> EvemuScript {
        var s = EvemuScript()
        let points = EvemuScript.line(from: (200, 500), to: (500, 500), steps: 20)  // 15 px a frame
        for (i, p) in points.enumerated() {
            let t = Double(i) * 10
            if i == 10 {
                // Gone from 95 ms; back at 110 ms, 30 px on, where the moving finger is by then.
                s.lift(95, slot: 0)
                s.syn(95)
                continue
            }
            s.put(t, slot: 0, id: i == 0 ? 1 : i == 11 ? 2 : nil, p.0, p.1)
            s.syn(t)
        }
        s.lift(210, slot: 0)
        s.syn(210)
        return s
    }

    @Test func bounceInsideASwipeKeepsOneDrag() throws {
        let g = try Self.bouncedSwipe().gestures()
        #expect(g.kinds == [.dragStart, .dragEnd, .swipe], "\(g.kinds)")
        let swipe = try #require(g.last)
        #expect(swipe.start == Vector2(200, 500) && swipe.position == Vector2(500, 500))
        #expect(abs(swipe.speed - 1500) < 150)
        // The drag went on moving through the bounce.
        #expect(g.filter { $0.kind == .dragMove }.count >= 17)
    }

    @Test func withoutBounceMergingTheSwipeFallsApart() throws {
        var settings = GestureSettings()
        settings.bounce = .milliseconds(0)
        let kinds = try Self.bouncedSwipe().gestures(settings).kinds
        #expect(kinds.filter { $0 == .dragStart }.count == 2, "\(kinds)")
    }

    @Test func dragEndWaitsOutTheBounceTime() throws {
        let g = try SwipeTests.swipe(angle: 0).gestures()
        // Lifted at 110 ms; final 25 ms later, when no bounce came.
        #expect(g.filter { $0.kind == .dragEnd || $0.kind == .swipe }.map(\.time)
            == [135, 135].map { TimeStamp(milliseconds: $0) })
    }

    @Test func recordingThatEndsAtALiftStillEndsTheDragButFiresNoLaterLongPress() throws {
        var s = EvemuScript()
        s.put(0, slot: 1, id: 7, 800, 800)  // held until the recording ends at 490 ms
        s.syn(0)
        for (i, p) in EvemuScript.line(from: (200, 500), to: (350, 500), steps: 10).enumerated() {
            s.put(390 + Double(i) * 10, slot: 0, id: i == 0 ? 1 : nil, p.0, p.1)
            s.syn(390 + Double(i) * 10)
        }
        s.lift(490, slot: 0)
        s.syn(490)
        // The swipe is final at 515 ms; the held finger's long press (due at 500) never came.
        let g = try s.gestures()
        #expect(g.kinds == [.dragStart, .dragEnd, .swipe], "\(g.kinds)")
        #expect(g.last?.time == TimeStamp(milliseconds: 515))
    }

    @Test func pendingDragEndIsADeadline() {
        var r = GestureRecognizer(settings: GestureSettings(), pxPerMM: 4, screen: EvemuScript.screen)
        for i in 0...10 {
            _ = r.process(TouchFrame(time: TimeStamp(milliseconds: Double(i) * 10),
                                     contacts: [TouchPoint(slot: 0, trackingID: 1, position: Vector2(200 + Double(i) * 15, 500))]))
        }
        #expect(r.process(TouchFrame(time: TimeStamp(milliseconds: 110), contacts: [])).isEmpty)
        #expect(r.nextDeadline == TimeStamp(milliseconds: 135))
        var late: [Gesture] = []
        r.advance(to: TimeStamp(milliseconds: 134)) { late.append($0) }
        #expect(late.isEmpty)
        r.advance(to: TimeStamp(milliseconds: 135)) { late.append($0) }
        #expect(late.map(\.kind) == [.dragEnd, .swipe])
        #expect(r.nextDeadline == nil)
    }
}
