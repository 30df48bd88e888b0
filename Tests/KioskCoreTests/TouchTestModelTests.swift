import KioskCore
import Testing

/// The touch-test screen's model and scene, on virtual time.
@Suite struct TouchTestModelTests {
    static let size = PixelSize(width: 800, height: 480)

    static func model(rotation: Int = 0, native: PixelSize = size) -> TouchTestModel {
        let transform = TouchTransform(native: native, rotation: rotation)
        return TouchTestModel(screen: transform.logical, transform: transform, pxPerMM: 4, gestures: GestureSettings(), at: .zero)
    }

    static func frame(_ ms: Double, _ points: [(slot: Int, id: Int, at: Vector2)], device: Int = 0) -> TouchFrame {
        TouchFrame(time: TimeStamp(milliseconds: ms), device: device,
                   contacts: points.map { TouchPoint(slot: $0.slot, trackingID: $0.id, position: $0.at) })
    }

    @Test func trailsKeepTheLastSecondOnly() {
        var m = Self.model()
        for i in 0...20 {
            m.process(Self.frame(Double(i) * 100, [(0, 1, Vector2(100 + Double(i) * 10, 200))]))
        }
        // At 2000 ms: points from 1000 ms exclusive to 2000 ms.
        let trail = m.recentTrails(at: TimeStamp(milliseconds: 2000))
        #expect(trail.count == 1)
        #expect(trail[0].points.map { ($0.time - .zero).inMilliseconds } == (11...20).map { Double($0) * 100 })
        // Lifted: the trail stays until its last point is a second old, then it is gone.
        m.process(Self.frame(2050, []))
        #expect(m.contacts.isEmpty)
        #expect(m.recentTrails(at: TimeStamp(milliseconds: 2900)).first?.points.count == 1)
        #expect(m.nextChange(at: TimeStamp(milliseconds: 2900)) == TimeStamp(milliseconds: 3000))
        m.advance(to: TimeStamp(milliseconds: 3000))
        #expect(m.trails.isEmpty)
    }

    @Test func aFingerHeldStillGrowsNoTrail() {
        var m = Self.model()
        for i in 0..<10 { m.process(Self.frame(Double(i) * 50, [(0, 1, Vector2(300, 300))])) }
        #expect(m.trails.first?.points.count == 1)
    }

    /// Taps with their counts, a long press and a swipe (not its drag end), in order; they fade
    /// after the hold time and leave the list.
    @Test func gesturesAreListedAndFade() {
        var m = Self.model()
        m.process(Self.frame(0, [(0, 1, Vector2(200, 200))]))
        m.process(Self.frame(60, []))
        m.process(Self.frame(200, [(0, 2, Vector2(202, 200))]))
        m.process(Self.frame(260, []))
        m.process(Self.frame(1000, [(1, 3, Vector2(500, 300))]))
        m.advance(to: TimeStamp(milliseconds: 1600))
        m.process(Self.frame(1700, []))
        // A swipe to the right: 120 px (30 mm) in 100 ms.
        for i in 0...10 { m.process(Self.frame(2000 + Double(i) * 10, [(2, 4, Vector2(300 + Double(i) * 12, 400))])) }
        m.process(Self.frame(2110, []))
        m.advance(to: TimeStamp(milliseconds: 2200))
        #expect(m.gestures.map(\.kind) == [.tap, .tap, .longPress, .swipe])
        #expect(m.gestures.prefix(2).map(\.count) == [1, 2])
        let swipe = m.gestures[3]
        #expect(abs(swipe.angleDegrees) < 1)
        #expect(swipe.speed > 1000)
        #expect(TouchTestModel.strength(of: swipe, at: TimeStamp(milliseconds: 3000)) == 1)
        #expect(TouchTestModel.strength(of: m.gestures[0], at: TimeStamp(milliseconds: 2560)) == 0.5)
        m.advance(to: TimeStamp(milliseconds: 3300))
        #expect(m.gestures.map(\.kind) == [.longPress, .swipe])
        m.advance(to: TimeStamp(milliseconds: 6000))
        #expect(m.gestures.isEmpty)
        #expect(m.nextChange(at: TimeStamp(milliseconds: 6000)) == nil)
    }

    @Test func panelPositionsComeFromTheRawFrameOrTheRotation() {
        // A 1280x800 panel turned 90 degrees: an 800x1280 game.
        var m = Self.model(rotation: 90, native: PixelSize(width: 1280, height: 800))
        #expect(m.screen == PixelSize(width: 800, height: 1280))
        let transform = m.transform
        let raw = Self.frame(0, [(0, 5, Vector2(1000, 100))])
        let game = transform.apply(raw)
        m.process(game, panel: raw)
        #expect(m.contacts.first?.panel == Vector2(1000, 100))
        #expect(m.contacts.first?.game == game.contacts[0].position)
        // At 90 the game's top edge runs down the panel's right side: game x is panel y, and
        // game y counts from the panel's right edge.
        #expect(game.contacts[0].position == Vector2(100, 280))
        // No raw frame: worked back from the rotation.
        m.process(Self.frame(10, [(1, 6, Vector2(100, 200))], device: 1))
        let back = m.contacts.first { $0.device == 1 }
        #expect(back?.panel == transform.panelPosition(ofGame: Vector2(100, 200)))
    }

