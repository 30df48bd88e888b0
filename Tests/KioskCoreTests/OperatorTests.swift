import Testing
@testable import KioskCore
import KioskTestSupport

/// Plays frames through what the runtime puts between a touchscreen and the game:
/// `OperatorInput` (stuck touches, operator gestures), then the session, on virtual time,
/// with every deadline of either handled when it comes due.
struct OperatorPipeline {
    var input: OperatorInput
    var session: KioskSession
    var stuck: [StuckTouch] = []
    var gestures: [OperatorGesture] = []
    var events: [(time: TimeStamp, event: GameEvent)] = []
    /// The frames the game saw.
    var gameFrames: [TouchFrame] = []

    init(session: KioskSession) {
        self.session = session
        input = OperatorInput(settings: session.game.settings, pxPerMM: session.game.field.pxPerMM,
                              screen: session.game.field.size)
    }

    mutating func apply(_ out: OperatorInput.Output, at time: TimeStamp) {
        for c in out.cancelled { note(session.cancel(c, at: time), at: time) }
        stuck += out.stuck
        gestures += out.gestures
    }

    mutating func note(_ events: [GameEvent], at time: TimeStamp) {
        self.events += events.map { (time, $0) }
    }

    /// Everything due up to `time`, in order.
    mutating func advance(to time: TimeStamp) {
        while let next = [input.nextDeadline, session.nextDeadline].compactMap({ $0 }).min(), next <= time {
            apply(input.advance(to: next), at: next)
            note(session.advance(to: next), at: next)
        }
        apply(input.advance(to: time), at: time)
        note(session.advance(to: time), at: time)
    }

    mutating func deliver(_ frame: TouchFrame) {
        advance(to: frame.time)
        let out = input.process(frame)
        apply(out, at: frame.time)
        gameFrames.append(out.frame!)
        note(session.process(out.frame!), at: frame.time)
    }

    /// Replays a fixture through the real parser and decoder, then `extraMS` more.
    mutating func play(fixture name: String, extraMS: Double = 1000) throws {
        let recording = try EvemuRecording.parse(Fixture.text(name), file: name)
        var decoder = TouchDecoder(device: recording.device, screen: session.game.field.size)
        // The builder's times start at 0 with the recording: the fixtures' times as written.
        for event in recording.events {
            for frame in decoder.feed(event) { deliver(frame) }
        }
        advance(to: ((recording.events.last?.time ?? .zero) + .milliseconds(extraMS)))
    }
}

private func frame(_ ms: Double, _ points: [(slot: Int, id: Int, x: Double, y: Double)], device: Int = 0) -> TouchFrame {
    TouchFrame(time: TimeStamp(milliseconds: ms), device: device,
               contacts: points.map { TouchPoint(slot: $0.slot, trackingID: $0.id, position: Vector2($0.x, $0.y)) })
}

@Suite struct StuckTouchFilterTests {
    let filter = StuckTouchFilter(after: .seconds(20), radius: 16)

    @Test func aStillContactIsStuckOnTimeReportedOnceAndDroppedUntilItLifts() {
        var f = filter
        #expect(f.filter(frame(0, [(0, 7, 100, 100)])).frame.contacts.count == 1)
        #expect(f.nextDeadline == TimeStamp(milliseconds: 20_000))
        #expect(f.advance(to: TimeStamp(milliseconds: 19_999)).isEmpty)
        let stuck = f.advance(to: TimeStamp(milliseconds: 25_000))
        #expect(stuck.count == 1)
        #expect(stuck.first?.contact == ContactRef(device: 0, slot: 0, trackingID: 7))
        #expect(stuck.first?.time == TimeStamp(milliseconds: 20_000) && stuck.first?.position == Vector2(100, 100))
        #expect(f.advance(to: TimeStamp(milliseconds: 60_000)).isEmpty, "reported once")
        #expect(f.nextDeadline == nil, "nothing else to wait for")
        // It wobbles and even moves away: still dropped, since it never lifted.
        let later = f.filter(frame(26_000, [(0, 7, 300, 100), (1, 8, 500, 500)]))
        #expect(later.frame.contacts.map(\.trackingID) == [8])
        #expect(later.stuck.isEmpty)
        #expect(f.stuckTouches.first?.position == Vector2(300, 100), "the touch-test screen sees where it is")
        // Lifted, and a new finger in the same slot plays again.
        _ = f.filter(frame(27_000, [(1, 8, 500, 500)]))
        #expect(f.stuckTouches.isEmpty)
        #expect(f.filter(frame(28_000, [(0, 9, 100, 100), (1, 8, 500, 500)])).frame.contacts.count == 2)
    }

