import KioskCore
import KioskPlatform
import KioskRuntime
import Testing

/// The burn-in shift in the live loop, on virtual time with the virtual display: the still start
/// screen moves, the game hears touches where its picture was, nothing wakes when it is off.
@Suite struct PixelShiftRuntimeTests {
    /// The start screen without the demo, and the button's hit area exactly its rectangle.
    static func settings(shift: Bool = true) -> Settings {
        var s = RuntimeHarness.quietSettings
        s.game.hitMarginMM = 0
        s.display.pixelShift = shift
        return s
    }

    /// The screen's pixels, row by row.
    func pixels(_ h: RuntimeHarness) -> [[UInt32]] {
        let shot = h.display.snapshot()
        return (0..<shot.height).map { y in (0..<shot.width).map { x in shot[x, y] } }
    }

    /// The policy the kiosk follows, from what it is laid out for.
    func policy(_ h: RuntimeHarness) -> PixelShift {
        PixelShift(enabled: true, pxPerMM: h.runtime.session.game.field.pxPerMM)
    }

    /// Runs on, a step at a time, until the picture is moved sideways (the test aims at the
    /// button's left or right edge); the offset then.
    func runToASidewaysOffset(_ h: RuntimeHarness) throws -> PixelOffset {
        let shift = policy(h)
        for _ in 0...9 {
            let offset = shift.offset(at: h.now)
            if offset.dx != 0 { return offset }
            let next = try #require(shift.nextChange(after: h.now))
            h.advance(ms: (next - h.now).inMilliseconds + 100)
        }
        Issue.record("no sideways offset in a whole orbit")
        return .zero
    }

    @Test func aStillStartScreenMovesWholeAndTouchFollowsToTheEdgePixel() throws {
        let h = try RuntimeHarness(settings: Self.settings())
        try h.run(ms: 100)
        #expect(h.runtime.onScreen == .game(.start))
        let first = policy(h).offset(at: h.now)
        let before = pixels(h)
        let offset = try runToASidewaysOffset(h)
        #expect(offset != first)
        let after = pixels(h)
        #expect(after != before)
        // The same picture, moved: every pixel the move keeps on screen, exactly.
        let d = PixelOffset(dx: offset.dx - first.dx, dy: offset.dy - first.dy)
        let w = before[0].count, ht = before.count
        var mismatches = 0
        for y in max(0, -d.dy)..<min(ht, ht - d.dy) {
            for x in max(0, -d.dx)..<min(w, w - d.dx) where after[y + d.dy][x + d.dx] != before[y][x] { mismatches += 1 }
        }
        #expect(mismatches == 0)
        // The edge the picture left shows the background (nothing stale), but where an item
        // reaching past the screen's edge moved in.
        let background = RGBColor.kioskBackground.xrgb
        let moved = h.kiosk.scene().shifted(by: offset).items.map(\.bounds)
        let uncovered = offset.dx > 0 ? 0..<offset.dx : (w + offset.dx)..<w
        let stale = uncovered.flatMap { x in
            (0..<ht).filter { y in
                after[y][x] != background && !moved.contains { $0.contains(PixelRect(x: x, y: y, width: 1, height: 1)) }
            }
        }
        #expect(stale.isEmpty)

        // The button drawn moved: a tap on its drawn edge pixel plays, one pixel beyond does not
        // (where the unmoved button would have taken it).
        let button = h.runtime.session.game.button
        let y = button.center.y + Double(offset.dy)
        let edge = offset.dx > 0 ? button.x + Double(offset.dx) : button.maxX + Double(offset.dx)
        let beyond = offset.dx > 0 ? edge - 1 : edge + 1
        #expect(button.contains(Vector2(beyond, button.center.y)))
        h.tap(h.panel(Vector2(beyond, y)))
        h.advance(ms: 100)
        #expect(h.runtime.session.game.screen == .start)
        h.tap(h.panel(Vector2(edge, y)), id: 2)
        h.advance(ms: 100)
        #expect(h.runtime.session.game.screen == .playing(demo: false))
    }

