@testable import KioskCore
import Testing

/// The joystick mode: the seed's control (clamped knob, snap-back, readout, a base that moves),
/// steering, two fingers at once, collecting, the countdown, and choosing a mode.
@Suite struct JoystickTests {
    /// A joystick round on EvemuScript's 1000x1000 screen at 4 px/mm: no bubbles unless asked,
    /// no drift, so only the joystick moves. The base starts at (112, 888), radius 72 px.
    static func round(bubbles: Int = 0, configure: (inout Settings) -> Void = { _ in }) -> Round {
        var settings = Settings()
        settings.joystick.startBubbles = bubbles
        settings.joystick.spawnInterval = .milliseconds(60000)
        settings.joystick.driftMMPerS = 0
        settings.game.swipeShare = 0
        settings.game.maxTaps = 1
        configure(&settings)
        let field = PlayField(size: EvemuScript.screen, pxPerMM: 4, game: settings.game)
        return Round(mode: .joystick, field: field, settings: settings, seed: 5, at: .zero)
    }

    /// Replays `script` into `round`, handing the round to `check` after every gesture.
    static func play(_ script: EvemuScript, into round: inout Round,
                     check: (Gesture, Round) -> Void = { _, _ in }) throws -> [GameEvent] {
        var events: [GameEvent] = []
        for g in try script.gestures() {
            events += round.handle(g)
            check(g, round)
        }
        return events
    }

    /// A finger that goes down at `from`, slides to `to` in 10 steps, holds there `holdMS`, lifts.
    static func push(_ script: inout EvemuScript, from: (Int, Int), to: (Int, Int), start: Double,
                     holdMS: Double = 100, slot: Int = 0, id: Int = 1) {
        let path = EvemuScript.line(from: from, to: to, steps: 10)
            + Array(repeating: to, count: Int(holdMS / 10))
        script.stroke(path, start: start, slot: slot, id: id)
    }

    @Test func theBaseStartsAtTheLowerLeftWithTheKnobInItsCentre() {
        let r = Self.round()
        let stick = try! #require(r.joystick?.stick)
        #expect(stick.base == Vector2(112, 888))
        #expect(stick.radius == 72)
        #expect(stick.knob == stick.base)
        #expect(stick.readoutDegrees == 0 && stick.distance == 0)
        #expect(r.joystick?.catcher == r.field.area.center)
    }

    @Test func theKnobIsClampedToTheBaseAndSnapsBack() throws {
        var r = Self.round()
        var s = EvemuScript()
        Self.push(&s, from: (112, 888), to: (412, 888), start: 0)  // 300 px right, far past the edge
        var held: [Joystick] = []
        var afterLift: Joystick?
        _ = try Self.play(s, into: &r) { g, r in
            if g.kind == .dragMove { held.append(r.joystick!.stick) }
            if g.kind == .dragEnd || g.kind == .swipe { afterLift = r.joystick!.stick }
        }
        let last = try #require(held.last)
        #expect(held.allSatisfy { $0.distance <= 72 + 1e-9 })
        #expect(abs(last.knob.x - 184) < 1e-9 && last.knob.y == 888)
        #expect(last.distance == 72 && last.deflection == 1)
        #expect(last.readoutDegrees == 0)
        let lifted = try #require(afterLift)
        #expect(lifted.knob == lifted.base)
        #expect(lifted.steering == nil && lifted.distance == 0)
        #expect(lifted.readout == "0°  0 px")
    }

    @Test(arguments: [((112, 838), 90, 50), ((82, 858), 135, 42), ((62, 888), 180, 50), ((112, 938), 270, 50),
                      ((142, 918), 315, 42)])
    func theReadoutIsCounterClockwiseFromTheRight(to: (Int, Int), degrees: Int, distance: Int) throws {
        var r = Self.round()
        var s = EvemuScript()
        Self.push(&s, from: (112, 888), to: to, start: 0)
        var last: Joystick?
        _ = try Self.play(s, into: &r) { g, r in if g.kind == .dragMove { last = r.joystick!.stick } }
        let stick = try #require(last)
        #expect(stick.readoutDegrees == degrees)
        #expect(Int(stick.distance.rounded()) == distance)
        #expect(stick.readout == "\(degrees)°  \(distance) px")
    }