    @Test func movingBeyondTheRadiusStartsTheWaitAgain() {
        var f = filter
        _ = f.filter(frame(0, [(0, 1, 100, 100)]))
        _ = f.filter(frame(10_000, [(0, 1, 110, 100)]))  // 10 px: within 16
        #expect(f.nextDeadline == TimeStamp(milliseconds: 20_000))
        _ = f.filter(frame(15_000, [(0, 1, 120, 100)]))  // 20 px from where it rested
        #expect(f.nextDeadline == TimeStamp(milliseconds: 35_000))
        #expect(f.filter(frame(30_000, [(0, 1, 121, 100)])).stuck.isEmpty)
        // A frame past the deadline declares it first, then drops it from that very frame.
        let out = f.filter(frame(36_000, [(0, 1, 122, 100)]))
        #expect(out.stuck.map(\.time) == [TimeStamp(milliseconds: 35_000)])
        #expect(out.frame.contacts.isEmpty)
    }

    @Test func zeroTurnsItOffAndDevicesAreApart() {
        var off = StuckTouchFilter(after: .zero, radius: 16)
        _ = off.filter(frame(0, [(0, 1, 100, 100)]))
        #expect(off.nextDeadline == nil && off.advance(to: TimeStamp(milliseconds: 999_999)).isEmpty)
        var f = filter
        _ = f.filter(frame(0, [(0, 1, 100, 100)], device: 0))
        _ = f.filter(frame(0, [(0, 1, 100, 100)], device: 1))
        _ = f.filter(frame(5_000, [], device: 1))  // device 1's finger lifted; device 0's did not
        #expect(f.advance(to: TimeStamp(milliseconds: 20_000)).map(\.contact.device) == [0])
    }
}

@Suite struct OperatorGestureTests {
    static let screen = PixelSize(width: 1280, height: 800)

    func detector(_ configure: (inout OperatorSettings) -> Void = { _ in }) -> OperatorGestureDetector {
        var s = OperatorSettings()
        configure(&s)
        return OperatorGestureDetector(s, pxPerMM: 4, screen: Self.screen)
    }

    func corner(_ c: ScreenCorner) -> (Double, Double) {
        [(40.0, 40.0), (1240.0, 40.0), (1240.0, 760.0), (40.0, 760.0)][c.rawValue]
    }

    /// Long presses in `corners`, one after another: each held `holdMS`, `gapMS` apart.
    func presses(_ d: inout OperatorGestureDetector, _ corners: [ScreenCorner], holdMS: Double = 2200,
                 gapMS: Double = 300, from start: Double = 0) -> [OperatorGesture] {
        var fired: [OperatorGesture] = []
        var t = start
        for (i, c) in corners.enumerated() {
            let (x, y) = corner(c)
            fired += d.process(frame(t, [(0, 100 + i, x, y)]))
            fired += d.process(frame(t + holdMS, []))
            t += holdMS + gapMS
        }
        fired += d.advance(to: TimeStamp(milliseconds: t + 10_000))
        return fired
    }

    @Test func cornersAreSquaresOfCornerMM() {
        let d = detector()
        #expect(d.corner(of: Vector2(99, 99)) == .topLeft)
        #expect(d.corner(of: Vector2(100, 50)) == nil, "25 mm at 4 px/mm is 100 px")
        #expect(d.corner(of: Vector2(1180, 50)) == .topRight)
        #expect(d.corner(of: Vector2(1279, 799)) == .bottomRight)
        #expect(d.corner(of: Vector2(5, 790)) == .bottomLeft)
        #expect(d.corner(of: Vector2(640, 400)) == nil)
    }

    @Test func fourCornersInTurnResetInEitherDirectionFromAnyCorner() {
        var cw = detector()
        let fired = presses(&cw, [.topLeft, .topRight, .bottomRight, .bottomLeft])
        #expect(fired.map(\.action) == [.reset])
        #expect(fired.first?.kind == .fourCorners)
        // The fourth hold completes at 3 * 2500 + 2000 ms.
        #expect(fired.first?.time == TimeStamp(milliseconds: 9500))
        var ccw = detector()
        #expect(presses(&ccw, [.bottomRight, .topRight, .topLeft, .bottomLeft]).map(\.action) == [.reset])
        // A false start before the round does not spoil it.
        var late = detector()
        #expect(presses(&late, [.topLeft, .bottomRight, .topRight, .topLeft, .bottomLeft, .bottomRight]).map(\.action) == [.reset])
    }

