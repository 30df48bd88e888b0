import Glibc
import KioskCore
import KioskRender
import KioskTestSupport
import Testing

/// What ends up in the pixels: colours, digits, arrows, text placement, the frame's layout.
@Suite struct RendererTests {
    let size = PixelSize(width: 200, height: 200)
    let centre = Vector2(100, 100)

    func render(_ items: [SceneItem]) -> Frame {
        let renderer = SceneRenderer(size: size)
        renderer.render(Scene(size: size, pxPerMM: TestScenes.pxPerMM, items: items))
        return renderer.frame
    }

    func bubble(_ content: BubbleContent) -> Frame {
        render([TestScenes.bubble(1, at: centre, diameter: 120, color: 0, content: content)])
    }

    @Test func theBubbleCentreHasTheBubbleColourAndTheCornerTheBackground() {
        let frame = bubble(.none)
        let p = frame[100, 100]
        let r = (p >> 16) & 0xFF, b = p & 0xFF
        #expect(b > 200 && r < 150, "centre pixel \(String(p, radix: 16)) is not the blue bubble")
        #expect(frame[3, 3] == RGBColor.kioskBackground.xrgb)
    }

    @Test func swipeBubblesShowAnArrowAndPlainOnesNothingWhite() {
        let area = PixelRect(x: 40, y: 40, width: 120, height: 120)
        let arrow = TestScenes.whitePixels(bubble(.arrow(degrees: 30)), in: area)
        let taps = TestScenes.whitePixels(bubble(.taps(3)), in: area)
        let plain = TestScenes.whitePixels(bubble(.none), in: area)
        #expect(arrow > 500, "only \(arrow) white pixels in a swipe bubble")
        #expect(taps > 300, "only \(taps) white pixels in a tap bubble")
        #expect(plain < 20, "\(plain) white pixels in a plain bubble")
    }

    @Test func aTapBubblesDigitIsCentredAndGrowsWithTheBubble() {
        /// The white pixels' count and the centre of their bounding box.
        func digit(diameter: Double) -> (count: Int, x: Double, y: Double) {
            let frame = render([TestScenes.bubble(1, at: centre, diameter: diameter, color: 0, content: .taps(8))])
            var n = 0, x0 = 200, x1 = 0, y0 = 200, y1 = 0
            for y in 0..<200 {
                for x in 0..<200 where TestScenes.whitePixels(frame, in: PixelRect(x: x, y: y, width: 1, height: 1)) == 1 {
                    n += 1
                    x0 = min(x0, x); x1 = max(x1, x); y0 = min(y0, y); y1 = max(y1, y)
                }
            }
            return (n, Double(x0 + x1 + 1) / 2, Double(y0 + y1 + 1) / 2)
        }
        let small = digit(diameter: 60), large = digit(diameter: 120)
        for d in [small, large] {
            #expect(abs(d.x - 100) <= 1.5 && abs(d.y - 100) <= 1.5, "digit centred at (\(d.x), \(d.y))")
        }
        // Twice the diameter, four times the ink (strokes and antialiased edges keep it rough).
        let ratio = Double(large.count) / Double(max(small.count, 1))
        #expect(ratio > 3 && ratio < 5.5, "\(small.count) then \(large.count) white pixels")
    }

    @Test func arrowsPointWhereTheAngleSays() {
        func white(_ f: Frame, _ dx: Int, _ dy: Int) -> Bool {
            TestScenes.whitePixels(f, in: PixelRect(x: 100 + dx, y: 100 + dy, width: 1, height: 1)) == 1
        }
        let right = bubble(.arrow(degrees: 0)), left = bubble(.arrow(degrees: 180)), down = bubble(.arrow(degrees: 90))
        // The head is wide near its base, where the shaft is narrow.
        #expect(white(right, 10, 12) && !white(right, -10, 12))
        #expect(white(left, -10, 12) && !white(left, 10, 12))
        #expect(white(down, 12, 10) && !white(down, 12, -10))
    }

    @Test func textIsPlacedByItsAlignment() {
        func text(_ alignment: TextAlignment) -> Frame {
            render([SceneItem(id: .ui("t"), shape: .text(TextShape(
                position: Vector2(100, 120), string: "88", sizePx: 40, alignment: alignment)))])
        }
        let band = { (x0: Int, x1: Int) in PixelRect(x: x0, y: 80, width: x1 - x0, height: 45) }
        let right = text(.right), left = text(.left), centred = text(.center)
        #expect(TestScenes.whitePixels(right, in: band(40, 101)) > 100)
        #expect(TestScenes.whitePixels(right, in: band(103, 200)) == 0)
        #expect(TestScenes.whitePixels(left, in: band(0, 98)) == 0)
        #expect(TestScenes.whitePixels(left, in: band(99, 160)) > 100)
        #expect(TestScenes.whitePixels(centred, in: band(55, 100)) > 50)
        #expect(TestScenes.whitePixels(centred, in: band(100, 145)) > 50)
    }

