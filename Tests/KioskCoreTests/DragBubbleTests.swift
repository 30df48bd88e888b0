import Testing
@testable import KioskCore
import KioskTestSupport

/// Drag bubbles: carried by a finger into the goal, through the whole input path (evemu text,
/// decoder, recogniser, round).
@Suite struct DragBubbleTests {
    /// Settings whose rounds have only drag bubbles (`bubbles` of them).
    static func dragOnly(bubbles: Int = 4) -> Settings {
        var s = Settings()
        s.game.tapWeight = 0
        s.game.swipeWeight = 0
        s.game.dragWeight = 1
        s.game.bubbles = bubbles
        return s
    }

    static func round(_ settings: Settings = dragOnly(), seed: UInt64 = 5) -> Round {
        let field = PlayField(size: EvemuScript.screen, pxPerMM: 4, game: settings.game)
        return Round(field: field, settings: settings, seed: seed, at: .zero)
    }

    static func point(_ v: Vector2) -> (Int, Int) { (Int(v.x.rounded()), Int(v.y.rounded())) }

    /// Feeds the script's gestures to the round one at a time; `after` sees the round after each.
    static func play(_ script: EvemuScript, into round: inout Round,
                     after: (Gesture, Round) -> Void = { _, _ in }) throws -> [GameEvent] {
        var events: [GameEvent] = []
        for g in try script.gestures() {
            events += round.handle(g)
            after(g, round)
        }
        return events
    }

    @Test func draggedIntoTheGoalItPops() throws {
        var round = Self.round()
        let goal = try #require(round.goal)
        let b = round.bubbles[0]
        #expect(b.kind == .drag)
        // Grabbed 12 px right of its centre: it keeps that offset all the way.
        let grab = b.center + Vector2(12, 0)
        var s = EvemuScript()
        s.stroke(EvemuScript.line(from: Self.point(grab), to: Self.point(goal.center + Vector2(12, 0)), steps: 30),
                 start: 0, stepMS: 16)
        var offsets: [Double] = []
        let events = try Self.play(s, into: &round) { g, r in
            if g.kind == .dragMove, let c = r.bubbles[0].carry {
                offsets.append((g.position - c.position).distance(to: Vector2(12, 0)))
            }
        }
        #expect(!offsets.isEmpty && offsets.allSatisfy { $0 < 1.01 })
        #expect(events.contains(.popped(bubble: b.id, points: 20)))
        #expect(round.bubbles[0].isPopped && round.score == 20)
        #expect(goal.contains(round.bubbles[0].center), "it pops where it went in")
    }

    @Test func droppedShortItEasesBack() throws {
        var round = Self.round()
        let b = round.bubbles[0]
        let drop = b.center + Vector2(0, b.center.y > 500 ? -150 : 150)
        #expect(!round.goal!.contains(drop))
        var s = EvemuScript()
        s.stroke(EvemuScript.line(from: Self.point(b.center), to: Self.point(drop), steps: 20), start: 0, stepMS: 16)
        var held: [Double] = []
        let events = try Self.play(s, into: &round) { g, r in
            if g.kind == .dragMove { held.append(r.bubbles[0].lift(at: g.time)) }
        }
        #expect(held.last == 1, "lifted while held")
        #expect(!events.contains { if case .popped = $0 { true } else { false } })
        let after = round.bubbles[0]
        #expect(!after.isPopped && after.carry == nil && after.center == b.center)
        let dropped = try #require(after.lastDrop)
        #expect(dropped.from.distance(to: drop) < 1.5)
        // On screen it glides home and settles.
        #expect(after.shownCenter(at: dropped.time).distance(to: dropped.from) < 0.001)
        let mid = after.shownCenter(at: (dropped.time + Bubble.returnTime / 2))
        #expect(mid.distance(to: b.center) > 1 && mid.distance(to: dropped.from) > 1)
        #expect(after.shownCenter(at: (dropped.time + Bubble.returnTime)) == b.center)
        #expect(after.lift(at: dropped.time) == 1 && after.lift(at: (dropped.time + Bubble.returnTime)) == 0)
        #expect(after.isMoving(at: dropped.time) && !after.isMoving(at: (dropped.time + Bubble.returnTime)))
    }

