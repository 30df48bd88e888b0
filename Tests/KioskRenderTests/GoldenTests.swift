import KioskCore
import KioskRender
import Testing

/// Small pictures of each thing the kiosk draws, compared with checked-in PNGs.
@Suite struct GoldenTests {
    enum Sample: String, CaseIterable, CustomTestStringConvertible {
        case bubblePlain = "bubble-plain"
        case bubbleTaps = "bubble-taps"
        case bubbleArrow = "bubble-arrow"
        case bubblePopping = "bubble-popping"
        case buttonAndText = "button-and-text"
        case fingersAndParticles = "fingers-and-particles"

        var testDescription: String { rawValue }

        var scene: Scene {
            let square = PixelSize(width: 160, height: 160), c = Vector2(80, 80)
            switch self {
            case .bubblePlain:
                return Scene(size: square, pxPerMM: 4, items: [TestScenes.bubble(0, at: c, diameter: 120, color: 3)])
            case .bubbleTaps:
                return Scene(size: square, pxPerMM: 4, items: [
                    TestScenes.bubble(0, at: c, diameter: 120, color: 1, content: .taps(3)),
                ])
            case .bubbleArrow:
                return Scene(size: square, pxPerMM: 4, items: [
                    TestScenes.bubble(0, at: c, diameter: 120, color: 0, content: .arrow(degrees: -45)),
                ])
            case .bubblePopping:
                return Scene(size: square, pxPerMM: 4, items: [
                    TestScenes.bubble(0, at: c, diameter: 100, color: 4, content: .taps(1), scale: 1.2, opacity: 0.5),
                ])
            case .buttonAndText:
                let size = PixelSize(width: 360, height: 200)
                return Scene(size: size, pxPerMM: 4, items: [
                    SceneItem(id: .ui("bar"), shape: .panel(PanelShape(
                        rect: Rect(x: 0, y: 0, width: 360, height: 44), color: RGBColor.black.withAlpha(0.35)))),
                    SceneItem(id: .ui("score"), shape: .text(TextShape(
                        position: Vector2(12, 31), string: "Score 120", sizePx: 22))),
                    SceneItem(id: .ui("time"), shape: .text(TextShape(
                        position: Vector2(348, 31), string: "0:42", sizePx: 22, alignment: .right))),
                    SceneItem(id: .ui("start"), shape: .button(ButtonShape(
                        rect: Rect(x: 80, y: 90, width: 200, height: 70), title: "Start"))),
                ])
            case .fingersAndParticles:
                let size = PixelSize(width: 240, height: 160)
                let spray = ParticleSpray(id: 0, origin: Vector2(170, 80), color: .bubble(2), start: .zero,
                                          seed: 12, pxPerMM: 4, startRadius: 20)
                return Scene(size: size, pxPerMM: 4, items: [
                    TestScenes.finger(0, at: Vector2(50, 55)),
                    TestScenes.finger(1, at: Vector2(60, 115), ghost: true),
                ] + spray.particles(at: TimeStamp(milliseconds: 250)))
            }
        }
    }

    @Test(arguments: Sample.allCases)
    func matchesItsGoldenImage(_ sample: Sample) {
        let scene = sample.scene
        let renderer = SceneRenderer(size: scene.size)
        renderer.render(scene)
        Golden.check(renderer.frame, named: sample.rawValue)
    }

    /// The tolerance forgives antialiasing, not content: an arrow-less bubble must not pass
    /// for one with an arrow.
    @Test func theToleranceCatchesAMissingArrow() {
        func render(_ content: BubbleContent) -> Frame {
            let scene = Scene(size: PixelSize(width: 160, height: 160), pxPerMM: 4, items: [
                TestScenes.bubble(0, at: Vector2(80, 80), diameter: 120, color: 0, content: content),
            ])
            let renderer = SceneRenderer(size: scene.size)
            renderer.render(scene)
            return renderer.frame
        }
        #expect(!ImageDifference(render(.arrow(degrees: -45)), render(.none)).matches)
        #expect(!ImageDifference(render(.taps(1)), render(.none)).matches)
        #expect(!ImageDifference(render(.arrow(degrees: -45)), render(.arrow(degrees: 135))).matches)
        #expect(ImageDifference(render(.taps(2)), render(.taps(2))).matches)
    }
}