    /// How far the catcher went with the knob pushed right by `dx` px for half a second.
    static func travel(knob dx: Int) throws -> Double {
        var r = round()
        let start = r.joystick!.catcher
        var s = EvemuScript()
        push(&s, from: (112, 888), to: (112 + dx, 888), start: 0, holdMS: 500)
        _ = try play(s, into: &r)
        let end = r.joystick!.catcher
        #expect(abs(end.y - start.y) < 1e-9)
        _ = r.advance(to: TimeStamp(milliseconds: 2000))
        #expect(r.joystick!.catcher == end, "the catcher stops when the knob snaps back")
        return end.x - start.x
    }

    @Test func theCatcherGoesFasterWithTheKnobFurtherOut() throws {
        let near = try Self.travel(knob: 18)  // a quarter out
        let half = try Self.travel(knob: 36)
        let full = try Self.travel(knob: 72)
        let beyond = try Self.travel(knob: 200)  // clamped: as fast as at the edge
        #expect(near > 0)
        #expect(half > near * 1.7 && half < near * 2.3)
        #expect(full > half * 1.7 && full < half * 2.3)
        #expect(abs(beyond - full) < full * 0.1)
        // Full speed is [joystick] max_speed_mm_s: 120 mm/s * 4 px/mm for about 0.6 s.
        #expect(full > 480 * 0.45 && full < 480 * 0.7)
    }

    @Test func theBaseCanBeDraggedAnywhereWithoutJumping() throws {
        var r = Self.round()
        var s = EvemuScript()
        // Grab the base's ring 50 px left of the centre (off the knob) and drag it up and right.
        Self.push(&s, from: (62, 888), to: (462, 588), start: 0)
        _ = try Self.play(s, into: &r)
        let stick = try #require(r.joystick?.stick)
        #expect(stick.base == Vector2(512, 588))
        #expect(stick.knob == stick.base)
        #expect(stick.moving == nil)
    }

    @Test func twoFingersAtOnceSteerAndPopOrMoveTheBase() throws {
        var r = Self.round(bubbles: 3)
        let catcherStart = r.joystick!.catcher
        // A bubble away from the catcher's path to the right.
        let target = try #require(r.bubbles.first { abs($0.center.y - catcherStart.y) > $0.radius + 40 })
        var s = EvemuScript()
        // Finger 1 holds the knob up-right... (slot 0, 1.5 s)
        Self.push(&s, from: (112, 888), to: (184, 888), start: 0, holdMS: 1500)
        // ...while finger 2 taps the bubble (slot 1) and then drags the base's ring (slot 1 again).
        let p = (Int(target.center.x.rounded()), Int(target.center.y.rounded()))
        s.put(400, slot: 1, id: 2, p.0, p.1)
        s.syn(400)
        s.lift(450, slot: 1)
        s.syn(450)
        var knobHeld: [Bool] = []
        let events = try Self.play(s, into: &r) { g, r in
            if g.slot == 1 { knobHeld.append(r.joystick!.stick.steering != nil) }
        }
        #expect(events.contains(.popped(bubble: target.id, points: 10)))
        #expect(r.bubbles.first { $0.id == target.id }!.isPopped)
        #expect(!(r.joystick!.collected.contains(target.id)), "popped by the finger, not collected")
        #expect(knobHeld == [true], "the knob stayed held while the other finger tapped")
        #expect(r.joystick!.catcher.x > catcherStart.x + 100)

        // The base moves under one finger while the other steers: the knob stays clamped around it.
        var r2 = Self.round()
        var s2 = EvemuScript()
        var t = 0.0
        // Slot 0: knob to the right edge and held; slot 1: drags the ring from its left side.
        s2.put(t, slot: 0, id: 1, 112, 888); s2.syn(t)
        for i in 1...10 { t += 10; s2.put(t, slot: 0, 112 + i * 10, 888); s2.syn(t) }
        s2.put(t + 10, slot: 1, id: 2, 52, 888); s2.syn(t + 10)
        for i in 1...10 { let u = t + 10 + Double(i) * 10; s2.put(u, slot: 1, 52 + i * 20, 888 - i * 20); s2.syn(u) }
        var during: Joystick?
        _ = try Self.play(s2, into: &r2) { g, r in if g.slot == 1 && g.kind == .dragMove { during = r.joystick!.stick } }
        let stick = try #require(during)
        #expect(stick.base == Vector2(312, 688))
        #expect(stick.steering != nil && stick.moving != nil)
        #expect(stick.distance <= 72 + 1e-9)
        // The steering finger is at (212, 888): down and left of the moved base.
        #expect(stick.knob.x < stick.base.x && stick.knob.y > stick.base.y)
    }

