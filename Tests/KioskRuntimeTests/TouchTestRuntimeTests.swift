import KioskCore
import KioskPlatform
import KioskRuntime
import Testing

/// The touch-test screen in the running kiosk, on virtual time: opening and closing, the
/// timeout, and that the game gets no touch meanwhile.
@Suite struct TouchTestRuntimeTests {
    static func harness(options: KioskRuntime.Options = KioskRuntime.Options()) throws -> (RuntimeHarness, EventLog) {
        let h = try RuntimeHarness(options: options)
        let events = EventLog()
        h.runtime.observe { e, _ in events.all.append(e) }
        return (h, events)
    }

    final class EventLog { var all: [KioskEvent] = [] }

    @Test func opensAndClosesWithLogLinesEventsAndStatus() throws {
        let (h, events) = try Self.harness()
        try h.run(ms: 100)
        #expect(!h.runtime.isTouchTestOpen)
        h.runtime.openTouchTest(at: h.now)
        h.advance(ms: 50)
        #expect(h.runtime.isTouchTestOpen)
        #expect(h.runtime.serviceStatus == "touch test")
        #expect(h.runtime.statusLine(h.now).contains("screen=touch-test"))
        #expect(h.logLines.contains { $0.hasPrefix("touch test open") })
        #expect(events.all.contains(.touchTest(open: true)))
        // What is on the screen is the touch-test screen: its dark background, not the game's.
        let corner = h.display.snapshot()
        #expect(corner[3, 300] == 0x0B_12_20, "pixel \(String(corner[3, 300], radix: 16))")
        h.runtime.closeTouchTest(at: h.now)
        h.advance(ms: 50)
        #expect(!h.runtime.isTouchTestOpen)
        #expect(h.runtime.serviceStatus == "start screen")
        #expect(events.all.contains(.touchTest(open: false)))
        #expect(h.logLines.contains("touch test closed"))
        #expect(h.display.snapshot()[3, 300] == RGBColor.kioskBackground.xrgb)
        h.runtime.toggleTouchTest(at: h.now)
        #expect(h.runtime.isTouchTestOpen)
        h.runtime.toggleTouchTest(at: h.now)
        #expect(!h.runtime.isTouchTestOpen)
    }

    /// While it is open a tap on Start starts no round; the screen shows the tap instead.
    @Test func aTapWhileOpenReachesTheScreenNotTheGame() throws {
        let (h, events) = try Self.harness()
        try h.run(ms: 100)
        h.runtime.openTouchTest(at: h.now)
        let start = h.runtime.session.game.button.center
        h.input.push(TouchFrame(time: h.now, contacts: [TouchPoint(slot: 2, trackingID: 40, position: start, pressure: 71)]))
        h.advance(ms: 20)
        let contact = try #require(h.runtime.touchTestModel?.contacts.first)
        #expect(contact.slot == 2 && contact.trackingID == 40 && contact.pressure == 71 && contact.game == start)
        h.input.push(TouchFrame(time: h.now, contacts: []))
        h.advance(ms: 100)
        #expect(h.runtime.session.game.screen == .start)
        #expect(h.runtime.session.game.round == nil)
        #expect(h.runtime.touchTestModel?.gestures.map(\.kind) == [.tap])
        #expect(!events.all.contains { if case .game = $0 { true } else { false } })
        // Touch-test touches are not play: no heatmap count, no touch event for the metrics.
        #expect(h.runtime.touchHeatmap.total == 0)
        #expect(!events.all.contains { if case .touch = $0 { true } else { false } })
    }

    /// Opening it mid-round gives the round up to the start screen; a bubble tapped meanwhile
    /// stays as it was (there is no round).
    @Test func openingAbandonsTheRoundInPlay() throws {
        let (h, events) = try Self.harness()
        try h.run(ms: 100)
        h.startRound()
        #expect(h.runtime.session.game.screen == .playing(demo: false))
        h.runtime.openTouchTest(at: h.now)
        #expect(h.runtime.session.game.screen == .start)
        #expect(h.runtime.session.game.round == nil)
        #expect(events.all.contains(.game(.roundAbandoned)))
        #expect(events.all.last == .touchTest(open: true))
    }

    /// It closes after `[operator] touch_test_timeout_s` without a touch; each touch restarts
    /// the wait. The loop sleeps meanwhile: the timer wakes it.
    @Test func closesAfterTheTimeoutWithoutATouch() throws {
        var settings = RuntimeHarness.quietSettings
        settings.operator.touchTestTimeout = .seconds(30)
        let h = try RuntimeHarness(settings: settings)
        try h.run(ms: 100)
        h.runtime.openTouchTest(at: h.now)
        h.advance(ms: 25_000)
        #expect(h.runtime.isTouchTestOpen)
        h.tap(Vector2(100, 100))
        h.advance(ms: 25_000)
        #expect(h.runtime.isTouchTestOpen)
        let wakeups = h.loop.wakeups
        h.advance(ms: 6_000)
        #expect(!h.runtime.isTouchTestOpen)
        #expect(h.logLines.contains("touch test closed: no touch for 30 s"))
        #expect(h.loop.wakeups - wakeups < 10, "\(h.loop.wakeups - wakeups) wake-ups")
        #expect(h.runtime.session.game.screen == .start)
    }