    @Test func theButtonIsACapsuleWithAWhiteTitle() {
        let frame = render([SceneItem(id: .ui("start"), shape: .button(ButtonShape(
            rect: Rect(x: 20, y: 70, width: 160, height: 60), title: "Start")))])
        #expect(TestScenes.whitePixels(frame, in: PixelRect(x: 40, y: 80, width: 120, height: 40)) > 150)
        // Rounded ends: the corner of the rectangle stays background.
        #expect(frame[21, 71] == RGBColor.kioskBackground.xrgb)
        let blue = frame[35, 100] & 0xFF
        #expect(blue > 200, "capsule body is not the accent blue")
    }

    @Test func oversizeShapesAreDrawnWithoutASprite() {
        let scene = Scene(size: PixelSize(width: 400, height: 300), pxPerMM: 4, items: [
            TestScenes.bubble(0, at: Vector2(200, 150), diameter: 1500, color: 0, content: .taps(1)),
        ])
        let renderer = SceneRenderer(size: scene.size)
        renderer.render(scene)
        #expect(renderer.spritesRendered == 0)
        #expect(renderer.frame[200, 20] & 0xFF > 200, "the bubble's blue is missing")
        #expect(TestScenes.whitePixels(renderer.frame, in: scene.screenRect) > 1000, "the digit is missing")
    }

    @Test func framesUseTheXRGB8888LayoutOfDumbBuffers() {
        let frame = Frame(size: PixelSize(width: 4, height: 2))
        frame.fill(RGBColor(hex: 0x12_34_56))
        let bytes = frame.pixels.assumingMemoryBound(to: UInt8.self)
        #expect([bytes[0], bytes[1], bytes[2]] == [0x56, 0x34, 0x12])
        #expect(frame.stride >= 16)
        #expect(frame[3, 1] == 0x12_34_56)
    }

    @Test func pngFilesRoundTrip() throws {
        let frame = TestScenes.field()
        let renderer = SceneRenderer(size: frame.size)
        renderer.render(frame)
        let path = "/tmp/bubble-kiosk-roundtrip-\(getpid()).png"
        writeFile(path, try PNGWriter.pngBytes(renderer.frame))
        defer { unlink(path) }
        let loaded = try PNGReader.readPNG(path)
        let diff = ImageDifference(renderer.frame, loaded)
        #expect(diff.largestChannelDifference == 0, "\(diff.summary)")
        #expect(throws: PNGError.self) { try PNGReader.readPNG("/nonexistent/bubble.png") }
    }

    /// The cached-sprite renderer and the draw-everything yardstick show the same picture
    /// (sprites snap to whole pixels, so edges may move by half a pixel).
    @Test func spriteAndNaiveRenderersAgree() {
        var scene = TestScenes.field()
        scene.items.append(TestScenes.finger(0, at: Vector2(480, 300)))
        scene.items.append(TestScenes.finger(1, at: Vector2(560, 320), ghost: true))
        scene.items.append(TestScenes.bubble(99, at: Vector2(800, 450), color: 5, content: .taps(2), scale: 1.2, opacity: 0.6))
        let spray = ParticleSpray(id: 0, origin: Vector2(300, 450), color: .bubble(2), start: .zero, seed: 2, pxPerMM: 4)
        scene.items += spray.particles(at: TimeStamp(milliseconds: 150))
        scene.items.append(SceneItem(id: .ui("start"), shape: .button(ButtonShape(
            rect: Rect(x: 380, y: 440, width: 200, height: 64), title: "Start"))))
        let fast = SceneRenderer(size: scene.size)
        fast.render(scene)
        let naive = NaiveRenderer(size: scene.size)
        naive.render(scene)
        let diff = ImageDifference(fast.frame, naive.frame)
        #expect(Double(diff.differingPixels) < Double(diff.totalPixels) * 0.01, "\(diff.summary)")
    }