    @Test func theCatcherCollectsWhatItTouches() {
        var r = Self.round(bubbles: 4)
        let catcher = r.joystick!.catcher
        let target = r.bubbles.min { $0.center.distance(to: catcher) < $1.center.distance(to: catcher) }!
        let dir = (target.center - catcher) * (1 / (target.center - catcher).length)
        let base = r.joystick!.stick.base
        func g(_ kind: Gesture.Kind, _ ms: Double, _ p: Vector2) -> Gesture {
            Gesture(kind: kind, time: TimeStamp(milliseconds: ms), device: 0, slot: 0, position: p, start: base)
        }
        var events = r.handle(g(.dragStart, 10, base + dir * 20))
        events += r.handle(g(.dragMove, 20, base + dir * 72))
        events += r.advance(to: TimeStamp(milliseconds: 5000))
        #expect(r.joystick!.collected.first == target.id)
        #expect(events.contains(.popped(bubble: target.id, points: 10)))
        #expect(r.score >= 10)
    }

    @Test func theRoundEndsWhenTheCountdownRunsOut() {
        var r = Self.round(bubbles: 2) { $0.joystick.duration = .seconds(10) }
        #expect(r.nextDeadline == TimeStamp(milliseconds: 1000.0 / 60))
        #expect(r.clock(at: TimeStamp(milliseconds: 4000)) == .seconds(6))
        #expect(r.advance(to: TimeStamp(milliseconds: 9990)).allSatisfy { if case .roundOver = $0 { false } else { true } })
        #expect(!r.isOver)
        let events = r.advance(to: TimeStamp(milliseconds: 10500))
        #expect(events.last == .roundOver(score: r.score))
        #expect(r.isOver && r.endTime == TimeStamp(milliseconds: 10000))
        #expect(r.nextDeadline == nil)
        #expect(r.handle(Gesture(kind: .tap, time: TimeStamp(milliseconds: 11000), device: 0, slot: 0,
                                 position: r.bubbles[0].center, start: r.bubbles[0].center)).isEmpty)
    }

    @Test func bubblesDriftAndStayOnTheField() {
        var r = Self.round(bubbles: 5) { $0.joystick.driftMMPerS = 40 }
        let before = r.bubbles.map(\.center)
        _ = r.advance(to: TimeStamp(milliseconds: 20000))
        #expect(zip(before, r.bubbles.map(\.center)).allSatisfy { $0 != $1 } || r.popped > 0)
        for b in r.bubbles where !b.isPopped {
            #expect(b.center.x - b.radius >= r.field.area.x - 1e-9 && b.center.x + b.radius <= r.field.area.maxX + 1e-9)
            #expect(b.center.y - b.radius >= r.field.area.y - 1e-9 && b.center.y + b.radius <= r.field.area.maxY + 1e-9)
        }
    }

    @Test func theSameRecordingMovesTheSameEveryTime() throws {
        func run() throws -> Round {
            var r = Self.round(bubbles: 6) { $0.joystick.driftMMPerS = 12 }
            var s = EvemuScript()
            Self.push(&s, from: (112, 888), to: (170, 850), start: 0, holdMS: 2000)
            _ = try Self.play(s, into: &r)
            _ = r.advance(to: TimeStamp(milliseconds: 4000))
            return r
        }
        let a = try run(), b = try run()
        #expect(a.joystick == b.joystick)
        #expect(a.bubbles == b.bubbles)
    }
}

