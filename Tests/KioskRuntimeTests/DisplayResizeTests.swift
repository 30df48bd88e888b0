import KioskCore
import KioskPlatform
import KioskRuntime
import Testing

/// A display that changes size while the kiosk runs (a desktop window resized), on virtual time.
@Suite struct DisplayResizeTests {
    /// The round in play is given up, the start screen is laid out and drawn for the new size,
    /// the status names it, and a touch at the new Start button starts a round laid out for it.
    @Test func aResizeLaysTheGameOutAgain() throws {
        let display = VirtualDisplay(size: PixelSize(width: 640, height: 400))
        let h = try RuntimeHarness(display: { _ in display })
        var events: [KioskEvent] = []
        h.runtime.observe { e, _ in events.append(e) }
        try h.run(ms: 100)
        h.startRound()
        #expect(h.runtime.session.game.screen == .playing(demo: false))
        let presented = display.presented
        display.resize(to: PixelSize(width: 500, height: 700))
        h.advance(ms: 50)
        let game = h.runtime.session.game
        #expect(game.field.size == PixelSize(width: 500, height: 700))
        #expect(game.screen == .start && game.round == nil)
        #expect(events.contains(.game(.roundAbandoned)))
        #expect(display.presented > presented, "drawn again at once")
        #expect(h.runtime.statusLine(h.now).contains("display=virtual:500x700"))
        #expect(h.logLines.contains { $0.hasPrefix("display virtual:500x700: now 500x700 at ") })
        // The whole new screen is drawn: the bottom row, beyond the old height, is not black.
        #expect(display.snapshot()[250, 699] == RGBColor.kioskBackground.xrgb)
        #expect(game.button.center.x == 250, "the Start button is centred on the new width")
        h.startRound()
        let round = try #require(h.runtime.session.game.round)
        #expect(round.field.size == PixelSize(width: 500, height: 700))
        #expect(round.bubbles.allSatisfy { round.field.area.contains($0.center) })
    }

    /// A window squeezed smaller than any play area (no desktop enforces SDL's minimum size):
    /// rounds still start and end, with no bubble to place.
    @Test func aTinyScreenStillPlays() throws {
        let display = VirtualDisplay(size: PixelSize(width: 640, height: 400))
        let h = try RuntimeHarness(display: { _ in display })
        try h.run(ms: 100)
        display.resize(to: PixelSize(width: 30, height: 20))
        h.advance(ms: 50)
        #expect(h.runtime.session.game.field.area.width <= 30)
        h.startRound()
        h.advance(ms: 1000)
        #expect(h.runtime.statusLine(h.now).contains("display=virtual:30x20"))
    }

    /// The same size again changes nothing: the round goes on.
    @Test func theSameSizeKeepsTheRound() throws {
        let display = VirtualDisplay(size: PixelSize(width: 640, height: 400))
        let h = try RuntimeHarness(display: { _ in display })
        try h.run(ms: 100)
        h.startRound()
        display.resize(to: PixelSize(width: 640, height: 400))
        h.advance(ms: 50)
        #expect(h.runtime.session.game.screen == .playing(demo: false))
    }

    /// The touch-test screen stays open, laid out for the new size.
    @Test func theTouchTestScreenFollowsTheSize() throws {
        let display = VirtualDisplay(size: PixelSize(width: 640, height: 400))
        let h = try RuntimeHarness(display: { _ in display })
        try h.run(ms: 100)
        h.runtime.openTouchTest(at: h.now)
        display.resize(to: PixelSize(width: 800, height: 600))
        h.advance(ms: 50)
        #expect(h.runtime.isTouchTestOpen)
        #expect(h.runtime.touchTestModel?.screen == PixelSize(width: 800, height: 600))
    }
}