    /// Fingers still down when it closes (the gesture that closed it) do nothing to the game
    /// when they lift: no tap on Start.
    @Test func fingersDownAtTheCloseDoNotTapTheGame() throws {
        let (h, _) = try Self.harness()
        try h.run(ms: 100)
        h.runtime.openTouchTest(at: h.now)
        let start = h.runtime.session.game.button.center
        h.input.push(TouchFrame(time: h.now, contacts: [TouchPoint(slot: 0, trackingID: 3, position: start)]))
        h.advance(ms: 30)
        h.runtime.closeTouchTest(at: h.now)
        h.input.push(TouchFrame(time: h.now, contacts: [TouchPoint(slot: 0, trackingID: 3, position: start)]))
        h.advance(ms: 30)
        h.input.push(TouchFrame(time: h.now, contacts: []))
        h.advance(ms: 100)
        #expect(h.runtime.session.game.screen == .start)
        // A new tap works as always.
        h.startRound()
        #expect(h.runtime.session.game.screen == .playing(demo: false))
    }

    /// A reload's `[gestures]` and calibration reach the open screen: it tells gestures and
    /// maps the panel as the game now does.
    @Test func aReloadGivesTheOpenScreenTheNewGestureThresholds() throws {
        let (h, _) = try Self.harness()
        try h.run(ms: 100)
        h.runtime.openTouchTest(at: h.now)
        let before = try #require(h.runtime.touchTestModel?.thresholds)
        var settings = h.config.settings
        settings.gestures.longPress = .milliseconds(900)
        settings.gestures.tapSlopMM = 6
        settings.input.calibration = [-1, 0, 1, 0, 1, 0]  // mirrored left to right
        h.config = ConfigResult(settings: settings)
        h.runtime.reload()
        let after = try #require(h.runtime.touchTestModel?.thresholds)
        #expect(after.longPress == .milliseconds(900) && before.longPress == .milliseconds(500))
        #expect(after.tapSlop == 2 * before.tapSlop)
        let transform = try #require(h.runtime.touchTestModel?.transform)
        #expect(transform.apply(TouchFrame(time: h.now, contacts: [TouchPoint(slot: 0, trackingID: 1, position: Vector2(100, 50))]))
                    .contacts.first.map { $0.position.x.rounded() } == 540, "the mirror maps x 100 to 540 of 640")
    }

    /// Opening the screen lets go of a held touch (the screen takes every frame, the lifts too),
    /// so the first touch after it closes plays.
    @Test func openingItLetsGoOfAHeldTouch() throws {
        let (h, _) = try Self.harness()
        try h.run(ms: 100)
        let start = h.runtime.session.game.button.center
        h.runtime.openTouchTest(at: h.now)
        h.input.push(TouchFrame(time: h.now, contacts: [TouchPoint(slot: 0, trackingID: 3, position: start)]))
        h.advance(ms: 30)
        h.runtime.closeTouchTest(at: h.now)
        #expect(h.runtime.touchHold.isHolding)
        h.runtime.openTouchTest(at: h.now)
        #expect(!h.runtime.touchHold.isHolding)
        h.input.push(TouchFrame(time: h.now, contacts: []))
        h.advance(ms: 30)
        h.runtime.closeTouchTest(at: h.now)
        #expect(!h.runtime.touchHold.isHolding)
        h.startRound()
        #expect(h.runtime.session.game.screen == .playing(demo: false))
    }

    /// `run --touch-test`: open from the first frame.
    @Test func theOptionOpensItAtStart() throws {
        var options = KioskRuntime.Options()
        options.touchTest = true
        let (h, events) = try Self.harness(options: options)
        try h.run(ms: 100)
        #expect(h.runtime.isTouchTestOpen)
        #expect(events.all.first == .touchTest(open: true))
        #expect(h.runtime.touchTestModel?.screen == PixelSize(width: 640, height: 400))
    }

    /// Touches of play go into the heatmap since start, one per contact that went down.
    @Test func playTouchesFillTheHeatmap() throws {
        let (h, _) = try Self.harness()
        try h.run(ms: 100)
        h.tap(Vector2(10, 10), id: 1)
        h.tap(Vector2(630, 390), id: 2)
        h.input.push(TouchFrame(time: h.now, contacts: [TouchPoint(slot: 0, trackingID: 3, position: Vector2(320, 200))]))
        h.advance(ms: 20)
        h.input.push(TouchFrame(time: h.now, contacts: [TouchPoint(slot: 0, trackingID: 3, position: Vector2(322, 200))]))
        h.advance(ms: 20)
        let map = h.runtime.touchHeatmap
        #expect(map.total == 3)
        #expect(map[0, 0] == 1 && map[TouchHeatmap.columns - 1, TouchHeatmap.rows - 1] == 1)
        #expect(map[TouchHeatmap.columns / 2, TouchHeatmap.rows / 2] == 1)
    }

    /// The stuck-touch filter's mark shows on the contact until it lifts.
    @Test func aContactMarkedStuckStaysMarkedUntilItLifts() throws {
        let (h, _) = try Self.harness()
        try h.run(ms: 100)
        h.runtime.openTouchTest(at: h.now)
        h.input.push(TouchFrame(time: h.now, contacts: [TouchPoint(slot: 1, trackingID: 8, position: Vector2(50, 60))]))
        h.advance(ms: 20)
        h.runtime.markTouchTestStuck(device: 0, trackingID: 8)
        #expect(h.runtime.touchTestModel?.contacts.first?.stuck == true)
        h.input.push(TouchFrame(time: h.now, contacts: [TouchPoint(slot: 1, trackingID: 8, position: Vector2(51, 60))]))
        h.advance(ms: 20)
        #expect(h.runtime.touchTestModel?.contacts.first?.stuck == true)
        h.input.push(TouchFrame(time: h.now, contacts: []))
        h.input.push(TouchFrame(time: h.now, contacts: [TouchPoint(slot: 1, trackingID: 9, position: Vector2(51, 60))]))
        h.advance(ms: 20)
        #expect(h.runtime.touchTestModel?.contacts.first?.stuck == false)
    }
}