    @Test func whatIsNoReset() {
        var diagonal = detector()
        #expect(presses(&diagonal, [.topLeft, .bottomRight, .topRight, .bottomLeft]).isEmpty, "not going round")
        var back = detector()
        #expect(presses(&back, [.topLeft, .topRight, .topLeft, .topRight]).isEmpty, "back and forth")
        var three = detector()
        #expect(presses(&three, [.topLeft, .topRight, .bottomRight]).isEmpty)
        var short = detector()
        #expect(presses(&short, [.topLeft, .topRight, .bottomRight, .bottomLeft], holdMS: 1900).isEmpty, "taps, not holds")
        var slow = detector()
        #expect(presses(&slow, [.topLeft, .topRight, .bottomRight, .bottomLeft], gapMS: 800).isEmpty,
                "3 * 3000 + 2000 ms is past reset_within_s")
        var roomy = detector { $0.resetWithin = .seconds(12) }
        #expect(presses(&roomy, [.topLeft, .topRight, .bottomRight, .bottomLeft], gapMS: 800).map(\.action) == [.reset])
        var off = detector { $0.resetGesture = "off" }
        #expect(presses(&off, [.topLeft, .topRight, .bottomRight, .bottomLeft]).isEmpty)
    }

    @Test func cornersHeldTogetherAreNoReset() {
        // All four corners at once (a child's hands and elbows): one at a time is the rule.
        var d = detector()
        let all = ScreenCorner.allCases.enumerated().map { i, c in (i, 10 + i, corner(c).0, corner(c).1) }
        var fired = d.process(frame(0, all))
        fired += d.advance(to: TimeStamp(milliseconds: 30_000))
        #expect(fired.isEmpty)
    }

    @Test func aPressThatLeavesItsCornerIsNoPress() {
        var d = detector()
        var fired = d.process(frame(0, [(0, 1, 40, 40)]))
        fired += d.process(frame(1000, [(0, 1, 300, 40)]))
        fired += d.advance(to: TimeStamp(milliseconds: 5000))
        #expect(fired.isEmpty)
        #expect(d.nextDeadline == nil)
    }

    @Test func fiveFingersHeldStillOpenTheTouchTest() {
        var d = detector()
        let hand = (0..<5).map { i in (i, 20 + i, 400 + Double(i) * 60, 400.0) }
        var fired = d.process(frame(0, Array(hand.prefix(4))))
        fired += d.process(frame(500, hand))
        #expect(d.nextDeadline == TimeStamp(milliseconds: 3500))
        // Trembling by 2 px (within 5 mm) does not restart the hold.
        fired += d.process(frame(2000, hand.map { ($0.0, $0.1, $0.2 + 2, $0.3) }))
        fired += d.advance(to: TimeStamp(milliseconds: 3499))
        #expect(fired.isEmpty)
        fired += d.advance(to: TimeStamp(milliseconds: 4000))
        #expect(fired.map(\.kind) == [.fiveFingerHold] && fired.map(\.action) == [.touchTest])
        #expect(fired.first?.time == TimeStamp(milliseconds: 3500))
        #expect(fired.first?.contacts.map(\.trackingID) == [20, 21, 22, 23, 24])
        // Held on, it does not fire again; lifted and held again, it does (to leave the screen).
        fired = d.advance(to: TimeStamp(milliseconds: 20_000))
        #expect(fired.isEmpty)
        _ = d.process(frame(20_000, []))
        _ = d.process(frame(21_000, hand.map { ($0.0, $0.1 + 10, $0.2, $0.3) }))
        #expect(d.advance(to: TimeStamp(milliseconds: 24_000)).map(\.kind) == [.fiveFingerHold])
    }

    @Test func fourFingersOrAMovingFingerAreNoHold() {
        var four = detector()
        _ = four.process(frame(0, (0..<4).map { ($0, $0, 400 + Double($0) * 60, 400) }))
        #expect(four.advance(to: TimeStamp(milliseconds: 10_000)).isEmpty)
        var moving = detector()
        _ = moving.process(frame(0, (0..<5).map { ($0, $0, 400 + Double($0) * 60, 400) }))
        // One finger slides 30 px (7.5 mm) at 2 s: the hold counts from then.
        _ = moving.process(frame(2000, (0..<5).map { ($0, $0, 400 + Double($0) * 60 + ($0 == 2 ? 30 : 0), 400) }))
        #expect(moving.advance(to: TimeStamp(milliseconds: 4999)).isEmpty)
        #expect(moving.advance(to: TimeStamp(milliseconds: 5000)).count == 1)
        var off = detector { $0.touchTestGesture = "opposite-corners" }
        _ = off.process(frame(0, (0..<5).map { ($0, $0, 400 + Double($0) * 60, 400) }))
        #expect(off.advance(to: TimeStamp(milliseconds: 10_000)).isEmpty)
    }

    @Test func oppositeCornersOnlyWhenConfigured() {
        func run(_ setting: String, _ a: ScreenCorner, _ b: ScreenCorner) -> [OperatorGesture] {
            var d = detector { $0.touchTestGesture = setting }
            var fired = d.process(frame(0, [(0, 1, corner(a).0, corner(a).1)]))
            fired += d.process(frame(700, [(0, 1, corner(a).0, corner(a).1), (1, 2, corner(b).0, corner(b).1)]))
            fired += d.advance(to: TimeStamp(milliseconds: 10_000))
            return fired
        }
        let both = run("both", .topRight, .bottomLeft)
        #expect(both.map(\.kind) == [.oppositeCorners] && both.first?.time == TimeStamp(milliseconds: 2700))
        #expect(both.first?.contacts.count == 2)
        #expect(run("opposite-corners", .topLeft, .bottomRight).map(\.kind) == [.oppositeCorners])
        #expect(run("five-finger-hold", .topLeft, .bottomRight).isEmpty, "the default")
        #expect(run("both", .topLeft, .topRight).isEmpty, "adjacent corners are not opposite")
    }
}

