import KioskCore
import KioskRender
import Testing
import KioskTestSupport

/// The start screen offering every mode, and the joystick mode's round: the base, the knob
/// (held and released), the readout and the catcher, drawn as the kiosk draws them.
@Suite struct JoystickGoldenTests {
    static let size = ScreenGoldenTests.size

    static func session(_ configure: (inout Settings) -> Void = { _ in }) -> KioskSession {
        makeSession(size: size, pxPerMM: 2.5, seed: 21) {
            $0.attract.demo = false
            $0.modes.timed = true
            $0.modes.joystick = true
            configure(&$0)
        }
    }

    static func frame(_ s: inout KioskSession, _ builder: inout SceneBuilder, at ms: Double,
                      _ contacts: [TouchPoint]) {
        // As the loop does: time passes up to the frame, then the frame.
        let f = TouchFrame(time: TimeStamp(milliseconds: ms), contacts: contacts)
        builder.note(s.advance(to: f.time), round: s.game.round, at: f.time)
        builder.note(s.process(f), round: s.game.round, at: f.time)
    }

    @Test func startScreenWithAButtonPerMode() {
        let s = Self.session()
        var builder = SceneBuilder(field: s.game.field, seed: 21)
        #expect(s.game.modeButtons.map(\.mode) == [.classic, .timed, .joystick])
        Golden.check(ScreenGoldenTests.render(s, &builder, at: 100), named: "screen-start-modes")
    }

    @Test func eachButtonOnTheDrawnScreenStartsItsMode() {
        for mode in Round.Mode.allCases {
            var s = Self.session()
            var builder = SceneBuilder(field: s.game.field, seed: 21)
            let p = s.game.button(for: mode)!.center
            ScreenGoldenTests.tap(&s, p, at: 0, builder: &builder)
            #expect(s.game.round?.mode == mode)
        }
    }

    /// Starts a joystick round with the joystick's button.
    static func joystickRound() -> (KioskSession, SceneBuilder) {
        var s = Self.session()
        var builder = SceneBuilder(field: s.game.field, seed: 21)
        ScreenGoldenTests.tap(&s, s.game.button(for: .joystick)!.center, at: 0, builder: &builder)
        return (s, builder)
    }

    @Test func joystickHeldUpAndRight() throws {
        var (s, builder) = Self.joystickRound()
        let base = try #require(s.game.round?.joystick?.stick.base)
        // The finger goes down on the knob and slides up-right, past the base's edge.
        for i in 0...12 {
            let p = base + Vector2(1, -1) * (Double(i) * 8)
            Self.frame(&s, &builder, at: 1000 + Double(i) * 16, [TouchPoint(slot: 0, trackingID: 7, position: p)])
        }
        let held = try #require(s.game.round?.joystick)
        #expect(held.stick.readoutDegrees == 45)
        #expect(abs(held.stick.distance - held.stick.radius) < 1e-9)
        // 1.2 s of steering up-right at full speed.
        let p = base + Vector2(1, -1) * 96
        var t = 1200.0
        while t < 2400 {
            t += 16
            Self.frame(&s, &builder, at: t, [TouchPoint(slot: 0, trackingID: 7, position: p)])
        }
        let moved = try #require(s.game.round?.joystick?.catcher)
        #expect(moved.x > s.game.field.area.center.x && moved.y < s.game.field.area.center.y)
        Golden.check(ScreenGoldenTests.render(s, &builder, at: t), named: "screen-joystick-held")

        // Released: the knob is back in the centre and reads 0.
        Self.frame(&s, &builder, at: t + 16, [])
        let settled = TimeStamp(milliseconds: t + 100)
        builder.note(s.advance(to: settled), round: s.game.round, at: settled)
        let released = try #require(s.game.round?.joystick?.stick)
        #expect(released.knob == released.base && released.readout == "0°  0 px")
        Golden.check(ScreenGoldenTests.render(s, &builder, at: t + 100), named: "screen-joystick-released")
    }
}