    /// The labels say device, slot, id, both positions and the pressure, at every rotation, and
    /// stay on the screen near its edges.
    @Test(arguments: [0, 90, 180, 270])
    func labelsAtEveryRotation(rotation: Int) {
        let native = PixelSize(width: 1280, height: 800)
        var m = Self.model(rotation: rotation, native: native)
        let raw = TouchFrame(time: .zero, contacts: [TouchPoint(slot: 3, trackingID: 77, position: Vector2(1270, 790), pressure: 42)])
        let game = m.transform.apply(raw)
        m.process(game, panel: raw)
        let scene = TouchTestScene.scene(m, at: .zero)
        let texts = scene.items.compactMap { item -> TextShape? in
            guard case .ui(let name) = item.id, name.hasPrefix("tt-contact-0-3-label"), case .text(let t) = item.shape else { return nil }
            return t
        }
        let g = game.contacts[0].position
        #expect(texts.map(\.string) == ["dev 0  slot 3  id 77", "game \(Int(g.x.rounded())), \(Int(g.y.rounded()))",
                                        "panel 1270, 790", "pressure 42"])
        let screen = scene.screenRect
        for t in texts { #expect(screen.contains(t.bounds) || screen.intersection(t.bounds)?.area ?? 0 > t.bounds.area * 9 / 10, "\(t.string) at \(t.position)") }
        let header = scene.items.compactMap { item -> String? in
            guard case .ui("tt-header-1") = item.id, case .text(let t) = item.shape else { return nil }
            return t.string
        }
        #expect(header.first?.contains("rotation \(rotation)°") == true)
        #expect(header.first?.contains("panel 1280x800") == true)
    }

    @Test func stuckContactsAreDrawnInTheirOwnColour() {
        var m = Self.model()
        m.process(Self.frame(0, [(0, 1, Vector2(100, 100)), (1, 2, Vector2(400, 300))]))
        m.markStuck(device: 0, trackingID: 2)
        let scene = TouchTestScene.scene(m, at: .zero)
        func ringColor(_ slot: Int) -> RGBColor? {
            scene.items.first { $0.id == .ui("tt-contact-0-\(slot)-ring") }.flatMap {
                if case .polyline(let l) = $0.shape { l.color } else { nil }
            }
        }
        #expect(ringColor(1) == TouchTestScene.color(slot: 1, stuck: true))
        #expect(ringColor(0) == TouchTestScene.color(slot: 0, stuck: false))
        #expect(ringColor(0) != ringColor(1))
    }

    @Test func devicesAreListedWithTheirAxisRanges() {
        var m = Self.model()
        let info = TouchDeviceInfo(name: "Goodix Capacitive TouchScreen", axes: [
            EventCode.ABS_MT_SLOT: AxisInfo(minimum: 0, maximum: 9),
            EventCode.ABS_MT_POSITION_X: AxisInfo(minimum: 0, maximum: 1279, resolution: 5),
            EventCode.ABS_MT_POSITION_Y: AxisInfo(minimum: 0, maximum: 799),
            EventCode.ABS_MT_PRESSURE: AxisInfo(minimum: 0, maximum: 255),
        ], keys: [EventCode.BTN_TOUCH])
        m.devices = [TouchTestDevice(index: 0, name: info.name, path: "/dev/input/event3", info: info)]
        #expect(m.devices[0].summary
            == "device 0 \"Goodix Capacitive TouchScreen\" /dev/input/event3: x 0..1279 (5/mm), y 0..799, pressure 0..255, 10 slots")
        let strings = TouchTestScene.scene(m, at: .zero).items.compactMap { if case .text(let t) = $0.shape { t.string } else { nil } }
        #expect(strings.contains(m.devices[0].summary))
    }

    /// The grid: lines every 10 mm and the edge margin as a rectangle 2 mm in.
    @Test func theGridShowsTheEdgeMargin() {
        let scene = TouchTestScene.scene(Self.model(), at: .zero)
        let margin = scene.items.first { $0.id == .ui("tt-margin") }
        guard case .polyline(let l)? = margin?.shape else {
            Issue.record("no edge margin")
            return
        }
        #expect(l.points.first == Vector2(8, 8) && l.closed)
        let vertical = scene.items.filter { if case .ui(let n) = $0.id { n.hasPrefix("tt-grid-x") && !n.hasSuffix("mm") } else { false } }
        #expect(vertical.count == 19)  // 800 px at 4 px/mm: 200 mm, a line every 10 mm inside
    }
}
