import KioskCore
import KioskRender

/// The touch-test screen's frame cost: two fingers moving across it at 60 Hz with their trails,
/// the lines through them and their labels over the grid (drawn with paths, so heavier than
/// the game's sprites). The CPU time of `render` per frame, after a second of warm-up.
enum TouchTestBench {
    static func measure(size: PixelSize, frames: Int) -> Timing {
        let pxPerMM = 4.0
        var model = TouchTestModel(screen: size, transform: TouchTransform(native: size), pxPerMM: pxPerMM,
                                   gestures: GestureSettings(), at: .zero)
        var heatmap = TouchHeatmap()
        for i in 0..<500 { heatmap.add(Vector2(Double((i * 97) % size.width), Double((i * 61) % size.height)), in: size) }
        let renderer = SceneRenderer(size: size)
        var samples: [Double] = []
        samples.reserveCapacity(frames)
        let w = Double(size.width), h = Double(size.height)
        for i in 0..<(frames + 60) {
            let t = TimeStamp(milliseconds: Double(i) * 1000 / 60)
            let a = Double(i % 360) * 2
            let one = Vector2(w / 2, h / 2) + Angle.unitVector(degrees: a) * (min(w, h) * 0.3)
            let two = Vector2(Double(i * 7 % max(size.width, 1)), h * 0.7)
            model.process(TouchFrame(time: t, contacts: [TouchPoint(slot: 0, trackingID: 1, position: one, pressure: 80),
                                                         TouchPoint(slot: 1, trackingID: 2, position: two)]))
            model.advance(to: t)
            let scene = TouchTestScene.scene(model, heatmap: heatmap, timeout: .seconds(60), at: t)
            var timer = CPUTimer()
            timer.start()
            renderer.render(scene)
            timer.stop()
            if i >= 60 { samples.append(timer.elapsedMS) }
        }
        return Timing(samples)
    }
}