    @Test func twoFingersCarryTwoBubblesAtOnce() throws {
        var round = Self.round()
        let goal = try #require(round.goal)
        let a = round.bubbles[0], b = round.bubbles[1]
        var s = EvemuScript()
        let pathA = EvemuScript.line(from: Self.point(a.center), to: Self.point(goal.center), steps: 30)
        let pathB = EvemuScript.line(from: Self.point(b.center), to: Self.point(goal.center + Vector2(10, 5)), steps: 30)
        for i in 0...30 {
            let t = Double(i) * 16
            s.put(t, slot: 0, id: i == 0 ? 1 : nil, pathA[i].0, pathA[i].1)
            s.put(t, slot: 1, id: i == 0 ? 2 : nil, pathB[i].0, pathB[i].1)
            s.syn(t)
        }
        s.lift(600, slot: 0)
        s.lift(600, slot: 1)
        s.syn(600)
        var carriedAtOnce = 0
        let events = try Self.play(s, into: &round) { _, r in
            carriedAtOnce = max(carriedAtOnce, r.bubbles.count { $0.carry != nil })
        }
        #expect(carriedAtOnce == 2)
        #expect(events.filter { if case .popped = $0 { true } else { false } }.count == 2)
        #expect(round.bubbles[0].isPopped && round.bubbles[1].isPopped)
    }

    @Test func aHeldBubbleCannotBeTakenByAnotherFinger() throws {
        var round = Self.round()
        let goal = try #require(round.goal)
        let b = round.bubbles[0]
        let held = b.center + Vector2(0, b.center.y > 500 ? -60 : 60)
        var s = EvemuScript()
        // Finger 0 picks it up and holds it still at `held`.
        let path = EvemuScript.line(from: Self.point(b.center), to: Self.point(held), steps: 10)
        for (i, p) in path.enumerated() {
            s.put(Double(i) * 16, slot: 0, id: i == 0 ? 1 : nil, p.0, p.1)
            s.syn(Double(i) * 16)
        }
        // Finger 1 lands on it where it is now and drags off to the goal.
        let steal = EvemuScript.line(from: Self.point(held), to: Self.point(goal.center), steps: 20)
        for (i, p) in steal.enumerated() {
            let t = 300 + Double(i) * 16
            s.put(t, slot: 1, id: i == 0 ? 2 : nil, p.0, p.1)
            s.syn(t)
        }
        s.lift(700, slot: 1)
        s.syn(700)
        var stillHeld = true
        let events = try Self.play(s, into: &round) { g, r in
            if g.slot == 1 { stillHeld = stillHeld && r.bubbles[0].carry?.slot == 0 }
        }
        #expect(stillHeld, "finger 0 keeps it through finger 1's whole drag")
        #expect(events.isEmpty && !round.bubbles[0].isPopped && round.score == 0)
        #expect(round.bubbles[0].carry.map { $0.position.distance(to: held) < 1.5 } == true)
    }

    @Test func aCancelledContactReturnsTheBubble() throws {
        var round = Self.round()
        let b = round.bubbles[0]
        var s = EvemuScript()
        let path = EvemuScript.line(from: Self.point(b.center), to: Self.point(b.center + Vector2(80, 0)), steps: 8)
        for (i, p) in path.enumerated() {
            s.put(Double(i) * 16, slot: 0, id: i == 0 ? 1 : nil, p.0, p.1)
            s.syn(Double(i) * 16)
        }
        s.event(140, 0, 3, 0)  // SYN_DROPPED
        s.put(150, slot: 0, 700, 700)
        s.syn(150)
        s.lift(170, slot: 0)
        s.syn(170)
        var wasCarried = false
        _ = try Self.play(s, into: &round) { g, r in
            if g.kind == .dragMove { wasCarried = wasCarried || r.bubbles[0].carry != nil }
        }
        #expect(wasCarried)
        let after = round.bubbles[0]
        #expect(after.carry == nil && !after.isPopped && after.center == b.center && after.lastDrop != nil)
    }

    /// A quick flick into the goal is a drag end and a swipe at once: the pop counts, the swipe
    /// is no miss.
    @Test func aFlickIntoTheGoalIsNoMiss() throws {
        var settings = Self.dragOnly()
        settings.score.miss = -5
        var round = Self.round(settings)
        let goal = try #require(round.goal)
        let b = round.bubbles[0]
        var s = EvemuScript()
        s.stroke(EvemuScript.line(from: Self.point(b.center), to: Self.point(goal.center), steps: 8), start: 0, stepMS: 10)
        let events = try Self.play(s, into: &round)
        #expect(try s.gestures().kinds.suffix(2) == [.dragEnd, .swipe])
        #expect(events == [.popped(bubble: b.id, points: 20)] && round.score == 20)
    }

    /// Dragging a tap or swipe bubble does nothing, as before.
    @Test func otherKindsAreNotCarried() throws {
        var settings = Settings()
        settings.game.dragWeight = 0
        var round = Self.round(settings)
        #expect(round.goal == nil)
        let b = round.bubbles[0]
        var s = EvemuScript()
        s.stroke(EvemuScript.line(from: Self.point(b.center), to: Self.point(b.center + Vector2(0, 40)), steps: 20),
                 start: 0, stepMS: 20)
        _ = try Self.play(s, into: &round)
        #expect(round.bubbles.allSatisfy { $0.carry == nil && $0.lastDrop == nil })
    }