/// Choosing a mode on the start screen, and the demo showing each.
@Suite struct ModeChoiceTests {
    static func game(_ configure: (inout Settings) -> Void) -> KioskGame {
        var settings = Settings.classicOnly
        configure(&settings)
        let field = PlayField(size: PixelSize(width: 1280, height: 800), pxPerMM: 4, game: settings.game)
        return KioskGame(field: field, settings: settings, seed: 3, at: .zero)
    }

    static func tap(_ g: inout KioskGame, _ p: Vector2, at ms: Double) -> [GameEvent] {
        g.handle(Gesture(kind: .tap, time: TimeStamp(milliseconds: ms), device: 0, slot: 0, position: p, start: p, count: 1))
    }

    @Test func theStartScreenOffersEveryModeByDefault() {
        var settings = Settings()
        #expect(settings.offeredModes == [.classic, .timed, .joystick])
        let field = PlayField(size: PixelSize(width: 1280, height: 800), pxPerMM: 4, game: settings.game)
        #expect(KioskGame(field: field, settings: settings, seed: 3, at: .zero).modeButtons.map(\.mode) == [.classic, .timed, .joystick])
        // `[attract] timed_mode` still puts timed in classic's place.
        settings.attract.timedMode = true
        #expect(settings.offeredModes == [.timed, .joystick])
    }

    @Test func oneModeKeepsTheSingleStartButton() {
        let g = Self.game { _ in }
        #expect(g.modes == [.classic])
        #expect(g.modeButtons.count == 1 && g.modeButtons[0].rect == g.button)
        #expect(Self.game { $0.attract.timedMode = true }.modes == [.timed])
        #expect(Self.game { $0.modes.classic = false; $0.modes.joystick = true }.modes == [.joystick])
        #expect(Self.game { $0.modes.classic = false }.modes == [.classic], "never no mode at all")
        #expect(Self.game { $0.modes.timed = true; $0.modes.joystick = true; $0.attract.timedMode = true }.modes
                == [.timed, .joystick])
    }

    @Test func eachModeButtonStartsItsMode() {
        for mode in Round.Mode.allCases {
            var g = Self.game { $0.modes.timed = true; $0.modes.joystick = true }
            #expect(g.modes == [.classic, .timed, .joystick])
            let rect = try! #require(g.button(for: mode))
            #expect(Self.tap(&g, rect.center, at: 100) == [.roundStarted(demo: false)])
            #expect(g.round?.mode == mode)
            #expect((mode == .joystick) == (g.round?.joystick != nil))
        }
    }

    @Test func theButtonsAreLargeApartAndOnTheScreen() {
        let g = Self.game { $0.modes.timed = true; $0.modes.joystick = true }
        let rects = g.modeButtons.map(\.rect)
        #expect(rects.count == 3)
        for r in rects {
            #expect(r.width >= g.field.px(40) && r.height == g.button.height)
            #expect(r.x >= 0 && r.maxX <= 1280)
        }
        #expect(rects[0].maxX < rects[1].x && rects[1].maxX < rects[2].x)
        // Between two buttons, in the gap's middle: no round.
        var h = g
        let gap = Vector2((rects[0].maxX + rects[1].x) / 2, rects[0].center.y)
        #expect(Self.tap(&h, gap, at: 100).isEmpty)
        #expect(h.screen == .start)
        // Just past a button's edge, within the finger margin: still that button.
        #expect(Self.tap(&h, Vector2(rects[2].maxX + 2, rects[2].center.y), at: 200) == [.roundStarted(demo: false)])
        #expect(h.round?.mode == .joystick)
    }

    @Test func playAgainKeepsTheModeJustPlayed() {
        var g = Self.game { $0.modes.timed = true; $0.modes.joystick = true; $0.joystick.duration = .seconds(5) }
        _ = Self.tap(&g, g.button(for: .joystick)!.center, at: 100)
        _ = g.advance(to: TimeStamp(milliseconds: 5200))
        #expect(g.screen == .roundOver)
        _ = Self.tap(&g, g.button.center, at: 6000)
        #expect(g.round?.mode == .joystick)
    }

    @Test func theDemoShowsEachOfferedModeInTurn() {
        var g = Self.game { $0.modes.timed = true; $0.modes.joystick = true }
        var seen: [Round.Mode] = []
        for i in 0..<4 {
            _ = g.startRound(at: TimeStamp(milliseconds: Double(i) * 1000), demo: true)
            seen.append(g.round!.mode)
        }
        #expect(seen == [.classic, .timed, .joystick, .classic])
        var single = Self.game { $0.attract.timedMode = true }
        _ = single.startRound(at: .zero, demo: true)
        #expect(single.round?.mode == .classic, "one mode: the demo plays classic as before")
    }

    @Test func aTimedDemoKeepsPoppingTheBubblesThatCome() {
        var settings = Settings.classicOnly
        settings.modes.timed = true
        let field = PlayField(size: PixelSize(width: 1280, height: 800), pxPerMM: 4, game: settings.game)
        var s = KioskSession(game: KioskGame(field: field, settings: settings, seed: 3, at: .zero))
        _ = s.startDemo(at: .zero)
        #expect(s.game.round?.mode == .classic)
        _ = s.startDemo(at: TimeStamp(milliseconds: 100))
        #expect(s.game.round?.mode == .timed)
        var t = 100.0
        while t < 40_000 {
            t += 50
            _ = s.advance(to: TimeStamp(milliseconds: t))
        }
        let popped = s.game.round?.popped ?? 0
        #expect(popped > settings.timed.startBubbles, "bubbles that spawned later were popped too")
    }

    @Test func theJoystickDemoSteersTheKnobWithAGhostFinger() {
        var settings = Settings.classicOnly
        settings.modes.classic = false
        settings.modes.joystick = true
        settings.joystick.duration = .seconds(12)
        let field = PlayField(size: PixelSize(width: 1280, height: 800), pxPerMM: 4, game: settings.game)
        var s = KioskSession(game: KioskGame(field: field, settings: settings, seed: 3, at: .zero))
        _ = s.startDemo(at: .zero)
        #expect(s.game.round?.mode == .joystick)
        var deflected = false
        var t = 0.0
        while t < 11000 {
            t += 50
            _ = s.advance(to: TimeStamp(milliseconds: t))
            if let d = s.game.round?.joystick?.stick.deflection, d > 0.5 { deflected = true }
        }
        #expect(deflected)
        #expect(s.game.round!.joystick!.catcher != field.area.center)
        _ = s.advance(to: TimeStamp(milliseconds: 12500))
        #expect(s.game.screen == .start, "the demo loops back to the start screen")
    }
}

