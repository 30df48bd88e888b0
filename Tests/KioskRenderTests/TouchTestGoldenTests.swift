import KioskCore
import KioskRender
import Testing

/// The touch-test screen and the heatmap picture, drawn as the kiosk and the `touch-heatmap`
/// command draw them, against checked-in PNGs.
@Suite struct TouchTestGoldenTests {
    static let size = PixelSize(width: 800, height: 480)

    static func render(_ scene: Scene) -> Frame {
        let renderer = SceneRenderer(size: scene.size)
        renderer.render(scene)
        return renderer.frame
    }

    /// Two fingers down (one moving, with its trail; one with pressure, marked stuck), a swipe
    /// just done with its arrow, a double tap, a device listed, and a heatmap layer.
    static func touchTestScene() -> Scene {
        let transform = TouchTransform(native: size)
        var m = TouchTestModel(screen: size, transform: transform, pxPerMM: 3, gestures: GestureSettings(), at: .zero)
        let info = TouchDeviceInfo(name: "Goodix Capacitive TouchScreen", axes: [
            EventCode.ABS_MT_SLOT: AxisInfo(minimum: 0, maximum: 9),
            EventCode.ABS_MT_POSITION_X: AxisInfo(minimum: 0, maximum: 4095),
            EventCode.ABS_MT_POSITION_Y: AxisInfo(minimum: 0, maximum: 4095),
            EventCode.ABS_MT_PRESSURE: AxisInfo(minimum: 0, maximum: 255),
        ], keys: [EventCode.BTN_TOUCH])
        m.devices = [TouchTestDevice(index: 0, name: info.name, path: "/dev/input/event3", info: info)]
        func frame(_ ms: Double, _ points: [TouchPoint]) -> TouchFrame { TouchFrame(time: TimeStamp(milliseconds: ms), contacts: points) }
        // A double tap at the lower right.
        for (i, ms) in [0.0, 200].enumerated() {
            m.process(frame(ms, [TouchPoint(slot: 0, trackingID: 1 + i, position: Vector2(640, 330))]))
            m.process(frame(ms + 60, []))
        }
        // A swipe up and to the right.
        for i in 0...10 {
            m.process(frame(600 + Double(i) * 10, [TouchPoint(slot: 0, trackingID: 3, position: Vector2(120 + Double(i) * 14, 400 - Double(i) * 8))]))
        }
        m.process(frame(710, []))
        m.advance(to: TimeStamp(milliseconds: 740))
        // Two fingers down: one drawing an arc, one still with pressure.
        for i in 0...30 {
            let a = Double(i) * 6
            let p = Vector2(400, 250) + Angle.unitVector(degrees: a - 90) * 80
            m.process(frame(800 + Double(i) * 16, [TouchPoint(slot: 1, trackingID: 10, position: p),
                                                   TouchPoint(slot: 2, trackingID: 11, position: Vector2(700, 120), pressure: 87)]))
        }
        m.markStuck(device: 0, trackingID: 11)
        var heatmap = TouchHeatmap()
        for i in 0..<60 { heatmap.add(Vector2(380 + Double(i % 7) * 6, 240 + Double(i % 5) * 5), in: size) }
        for i in 0..<12 { heatmap.add(Vector2(60 + Double(i) * 55, 60), in: size) }
        return TouchTestScene.scene(m, heatmap: heatmap, timeout: .seconds(60), at: TimeStamp(milliseconds: 1300))
    }

    @Test func touchTestScreen() {
        let scene = Self.touchTestScene()
        Golden.check(Self.render(scene), named: "touch-test")
    }

    @Test func heatmapPicture() {
        var heatmap = TouchHeatmap()
        // A worn spot where the Start button is, a spread elsewhere, and a dead corner.
        for _ in 0..<200 { heatmap.add(Vector2(640, 450), in: PixelSize(width: 1280, height: 800)) }
        for i in 0..<400 {
            let x = Double((i * 37) % 1000) + 40, y = Double((i * 53) % 600) + 120
            heatmap.add(Vector2(x, y), in: PixelSize(width: 1280, height: 800))
        }
        let scene = TouchTestScene.heatmapScene(heatmap, size: PixelSize(width: 640, height: 400), pxPerMM: 2,
                                                title: "Touch heatmap, every day: /var/lib/bubble-kiosk/scores.db")
        Golden.check(Self.render(scene), named: "touch-heatmap")
    }

    /// Damage tracking with the new shapes: drawing frame after frame of a moving finger gives the
    /// same picture as drawing the last scene at once, so no trail or ring leaves pixels behind
    /// and the heatmap's cells repainted in damaged strips match the whole map.
    @Test func incrementalFramesMatchAFullRedraw() {
        let transform = TouchTransform(native: Self.size)
        var m = TouchTestModel(screen: Self.size, transform: transform, pxPerMM: 3, gestures: GestureSettings(), at: .zero)
        var heatmap = TouchHeatmap()
        for i in 0..<300 { heatmap.add(Vector2(Double((i * 97) % 800), Double((i * 61) % 480)), in: Self.size) }
        let renderer = SceneRenderer(size: Self.size)
        var last = TouchTestScene.scene(m, heatmap: heatmap, at: .zero)
        for i in 0...80 {
            let t = TimeStamp(milliseconds: Double(i) * 25)
            let p = Vector2(100 + Double(i) * 7, 100 + Double(i % 20) * 12)
            m.process(TouchFrame(time: t, contacts: i < 70 ? [TouchPoint(slot: 0, trackingID: 1, position: p)] : []))
            m.advance(to: t)
            last = TouchTestScene.scene(m, heatmap: heatmap, at: t)
            renderer.render(last)
        }
        let full = Self.render(last)
        let diff = ImageDifference(renderer.frame, full)
        #expect(diff.differingPixels == 0, "\(diff.summary)")
    }
}
