import KioskCore
@testable import KioskRender
import KioskTestSupport
import Testing

/// Items with only the background under them are copied from sprites flattened onto it, and
/// translucent bars on the bare background filled with one blended colour: a speed-up that
/// must not move a single channel of a single pixel.
@Suite struct FlatteningTests {
    /// Renders `scenes` in turn with flattening on and off, comparing every frame exactly.
    /// Returns the memory each renderer's sprites took by the end (flattened pixels count).
    @discardableResult
    static func expectSamePixels(_ scenes: [Scene], fullRedraws: Bool,
                                 sourceLocation: SourceLocation = #_sourceLocation) -> (on: Int, off: Int) {
        let on = SceneRenderer(size: scenes[0].size)
        let off = SceneRenderer(size: scenes[0].size)
        off.flattensBareItems = false
        for (i, scene) in scenes.enumerated() {
            if fullRedraws {
                on.invalidate()
                off.invalidate()
            }
            on.render(scene)
            off.render(scene)
            let diff = ImageDifference(on.frame, off.frame)
            #expect(diff.sameSize && diff.largestChannelDifference == 0, "frame \(i): \(diff.summary)",
                    sourceLocation: sourceLocation)
        }
        return (on.spriteBytes, off.spriteBytes)
    }

    @Test(arguments: [false, true])
    func aPopWithSparksAndAMovingFingerLooksTheSame(fullRedraws: Bool) {
        let sprites = Self.expectSamePixels(TestScenes.poppingField(), fullRedraws: fullRedraws)
        // Sprites were really flattened (their flattened pixels take memory of their own).
        #expect(sprites.on > sprites.off, "\(sprites)")
    }

    /// The kiosk's own screens: the start screen (buttons, texts), a round with its heads-up bar
    /// (translucent, 85%) and the ghost finger of the demo, at several moments.
    @Test func theKiosksScreensLookTheSame() throws {
        var s = makeSession(size: PixelSize(width: 800, height: 480), pxPerMM: 3.2, seed: 5)
        var builder = SceneBuilder(field: s.game.field, seed: 5)
        var scenes = [builder.scene(s, at: .zero)]
        let start = s.game.button.center
        let down = TouchFrame(time: TimeStamp(milliseconds: 100), contacts: [TouchPoint(slot: 0, trackingID: 1, position: start)])
        builder.note(s.process(down), round: s.game.round, at: down.time)
        let up = TouchFrame(time: TimeStamp(milliseconds: 150), contacts: [])
        builder.note(s.process(up), round: s.game.round, at: up.time)
        let round = try #require(s.game.round)
        var t = 400.0
        for b in round.bubbles.prefix(4) {
            let f = TouchFrame(time: TimeStamp(milliseconds: t), contacts: [TouchPoint(slot: 0, trackingID: Int(t), position: b.center)])
            builder.note(s.process(f), round: s.game.round, at: f.time)
            scenes.append(builder.scene(s, at: f.time))
            let lift = TouchFrame(time: TimeStamp(milliseconds: t + 40), contacts: [])
            builder.note(s.process(lift), round: s.game.round, at: lift.time)
            for frame in 1...6 { scenes.append(builder.scene(s, at: TimeStamp(milliseconds: t + 40 + Double(frame) * 16.7))) }
            t += 300
        }
        #expect(scenes.count == 29)
        Self.expectSamePixels(scenes, fullRedraws: false)
        Self.expectSamePixels(scenes, fullRedraws: true)
    }

    /// Bubbles packed so close that their boxes overlap at the corners (never their discs), a
    /// pair that does overlap, a text and sparks grazing them, a finger moving across: the
    /// bubbles whose boxes only graze others are copied too, and no pixel changes, whole or
    /// repainted in parts.
    @Test(arguments: [false, true])
    func packedBubblesLookTheSame(fullRedraws: Bool) {
        let size = PixelSize(width: 480, height: 320)
        var base: [SceneItem] = []
        for i in 0..<24 {
            // A hexagonal packing: neighbours' discs 3 px apart, diagonal boxes overlapping.
            let row = i / 6, column = i % 6
            let d = 60.0 + Double(i % 3)
            let p = Vector2(45 + Double(column) * 66 + Double(row % 2) * 33, 45 + Double(row) * 57.5)
            let content: BubbleContent = i % 3 == 0 ? .none : i % 3 == 1 ? .taps(1 + i % 4) : .arrow(degrees: Double(i * 29))
            base.append(TestScenes.bubble(i, at: p, diameter: d, color: i, content: content))
        }
        base.append(TestScenes.bubble(90, at: Vector2(440, 280), diameter: 50, color: 2))
        base.append(TestScenes.bubble(91, at: Vector2(470, 300), diameter: 40, color: 5))  // over 90
        base.append(SceneItem(id: .ui("label"), shape: .text(TextShape(position: Vector2(60, 84), string: "Packed 42", sizePx: 18))))
        var scenes: [Scene] = []
        var spray: ParticleSpray?
        for frame in 0..<12 {
            let now = TimeStamp(milliseconds: Double(frame) * 16.7)
            if frame == 2 {
                spray = ParticleSpray(id: 0, origin: Vector2(200, 150), color: .bubble(1), start: now,
                                      seed: 4, pxPerMM: TestScenes.pxPerMM, startRadius: 20)
            }
            var items = base + (spray?.particles(at: now) ?? [])
            items.append(TestScenes.finger(0, at: Vector2(30 + Double(frame) * 37, 160 + Double(frame % 3) * 11)))
            scenes.append(Scene(size: size, pxPerMM: TestScenes.pxPerMM, items: items))
        }
        Self.expectSamePixels(scenes, fullRedraws: fullRedraws)

        // A bubble whose box overlaps its neighbours' boxes below it is flattened as well.
        let renderer = SceneRenderer(size: size)
        renderer.render(scenes[0])
        guard case .bubble(let inner) = base[7].shape else { return }
        #expect(renderer.cache.sprite(SpriteCache.key(inner)).flat != nil)
    }

    /// The blended bar colour is what cairo gives blending it, for colours with awkward
    /// rounding (alpha near 0 and 1, channels at the ends).
    @Test func aTranslucentBarOnTheBareBackgroundIsTheBlendedColour() {
        let size = PixelSize(width: 64, height: 32)
        for (color, background) in [(RGBColor(hex: 0x0B_12_20, alpha: 0.85), RGBColor(hex: 0x12_1A_2E)),
                                    (RGBColor(hex: 0xFF_FF_FF, alpha: 0.004), RGBColor(hex: 0x00_00_00)),
                                    (RGBColor(hex: 0x01_80_FE, alpha: 0.999), RGBColor(hex: 0xFE_7F_01)),
                                    (RGBColor(hex: 0x7F_7F_7F, alpha: 0.5), RGBColor(hex: 0x80_80_80))] {
            let bar = SceneItem(id: .ui("bar"), shape: .panel(PanelShape(rect: Rect(x: 0, y: 0, width: 64, height: 20),
                                                                          color: color)))
            let scene = Scene(size: size, pxPerMM: 4, background: background, items: [bar])
            Self.expectSamePixels([scene], fullRedraws: true)
        }
    }
}
