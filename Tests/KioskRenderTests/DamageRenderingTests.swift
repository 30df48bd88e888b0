import KioskCore
import KioskRender
import Testing

/// The renderer draws only what changed, and what it draws adds up to the full picture.
@Suite struct DamageRenderingTests {
    @Test func anIdleFrameHasNoDamageAndTouchesNoPixel() {
        let scene = TestScenes.field()
        let renderer = SceneRenderer(size: scene.size)
        #expect(renderer.render(scene) == [scene.screenRect])
        let before = TestScenes.checksum(renderer.frame)
        #expect(renderer.render(scene).isEmpty)
        #expect(renderer.render(scene).isEmpty)
        #expect(TestScenes.checksum(renderer.frame) == before)
    }

    @Test func aPopDamagesOnlyItsNeighbourhood() throws {
        var scene = TestScenes.field()
        let renderer = SceneRenderer(size: scene.size)
        renderer.render(scene)
        let index = try #require(scene.items.firstIndex { $0.id == .bubble(10) })
        guard case .bubble(let victim) = scene.items[index].shape else { Issue.record("not a bubble"); return }
        let start = TimeStamp(milliseconds: 0), now = TimeStamp(milliseconds: 80)
        let pop = PopAnimation(start: start)
        let spray = ParticleSpray(id: 0, origin: victim.center, color: victim.color, start: start, seed: 4,
                                  pxPerMM: TestScenes.pxPerMM, startRadius: victim.diameter * 0.35)
        scene.items[index].shape = .bubble(try #require(pop.apply(to: victim, at: now)))
        scene.items += spray.particles(at: now)

        let damage = renderer.render(scene)
        var swollen = victim
        swollen.scale = pop.maxScale
        let neighbourhood = swollen.bounds.union(spray.maximumBounds)
        #expect(!damage.isEmpty)
        #expect(damage.allSatisfy { neighbourhood.contains($0) }, "\(damage) not inside \(neighbourhood)")
        let area = damage.reduce(0) { $0 + $1.area }
        #expect(area <= neighbourhood.area)
        #expect(area * 20 < scene.size.width * scene.size.height, "a pop should damage under 5% of the screen")
    }

    @Test func aMovedFingerDamagesItsOldAndNewPlaces() {
        let base = TestScenes.field()
        var a = base, b = base
        let from = Vector2(300, 470), to = Vector2(700, 300)
        a.items.append(TestScenes.finger(0, at: from))
        b.items.append(TestScenes.finger(0, at: to))
        let renderer = SceneRenderer(size: base.size)
        renderer.render(a)
        let damage = renderer.render(b)
        let old = TestScenes.finger(0, at: from).bounds, new = TestScenes.finger(0, at: to).bounds
        #expect(damage.contains { $0.contains(old) })
        #expect(damage.contains { $0.contains(new) })
        #expect(damage.reduce(0) { $0 + $1.area } <= old.area + new.area)
    }

    /// A carried drag bubble repaints only where it and its shadow were and are, and the
    /// partial repaint leaves the picture a full repaint gives.
    @Test func aDraggedBubbleDamagesOnlyWhereItAndItsShadowWereAndAre() {
        let base = TestScenes.field()
        func carried(at p: Vector2) -> SceneItem {
            SceneItem(id: .bubble(99), shape: .bubble(BubbleShape(center: p, diameter: 100, color: .bubble(2),
                                                                  content: .grip, lift: 1)))
        }
        let from = Vector2(300, 470), to = Vector2(340, 455)
        var a = base, b = base
        a.items.append(carried(at: from))
        b.items.append(carried(at: to))
        let old = carried(at: from).bounds, new = carried(at: to).bounds
        guard case .bubble(let shape) = carried(at: to).shape, let shadow = shape.shadow else {
            Issue.record("a lifted bubble has a shadow"); return
        }
        #expect(new.contains(PixelRect(around: shadow.center, halfExtent: shadow.radius)), "the bounds hold the shadow")
        #expect(shape.drawnScale > 1)
        let renderer = SceneRenderer(size: base.size)
        renderer.render(a)
        let damage = renderer.render(b)
        let both = old.union(new)
        #expect(!damage.isEmpty && damage.allSatisfy { both.contains($0) })
        #expect(damage.reduce(0) { $0 + $1.area } <= old.area + new.area)
        let full = SceneRenderer(size: base.size)
        full.render(b)
        #expect(TestScenes.checksum(renderer.frame) == TestScenes.checksum(full.frame))
    }

    /// The heart of damage tracking: frame after frame of partial repaints must leave exactly
    /// the picture a full repaint of the last scene gives.
    @Test func partialRepaintsAddUpToAFullRepaint() {
        let scenes = TestScenes.poppingField()
        let incremental = SceneRenderer(size: scenes[0].size)
        for scene in scenes { incremental.render(scene) }
        let full = SceneRenderer(size: scenes[0].size)
        full.render(scenes[scenes.count - 1])
        let diff = ImageDifference(incremental.frame, full.frame)
        #expect(diff.differingPixels == 0 && diff.largestChannelDifference == 0, "\(diff.summary)")
    }

    @Test func spritesAreRenderedOncePerLook() {
        let looks = (0..<12).map { i in
            TestScenes.bubble(i, at: Vector2(60 + Double(i) * 70, 100), diameter: 60, color: i % 2, content: .taps(2))
        }
        let scene = Scene(size: PixelSize(width: 900, height: 300), pxPerMM: 4, items: looks)
        let renderer = SceneRenderer(size: scene.size)
        renderer.render(scene)
        #expect(renderer.spritesRendered == 2)
        var moved = scene
        for i in moved.items.indices {
            if case .bubble(var b) = moved.items[i].shape {
                b.center.y += 50
                moved.items[i].shape = .bubble(b)
            }
        }
        renderer.render(moved)
        #expect(renderer.spritesRendered == 2)
    }

    @Test func aSceneOfAnotherSizeGetsANewFrameAndAFullRepaint() {
        let renderer = SceneRenderer(size: PixelSize(width: 320, height: 200))
        renderer.render(Scene(size: PixelSize(width: 320, height: 200), pxPerMM: 4))
        let bigger = Scene(size: PixelSize(width: 640, height: 400), pxPerMM: 4)
        #expect(renderer.render(bigger) == [bigger.screenRect])
        #expect(renderer.frame.size == bigger.size)
    }

    @Test func copyingADamageRectangleCopiesExactlyThosePixels() {
        let scene = TestScenes.field()
        let renderer = SceneRenderer(size: scene.size)
        renderer.render(scene)
        let frame = renderer.frame
        let target = Frame(size: scene.size)
        let r = PixelRect(x: 30, y: 70, width: 90, height: 60)
        frame.copy(r, to: target.pixels, destinationStride: target.stride)
        #expect(target[r.x, r.y] == frame[r.x, r.y])
        #expect(target[r.maxX - 1, r.maxY - 1] == frame[r.maxX - 1, r.maxY - 1])
        #expect(target[r.maxX, r.y] == 0)
        #expect(target[r.x, r.y - 1] == 0)
    }
}