/// The recordings in Fixtures/, through the parser, the decoder, the filter and the detector,
/// and the session (1280x800 at 4 px/mm).
@Suite struct OperatorRecordingTests {
    @Test func fiveFingerHoldRecordingOpensTheTouchTestAndTapsNothing() throws {
        var p = OperatorPipeline(session: OperatorFixtures.session())
        try p.play(fixture: "operator-five-finger-hold.evemu")
        #expect(p.gestures.map(\.kind) == [.fiveFingerHold])
        // The fifth finger went down at 600 ms and the hold is 3 s.
        #expect(p.gestures.first.map { abs(($0.time - TimeStamp(milliseconds: 3600)).inMilliseconds) < 20 } == true)
        #expect(p.gestures.first?.contacts.count == 5)
        #expect(p.events.isEmpty, "the start screen saw no tap: \(p.events)")
        #expect(p.session.contacts.isEmpty)
        // After the gesture fired the game never saw those fingers again.
        let after = p.gameFrames.filter { $0.time > p.gestures[0].time }
        #expect(!after.isEmpty && after.allSatisfy { $0.contacts.isEmpty })
    }

    @Test func oppositeCornersRecording() throws {
        var off = OperatorPipeline(session: OperatorFixtures.session())
        try off.play(fixture: "operator-opposite-corners.evemu")
        #expect(off.gestures.isEmpty, "the default touch_test_gesture is five-finger-hold")
        var on = OperatorPipeline(session: OperatorFixtures.session { $0.operator.touchTestGesture = "opposite-corners" })
        try on.play(fixture: "operator-opposite-corners.evemu")
        #expect(on.gestures.map(\.kind) == [.oppositeCorners])
        #expect(on.gestures.first?.action == .touchTest)
    }

    @Test func fourCornersRecordingResets() throws {
        var p = OperatorPipeline(session: OperatorFixtures.session())
        try p.play(fixture: "operator-four-corners.evemu")
        #expect(p.gestures.map(\.action) == [.reset])
        #expect(p.gestures.first?.kind == .fourCorners && p.gestures.first?.device == 0)
        // The fourth press went down at 7.7 s.
        #expect(p.gestures.first.map { abs(($0.time - TimeStamp(milliseconds: 9700)).inMilliseconds) < 20 } == true)
        var off = OperatorPipeline(session: OperatorFixtures.session { $0.operator.resetGesture = "off" })
        try off.play(fixture: "operator-four-corners.evemu")
        #expect(off.gestures.isEmpty)
    }