    /// The goal sits at an edge of the play area, below the HUD, under no bubble; the drag
    /// decision draws from its own stream, so seeds keep their positions, sizes and colours.
    @Test func theGoalIsClearAndSeedsKeepTheirLayout() {
        var noDrag = Settings()
        noDrag.game.dragWeight = 0
        var kinds: Set<String> = []
        for seed in UInt64(0)..<40 {
            for size in [PixelSize(width: 1280, height: 800), PixelSize(width: 800, height: 1280), PixelSize(width: 1920, height: 1080)] {
                let settings = Settings()
                let round = makeRound(seed: seed, size: size, settings: settings)
                let plain = makeRound(seed: seed, size: size, settings: noDrag)
                guard let goal = round.goal else { Issue.record("no goal"); continue }
                let area = round.field.area
                #expect(goal.x >= area.x - 0.001 && goal.y >= area.y - 0.001)
                #expect(goal.maxX <= area.maxX + 0.001 && goal.maxY <= area.maxY + 0.001)
                #expect(goal.y >= settings.game.hudHeightMM * 4, "below the HUD")
                let atEdge = abs(goal.maxY - area.maxY) < 0.001 || abs(goal.x - area.x) < 0.001
                    || abs(goal.maxX - area.maxX) < 0.001
                #expect(atEdge)
                for b in round.bubbles {
                    #expect(!BubblePlacer.disc(at: b.center, radius: b.radius, meets: goal), "seed \(seed) \(size)")
                    kinds.insert(b.kindName)
                }
                let moved = zip(round.bubbles, plain.bubbles).filter { $0.center != $1.center }.count
                #expect(moved <= 2, "seed \(seed) \(size): only bubbles under the goal move")
                for (b, p) in zip(round.bubbles, plain.bubbles) {
                    #expect(b.diameter == p.diameter && b.colorIndex == p.colorIndex && b.id == p.id)
                    if b.kind != .drag { #expect(b.kind == p.kind) }
                }
            }
        }
        #expect(kinds == ["tap", "swipe", "drag"], "the default mix has all three")
    }

    @Test func weightsChooseTheMix() {
        var settings = Settings()
        #expect(settings.game.swipeShare == 0.5 && settings.game.dragShare == 0.2)
        settings.game.swipeShare = 0.25
        #expect(settings.game.tapWeight == 3 && settings.game.swipeWeight == 1)
        settings.game.tapWeight = 0
        settings.game.swipeWeight = 0
        settings.game.dragWeight = 0
        #expect(settings.game.dragShare == 0)
        let round = makeRound(settings: settings)
        #expect(round.goal == nil && round.bubbles.allSatisfy { if case .tap = $0.kind { true } else { false } })
    }

    @Test func stateAndPlayJSONShowDragBubblesAndTheGoal() throws {
        var round = Self.round()
        let goal = try #require(round.goal)
        let state = GameJSON.state(round).text
        #expect(state.contains("\"kind\":\"drag\""))
        #expect(state.contains("\"goal\":{\"x\":"))
        #expect(state.contains("\"width\":\(JSON.rounded(goal.width).text),\"height\":\(JSON.rounded(goal.height).text)}"))
        _ = carry(&round, from: round.bubbles[0].center, to: goal.center)
        let outcome = GameJSON.outcome(round).text
        #expect(outcome.contains("{\"id\":0,\"popped\":true,\"taps_left\":0,\"kind\":\"drag\"}"))
        #expect(outcome.contains("\"goal\":{"))
    }

    /// `round-recording` pops drag bubbles too: each dragged into the goal.
    @Test func roundRecordingDragsIntoTheGoal() throws {
        let settings = Settings()
        var round = makeRound(seed: 3, size: EvemuScript.screen, settings: settings)
        #expect(round.bubbles.contains { $0.kind == .drag })
        let recording = RoundRecording(transform: TouchTransform(native: EvemuScript.screen), startButton: nil)
        let text = recording.text(popping: round.bubbles, swipeLengthPx: round.field.px(25), goal: round.goal)
        let parsed = try EvemuRecording.parse(text, file: "round.evemu")
        Replay.gestures(of: parsed, screen: EvemuScript.screen,
                        thresholds: GestureThresholds(settings.gestures, pxPerMM: 4)) { _ = round.handle($0) }
        #expect(round.isOver && round.remaining == 0)
    }

    /// Drag bubbles belong to the classic and timed modes: the joystick mode has neither them nor a goal.
    @Test func theJoystickModeHasNoDragBubbles() {
        for seed in UInt64(0)..<10 {
            let round = makeRound(seed: seed, mode: .joystick)
            #expect(round.goal == nil && !round.bubbles.contains { $0.kind == .drag })
            #expect(makeRound(seed: seed, mode: .timed).goal != nil)
        }
    }
}