    @Test func eachStepDrawsOneFrameAndWakesOnce() throws {
        let h = try RuntimeHarness(settings: Self.settings())
        try h.run(ms: 100)
        let shift = policy(h)
        let next = try #require(shift.nextChange(after: h.now))
        // The loop's one wake-up for it: the frame timer, at the step.
        #expect(h.loop.armedTimers.first { $0.name == "frame" }?.deadline == next)
        let frames = h.runtime.frames, wakeups = h.loop.wakeups
        // Up to halfway through the third step after `next`: three steps.
        h.advance(ms: (next - h.now).inMilliseconds + (PixelShift.stepInterval * 2.5).inMilliseconds)
        #expect(h.runtime.frames == frames + 3)
        // The three steps, and the one iteration `advance` starts with.
        #expect(h.loop.wakeups - wakeups <= 3 + 1)
    }

    @Test func offNothingMovesAndNothingWakes() throws {
        let h = try RuntimeHarness(settings: Self.settings(shift: false))
        try h.run(ms: 100)
        let before = pixels(h)
        let frames = h.runtime.frames
        #expect(!h.loop.armedTimers.contains { $0.name == "frame" })
        h.advance(ms: (PixelShift.stepInterval * 10).inMilliseconds)
        #expect(h.runtime.frames == frames)
        #expect(pixels(h) == before)
        // A tap at the button's very edge still plays.
        let button = h.runtime.session.game.button
        h.tap(h.panel(Vector2(button.x, button.center.y)))
        h.advance(ms: 100)
        #expect(h.runtime.session.game.screen == .playing(demo: false))
    }

    @Test func theShiftNeitherKeepsTheDisplayAwakeNorCountsAsActivity() throws {
        var s = Self.settings()
        s.display.sleepAfterIdle = .seconds(10 * 60)
        let h = try RuntimeHarness(settings: s)
        try h.run(ms: 100)
        h.advance(ms: 10 * 60_000 - 1_000)
        #expect(!h.runtime.isAsleep)
        h.advance(ms: 2_000)
        #expect(h.runtime.isAsleep)
        // Asleep: no frame timer for the steps.
        let frames = h.runtime.frames
        h.advance(ms: (PixelShift.stepInterval * 4).inMilliseconds)
        #expect(h.runtime.frames == frames)
        #expect(!h.loop.armedTimers.contains { $0.name == "frame" })
    }

    /// The touch-test screen shows the panel's exact coordinates: drawn unmoved (pixel for pixel
    /// what a kiosk with the shift off shows at the same moment), its touches where they landed.
    @Test func theTouchTestScreenNeverMoves() throws {
        let shifted = try RuntimeHarness(settings: Self.settings())
        try shifted.run(ms: 100)
        let offset = try runToASidewaysOffset(shifted)
        #expect(offset != .zero)
        let still = try RuntimeHarness(settings: Self.settings(shift: false))
        try still.run(ms: (shifted.now - still.now).inMilliseconds)
        #expect(still.now == shifted.now)
        for h in [shifted, still] {
            h.runtime.openTouchTest(at: h.now)
            h.advance(ms: 50)
        }
        #expect(pixels(shifted) == pixels(still))
        let p = Vector2(123, 234)
        shifted.input.push(TouchFrame(time: shifted.now, contacts: [TouchPoint(slot: 0, trackingID: 9, position: p)]))
        shifted.advance(ms: 20)
        #expect(shifted.runtime.touchTestModel?.contacts.first?.game == p)
        shifted.input.push(TouchFrame(time: shifted.now, contacts: []))
        shifted.advance(ms: 20)
        // Closed again: the game's picture is moved as before, the unshifted one is not.
        still.advance(ms: (shifted.now - still.now).inMilliseconds)
        for h in [shifted, still] {
            h.runtime.closeTouchTest(at: h.now)
            h.advance(ms: 200)
        }
        #expect(still.now == shifted.now)
        #expect(shifted.runtime.session.game.screen == .start && still.runtime.session.game.screen == .start)
        #expect(pixels(shifted) != pixels(still))
    }

    @Test func aReloadTurnsItOffAtOnce() throws {
        let h = try RuntimeHarness(settings: Self.settings())
        try h.run(ms: 100)
        let offset = try runToASidewaysOffset(h)
        #expect(offset != .zero)
        h.config = ConfigResult(settings: Self.settings(shift: false))
        h.runtime.reload()
        h.advance(ms: 100)
        let button = h.runtime.session.game.button
        // Drawn where the game lays it out again: its unmoved edge plays.
        h.tap(h.panel(Vector2(button.x, button.center.y)))
        h.advance(ms: 100)
        #expect(h.runtime.session.game.screen == .playing(demo: false))
    }
}