    @Test func aContactStuckOnADragBubbleIsDroppedWhileAnotherFingerPlays() throws {
        var p = OperatorPipeline(session: OperatorFixtures.session())
        try p.play(fixture: "stuck-touch-while-playing.evemu", extraMS: 2000)
        let round = try #require(p.session.game.round)
        // Reported once, on slot 1, where it rests, 20 s after it came to rest (about 1.2 s).
        #expect(p.stuck.count == 1)
        let stuck = try #require(p.stuck.first)
        #expect(stuck.contact.slot == 1)
        #expect(stuck.position.distance(to: OperatorFixtures.restPosition(round)) < 2)
        // (It rests from 1.2 s; the wait counts from its last move beyond stuck_radius_mm, a little before.)
        #expect(stuck.time >= TimeStamp(milliseconds: 21_000) && stuck.time <= TimeStamp(milliseconds: 21_200), "\(stuck.time)")
        // The bubble it carried went back home, unpopped, and nobody carries it.
        let drag = OperatorFixtures.firstDragBubble(round)
        let now = round.bubbles.first { $0.id == drag.id }!
        #expect(!now.isPopped && now.carry == nil)
        // The other finger popped every tap bubble, before and after the stuck moment.
        let tapBubbles = round.bubbles.filter { if case .tap = $0.kind { return true } else { return false } }
        #expect(tapBubbles.allSatisfy { $0.isPopped })
        let pops = p.events.filter { if case .popped = $0.event { return true } else { return false } }
        #expect(pops.count == tapBubbles.count)
        #expect(pops.contains { $0.time < stuck.time } && pops.contains { $0.time > stuck.time })
        // Its lift at 26.2 s gave nothing: no tap, no miss, no drop.
        #expect(!p.events.contains { $0.time > TimeStamp(milliseconds: 26_000) }, "\(p.events.suffix(3))")
        #expect(!p.events.contains { if case .missed = $0.event { return true } else { return false } })
    }

    @Test func withoutTheFilterTheDropKeepsTheBubble() throws {
        // The same recording with stuck_after_s = 0: the bubble stays carried until the lift,
        // when the drop puts it back; so the checks above see the filter's work.
        var p = OperatorPipeline(session: OperatorFixtures.session { $0.input.stuckAfter = .seconds(0) })
        let recording = try EvemuRecording.parse(Fixture.text("stuck-touch-while-playing.evemu"), file: "stuck")
        var decoder = TouchDecoder(device: recording.device, screen: OperatorFixtures.screen)
        for event in recording.events where event.time < TimeStamp(milliseconds: 25_000) {
            for frame in decoder.feed(event) { p.deliver(frame) }
        }
        p.advance(to: TimeStamp(milliseconds: 25_000))
        let round = try #require(p.session.game.round)
        #expect(p.stuck.isEmpty)
        #expect(round.bubbles.first { $0.id == OperatorFixtures.firstDragBubble(round).id }?.carry != nil)
    }

    @Test func aStuckContactDoesNotKeepTheKioskFromIdling() {
        // A drop of water that trembles (so the panel keeps reporting it) after a round started.
        var p = OperatorPipeline(session: OperatorFixtures.session { $0.attract.idleTimeout = .seconds(30) })
        let button = p.session.game.button.center
        p.deliver(TouchFrame(time: .zero, contacts: [TouchPoint(slot: 0, trackingID: 1, position: button)]))
        p.deliver(TouchFrame(time: TimeStamp(milliseconds: 60), contacts: []))
        #expect(p.session.game.screen == .playing(demo: false))
        var t = 1000.0
        while t < 60_000 {
            let wobble = Double(Int(t / 100) % 2)
            p.deliver(TouchFrame(time: TimeStamp(milliseconds: t),
                                 contacts: [TouchPoint(slot: 3, trackingID: 9, position: Vector2(700 + wobble, 300))]))
            t += 100
        }
        #expect(p.stuck.count == 1)
        // Stuck at 21 s, the game's last touch; idle 30 s later.
        let idle = p.events.first { $0.event == .idleReturn }
        #expect(idle.map { abs(($0.time - TimeStamp(milliseconds: 51_000)).inMilliseconds) < 200 } == true, "\(p.events)")
        #expect(p.session.contacts.isEmpty, "no finger marker for it")
    }
}

@Suite struct CancelOneContactTests {
    @Test func aCancelledContactEndsInACancelNotALift() {
        var r = GestureRecognizer(settings: GestureSettings(), pxPerMM: 4, screen: PixelSize(width: 1280, height: 800))
        var out: [Gesture] = []
        r.process(frame(0, [(0, 1, 100, 100), (1, 2, 500, 500)])) { out.append($0) }
        r.cancel(device: 0, slot: 0, trackingID: 99, at: TimeStamp(milliseconds: 50)) { out.append($0) }
        #expect(out.isEmpty, "another finger's id: nothing")
        r.cancel(device: 0, slot: 0, trackingID: 1, at: TimeStamp(milliseconds: 100)) { out.append($0) }
        #expect(out.map(\.kind) == [.cancel] && out.first?.slot == 0)
        // The frames leave it out from then on; the other finger still taps.
        r.process(frame(150, [])) { out.append($0) }
        r.advance(to: TimeStamp(milliseconds: 1000)) { out.append($0) }
        #expect(out.map(\.kind) == [.cancel, .tap] && out.last?.slot == 1)
    }
}