    /// Frame-sized buffers come black from pages of their own and go back when freed; small ones
    /// and adopted memory keep the same layout as ordinary buffers.
    @Test func frameSizedBuffersComeBlackFromPagesOfTheirOwn() {
        for size in [PixelSize(width: 1920, height: 1080), PixelSize(width: 3840, height: 2160), PixelSize(width: 7, height: 3)] {
            let buffer = PixelMemory.blackBuffer(size: size, stride: size.width * 4 + 64)
            #expect(buffer.stride == size.width * 4 + 64 && buffer.byteCount == PixelBuffer.byteCount(size: size, stride: size.width * 4 + 64))
            let words = buffer.pixels.bindMemory(to: UInt32.self, capacity: buffer.byteCount / 4)
            var nonZero = 0
            for i in Swift.stride(from: 0, to: buffer.byteCount / 4, by: 97) where words[i] != 0 { nonZero += 1 }
            #expect(nonZero == 0, "\(size): \(nonZero) words not black")
            (buffer.pixels + (size.height - 1) * buffer.stride + (size.width - 1) * 4).storeBytes(of: 0x00FF_00FF, as: UInt32.self)
            #expect(buffer[size.width - 1, size.height - 1] == 0x00FF_00FF)
        }
        final class Returned: @unchecked Sendable { var bytes = 0 }
        let returned = Returned()
        do {
            let memory = UnsafeMutableRawPointer.allocate(byteCount: PixelBuffer.byteCount(size: PixelSize(width: 10, height: 4)), alignment: 64)
            memory.initializeMemory(as: UInt8.self, repeating: 0, count: 160)
            let adopted = PixelBuffer(size: PixelSize(width: 10, height: 4), zeroedPixels: memory) { p, n in
                returned.bytes = n
                p.deallocate()
            }
            #expect(adopted.stride == 40 && adopted[9, 3] == 0)
        }
        #expect(returned.bytes == 160, "the adopted memory was not given back")
    }

    /// A lifted drag bubble's shadow comes from a sprite blended at the shadow's opacity: around
    /// the bubble (where only the shadow is) within two levels of its gradient drawn with paths,
    /// at any lift and sub-pixel place, and there at all (darker than the background).
    @Test func theShadowSpriteIsThePictureOfItsGradient() throws {
        for (center, lift) in [(Vector2(200.3, 180.7), 1.0), (Vector2(150, 140.5), 0.4)] {
            let bubble = SceneItem(id: .bubble(1), shape: .bubble(BubbleShape(
                center: center, diameter: 110, color: .bubble(2), content: .grip, lift: lift)))
            let scene = Scene(size: PixelSize(width: 400, height: 400), pxPerMM: TestScenes.pxPerMM, items: [bubble])
            guard case .bubble(let b) = bubble.shape, let shadow = b.shadow else { Issue.record("no shadow"); continue }
            let fast = SceneRenderer(size: scene.size)
            fast.render(scene)
            let naive = NaiveRenderer(size: scene.size)
            naive.render(scene)
            // Below the bubble's disc, inside the shadow's: the shadow alone over the background.
            let bubbleRadius = 55 * b.drawnScale + 2
            var worst: UInt32 = 0, darkest: UInt32 = 0
            for y in 0..<400 {
                for x in 0..<400 {
                    let p = Vector2(Double(x) + 0.5, Double(y) + 0.5)
                    guard (p - center).length > bubbleRadius, (p - shadow.center).length < shadow.radius + shadow.blur else { continue }
                    let a = fast.frame[x, y], n = naive.frame[x, y], bg = RGBColor.kioskBackground.xrgb
                    for shift: UInt32 in [0, 8, 16] {
                        let ca = (a >> shift) & 0xFF, cn = (n >> shift) & 0xFF, cb = (bg >> shift) & 0xFF
                        worst = max(worst, ca > cn ? ca - cn : cn - ca)
                        darkest = max(darkest, cb > ca ? cb - ca : 0)
                    }
                }
            }
            #expect(worst <= 2, "lift \(lift): the sprite's shadow differs by \(worst) levels")
            #expect(darkest >= 8, "lift \(lift): no shadow to see (at most \(darkest) levels under the background)")
        }
    }

    /// The basket comes from a sprite, yet on the bare background it is the very picture its
    /// paths draw, at any sub-pixel position, lit or not; over something else, within two levels (translucent layers blended in another order round apart).
    @Test func theGoalSpriteIsThePictureOfItsPaths() {
        for (rect, active) in [(Rect(x: 100.25, y: 300.6, width: 171.3, height: 95.7), false),
                               (Rect(x: 40, y: 120, width: 96, height: 150.5), true)] {
            let goal = SceneItem(id: .ui("goal"), shape: .goal(GoalShape(rect: rect, active: active)))
            let bare = Scene(size: PixelSize(width: 480, height: 480), pxPerMM: TestScenes.pxPerMM, items: [goal])
            let covered = Scene(size: bare.size, pxPerMM: TestScenes.pxPerMM, items: [SceneItem(id: .ui("bar"), shape: .panel(
                PanelShape(rect: Rect(x: 0, y: 0, width: 480, height: 480), color: RGBColor.black.withAlpha(0.35))))] + [goal])
            for (scene, exact) in [(bare, true), (covered, false)] {
                let fast = SceneRenderer(size: scene.size)
                fast.render(scene)
                let naive = NaiveRenderer(size: scene.size)
                naive.render(scene)
                let diff = ImageDifference(fast.frame, naive.frame)
                #expect(diff.largestChannelDifference <= (exact ? 0 : 2), "\(rect) active \(active): \(diff.summary)")
            }
        }
    }
}