/// Joystick rounds have a label of their own in the fleet metrics.
@Suite struct JoystickMetricsTests {
    @Test func joystickRoundsAreCountedUnderTheirMode() {
        var m = KioskMetrics(startTime: .epoch)
        var told = EventFactsTracker()
        var r = JoystickTests.round(bubbles: 3)
        m.note(.game(.roundStarted(demo: false)), told.facts(for: .game(.roundStarted(demo: false)), screen: .start, round: r, at: .zero))
        let base = r.joystick!.stick.base
        let target = r.bubbles[0]
        let d = target.center - r.joystick!.catcher
        let g = { (kind: Gesture.Kind, ms: Double, p: Vector2) in
            Gesture(kind: kind, time: TimeStamp(milliseconds: ms), device: 0, slot: 0, position: p, start: base)
        }
        var events = r.handle(g(.dragStart, 10, base + d * (20 / d.length)))
        events += r.handle(g(.dragMove, 20, base + d * (72 / d.length)))
        events += r.advance(to: TimeStamp(milliseconds: 60_000))
        for e in events { m.note(.game(e), told.facts(for: .game(e), screen: .start, round: r, at: .zero)) }
        #expect(r.isOver && !r.joystick!.collected.isEmpty)
        #expect(m.roundsStarted["joystick"] == 1)
        #expect(m.roundsPlayed["joystick finished"] == 1)
        #expect((m.popped["joystick tap"] ?? 0) + (m.popped["joystick swipe"] ?? 0) == r.joystick!.collected.count)
    }
}
