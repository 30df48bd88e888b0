import KioskCore
import Testing
import KioskTestSupport

/// The rendering model: particles, pops and damage tracking, all without a renderer.
@Suite struct RenderModelTests {
    let size = PixelSize(width: 800, height: 600)
    let origin = Vector2(400, 300)

    func spray(seed: UInt64, start: TimeStamp = .zero) -> ParticleSpray {
        ParticleSpray(id: 1, origin: origin, color: .bubble(0), start: start, seed: seed, pxPerMM: 4)
    }

    func bubble(_ id: Int, at p: Vector2, diameter: Double = 80, content: BubbleContent = .taps(2)) -> SceneItem {
        SceneItem(id: .bubble(id), shape: .bubble(BubbleShape(center: p, diameter: diameter, color: .bubble(id), content: content)))
    }

    func scene(_ items: [SceneItem]) -> Scene { Scene(size: size, pxPerMM: 4, items: items) }

    // MARK: Particles

    @Test func spraysFromTheSameSeedAreIdentical() {
        let t = TimeStamp(milliseconds: 250)
        #expect(spray(seed: 7).particles(at: t) == spray(seed: 7).particles(at: t))
        #expect(spray(seed: 7).particles(at: t) != spray(seed: 8).particles(at: t))
    }

    @Test func aSharedGeneratorGivesTheSameSprayAndAdvancesTheSameWay() {
        var g1 = SeededGenerator(seed: 99), g2 = SeededGenerator(seed: 99)
        let a = ParticleSpray(id: 0, origin: origin, color: .white, start: .zero, generator: &g1, pxPerMM: 4)
        let b = ParticleSpray(id: 0, origin: origin, color: .white, start: .zero, generator: &g2, pxPerMM: 4)
        #expect(a == b)
        #expect(g1.next() == g2.next())
    }

    @Test func thirtyParticlesFlyOutwardAndFadeWithinASecond() {
        let s = spray(seed: 3)
        #expect(s.particles(at: TimeStamp(milliseconds: -1)).isEmpty)
        let early = s.particles(at: TimeStamp(milliseconds: 16))
        let later = s.particles(at: TimeStamp(milliseconds: 300))
        #expect(early.count == 30)
        func spread(_ items: [SceneItem]) -> Double {
            items.reduce(0.0) { sum, item in
                guard case .particle(let p) = item.shape else { return sum }
                return sum + p.center.distance(to: origin)
            } / Double(max(items.count, 1))
        }
        #expect(spread(later) > spread(early) + 10)
        func opacity(_ items: [SceneItem]) -> Double {
            items.reduce(0.0) { sum, item in
                guard case .particle(let p) = item.shape else { return sum }
                return sum + p.opacity
            }
        }
        #expect(opacity(later) < opacity(early))
        #expect(!s.isFinished(at: TimeStamp(milliseconds: 999)))
        #expect(s.isFinished(at: TimeStamp(milliseconds: 1000)))
        #expect(s.particles(at: TimeStamp(milliseconds: 1000)).isEmpty)
    }

    @Test func particlesStayInsideTheSpraysMaximumBounds() {
        let s = spray(seed: 11)
        let box = s.maximumBounds
        for ms in stride(from: 0.0, to: 1000, by: 50) {
            for item in s.particles(at: TimeStamp(milliseconds: ms)) {
                #expect(box.contains(item.bounds), "particle at \(ms) ms leaves \(box)")
            }
        }
    }

    @Test func particleIdsAreStableAcrossFrames() {
        let s = spray(seed: 5)
        let a = s.particles(at: TimeStamp(milliseconds: 100)).map(\.id)
        let b = s.particles(at: TimeStamp(milliseconds: 120)).map(\.id)
        #expect(a.first == .particle(spray: 1, index: 0))
        #expect(Set(b).isSubset(of: Set(a)))
    }

    @Test func popSwellsAndFadesOverTwoHundredMilliseconds() {
        let pop = PopAnimation(start: TimeStamp(milliseconds: 1000))
        let b = BubbleShape(center: origin, diameter: 80, color: .bubble(2))
        #expect(pop.scale(at: TimeStamp(milliseconds: 1000)) == 1)
        #expect(pop.opacity(at: TimeStamp(milliseconds: 1000)) == 1)
        let mid = pop.apply(to: b, at: TimeStamp(milliseconds: 1100))
        #expect(mid != nil)
        #expect((mid?.scale ?? 0) > 1 && (mid?.scale ?? 2) < 1.3)
        #expect((mid?.opacity ?? 1) < 1 && (mid?.opacity ?? 0) > 0)
        #expect(abs(pop.scale(at: TimeStamp(milliseconds: 1199.9)) - 1.3) < 0.01)
        #expect(pop.apply(to: b, at: TimeStamp(milliseconds: 1200)) == nil)
    }

    // MARK: Damage

    @Test func theFirstFrameIsDamagedInFullAndAnIdenticalOneNotAtAll() {
        var tracker = DamageTracker()
        let s = scene([bubble(1, at: origin)])
        #expect(tracker.damage(for: s) == [s.screenRect])
        #expect(tracker.damage(for: s).isEmpty)
        #expect(tracker.damage(for: s).isEmpty)
    }

    @Test func anEmptySceneIsFullyDamagedOnceThenIdle() {
        var tracker = DamageTracker()
        #expect(tracker.damage(for: scene([])).count == 1)
        #expect(tracker.damage(for: scene([])).isEmpty)
    }

    @Test func aNewSizeOrBackgroundDamagesTheWholeScreen() {
        let s = scene([bubble(1, at: origin)])
        var other = s
        other.background = .black
        #expect(DamageTracker.damage(from: s, to: other) == [s.screenRect])
        var bigger = s
        bigger.size = PixelSize(width: 1024, height: 768)
        #expect(DamageTracker.damage(from: s, to: bigger) == [bigger.screenRect])
        var tracker = DamageTracker()
        _ = tracker.damage(for: s)
        tracker.invalidate()
        #expect(tracker.damage(for: s) == [s.screenRect])
    }

    @Test func aMovedItemDamagesItsOldAndNewPlaceOnly() {
        let a = bubble(1, at: Vector2(100, 100)), moved = bubble(1, at: Vector2(600, 400))
        let still = bubble(2, at: Vector2(400, 100))
        let damage = DamageTracker.damage(from: scene([a, still]), to: scene([moved, still]))
        let covered = damage.reduce(0) { $0 + $1.area }
        #expect(damage.contains { $0.contains(a.bounds) })
        #expect(damage.contains { $0.contains(moved.bounds) })
        #expect(!damage.contains { $0.intersects(still.bounds) })
        #expect(covered == a.bounds.area + moved.bounds.area)
    }

    @Test func addedAndRemovedItemsDamageTheirBounds() {
        let a = bubble(1, at: Vector2(100, 100)), b = bubble(2, at: Vector2(500, 400))
        #expect(DamageTracker.damage(from: scene([a]), to: scene([a, b])) == [b.bounds])
        #expect(DamageTracker.damage(from: scene([a, b]), to: scene([b])) == [a.bounds])
    }

    @Test func swappingTheOrderOfOverlappingItemsIsDamage() {
        let a = bubble(1, at: Vector2(300, 300)), b = bubble(2, at: Vector2(330, 300))
        let damage = DamageTracker.damage(from: scene([a, b]), to: scene([b, a]))
        #expect(!damage.isEmpty)
        #expect(damage.contains { $0.contains(a.bounds) || $0.contains(b.bounds) })
    }

    @Test func damageIsClippedToTheScreen() {
        let edge = bubble(1, at: Vector2(5, 5))
        let damage = DamageTracker.damage(from: scene([]), to: scene([edge]))
        #expect(damage == [PixelRect(x: 0, y: 0, width: edge.bounds.maxX, height: edge.bounds.maxY)])
        let offscreen = bubble(2, at: Vector2(-500, -500))
        #expect(DamageTracker.damage(from: scene([]), to: scene([offscreen])).isEmpty)
    }

    @Test func aSprayOfSmallRectanglesIsMergedIntoAFewBoxes() {
        let s = spray(seed: 21)
        let before = scene(s.particles(at: TimeStamp(milliseconds: 200)))
        let after = scene(s.particles(at: TimeStamp(milliseconds: 216)))
        let damage = DamageTracker.damage(from: before, to: after)
        #expect(!damage.isEmpty && damage.count <= 6, "\(damage.count) rectangles")
        let box = s.maximumBounds
        #expect(damage.allSatisfy { box.contains($0) })
    }

    /// The damage contract on seeded scene changes (moves, recolours, items added, removed,
    /// restacked, ids repeated): every pixel whose stack of covering items differs between the
    /// two scenes lies in the damage.
    @Test func damageCoversEveryPixelWhoseStackChanged() {
        var rng = SeededGenerator(seed: 0xDA_4A_6E)
        let size = PixelSize(width: 48, height: 40)
        func item(_ id: Int) -> SceneItem {
            SceneItem(id: id % 7 == 6 ? .ui("bar") : .bubble(id), shape: .panel(PanelShape(
                rect: Rect(x: Double(Int.random(in: -4...44, using: &rng)), y: Double(Int.random(in: -4...36, using: &rng)),
                           width: Double(Int.random(in: 1...14, using: &rng)), height: Double(Int.random(in: 1...14, using: &rng))),
                color: Int.random(in: 0...1, using: &rng) == 0 ? .white : .black)))
        }
        for round in 0..<400 {
            let old = (0..<Int.random(in: 0...14, using: &rng)).map { item($0) }
            var new = old
            for _ in 0..<Int.random(in: 0...4, using: &rng) {
                switch Int.random(in: 0...4, using: &rng) {
                case 0 where !new.isEmpty: new.remove(at: Int.random(in: 0..<new.count, using: &rng))
                case 1: new.insert(item(Int.random(in: 0...20, using: &rng)), at: Int.random(in: 0...new.count, using: &rng))
                case 2 where !new.isEmpty:
                    let k = Int.random(in: 0..<new.count, using: &rng)
                    new[k].shape = item(0).shape
                case 3 where new.count > 1: new.swapAt(Int.random(in: 0..<new.count, using: &rng), Int.random(in: 0..<new.count, using: &rng))
                default: break
                }
            }
            let a = Scene(size: size, pxPerMM: 4, items: old), b = Scene(size: size, pxPerMM: 4, items: new)
            let damage = DamageTracker.damage(from: a, to: b)
            var missed: [PixelRect] = []
            for y in 0..<size.height {
                for x in 0..<size.width {
                    let px = PixelRect(x: x, y: y, width: 1, height: 1)
                    let before = old.filter { $0.bounds.intersects(px) }, after = new.filter { $0.bounds.intersects(px) }
                    if before != after, !damage.contains(where: { $0.intersects(px) }) { missed.append(px) }
                }
            }
            #expect(missed.isEmpty, "round \(round): \(missed.prefix(3)) not damaged going from \(old) to \(new)")
        }
    }

    @Test func damageOverHalfTheScreenBecomesOneFullScreenRectangle() {
        let big = SceneItem(id: .ui("overlay"), shape: .panel(PanelShape(
            rect: Rect(x: 0, y: 0, width: 700, height: 500), color: RGBColor.black.withAlpha(0.5))))
        #expect(DamageTracker.damage(from: scene([]), to: scene([big])) == [scene([]).screenRect])
    }

    // MARK: Geometry and colour

    @Test func pixelRectsRoundOutwardsAndIntersect() {
        let r = PixelRect(enclosing: Rect(x: 1.5, y: 2.2, width: 3, height: 3))
        #expect(r == PixelRect(x: 1, y: 2, width: 4, height: 4))
        #expect(r.intersection(PixelRect(x: 4, y: 5, width: 10, height: 10)) == PixelRect(x: 4, y: 5, width: 1, height: 1))
        #expect(r.intersection(PixelRect(x: 5, y: 0, width: 2, height: 2)) == nil)
        #expect(r.union(PixelRect(x: 10, y: 10, width: 1, height: 1)) == PixelRect(x: 1, y: 2, width: 10, height: 9))
    }

    /// The sweep agrees with the definition (no earlier rectangle intersects, and which do) on
    /// seeded stacks of every density, empty rectangles and exact edge contacts among them.
    @Test func nothingBelowMatchesEveryEarlierRectangleChecked() {
        var rng = SeededGenerator(seed: 0xB0_77_0E)
        for round in 0..<300 {
            let count = Int.random(in: 0...60, using: &rng)
            let span = [40, 200, 1000][round % 3]
            let rects = (0..<count).map { _ in
                PixelRect(x: Int.random(in: -20...span, using: &rng), y: Int.random(in: -20...span, using: &rng),
                          width: Int.random(in: 0...80, using: &rng), height: Int.random(in: 0...80, using: &rng))
            }
            let expected = rects.indices.map { i in !rects[..<i].contains { $0.intersects(rects[i]) } }
            #expect(PixelRect.nothingBelow(inStack: rects) == expected, "round \(round): \(rects)")
            // And which ones, for the renderer's closer look.
            let overlaps = StackOverlaps(rects)
            for i in rects.indices {
                let below = rects.indices.filter { $0 < i && rects[$0].intersects(rects[i]) }
                #expect(overlaps.below(i).sorted() == below, "round \(round), rectangle \(i): \(rects)")
            }
        }
        let touching = [PixelRect(x: 0, y: 0, width: 10, height: 10), PixelRect(x: 10, y: 0, width: 10, height: 10),
                        PixelRect(x: 9, y: 9, width: 2, height: 2)]
        #expect(PixelRect.nothingBelow(inStack: touching) == [true, true, false])
    }

    @Test func boundsCoverTheDrawnShape() {
        let b = BubbleShape(center: Vector2(100.4, 50.6), diameter: 80, color: .white, scale: 1.3)
        #expect(b.bounds.contains(PixelRect(around: b.center, halfExtent: 80 * 1.3 / 2)))
        let t = TextShape(position: Vector2(200, 100), string: "Score 120", sizePx: 24, alignment: .right)
        #expect(t.bounds.maxX >= 200 && Double(t.bounds.x) < 200 - 9 * 24 * 0.6)
        #expect(t.bounds.y <= 100 - 24 && t.bounds.maxY >= 100 + 5)
    }

    /// Full-width characters (Chinese, Japanese, Korean) are 1 em: counted wider than Latin,
    /// so such text is not clipped; Latin and Arabic keep the Latin estimate.
    @Test func wideCharactersAreEstimatedWider() {
        /// The estimate in ems: the width less the half-em margin, over the size.
        func ems(_ s: String) -> Double { (TextShape(position: .zero, string: s, sizePx: 20).estimatedWidth - 10) / 20 }
        func near(_ a: Double, _ b: Double) -> Bool { abs(a - b) < 1e-9 }
        #expect(near(ems("もう一度遊ぶ"), 6 * 1.05))
        #expect(near(ems("다시 하기"), 4 * 1.05 + 0.85))
        #expect(near(ems("再玩一次！"), 5 * 1.05))
        #expect(near(ems("Play again"), 10 * 0.85))
        #expect(near(ems("جولة"), 4 * 0.85))
    }

    @Test func thePaletteWrapsAndConvertsToPixels() {
        #expect(RGBColor.bubble(0) == RGBColor.bubble(RGBColor.bubblePalette.count))
        #expect(RGBColor.bubble(-1) == RGBColor.bubblePalette.last)
        #expect(RGBColor(hex: 0x12_34_56).xrgb == 0x12_34_56)
        #expect(RGBColor.white.mixed(with: .black, amount: 1) == .black)
    }
}

@Suite struct FingerMarkerTests {
    /// The finger markers' ids in a scene with the session's contacts.
    static func fingerIDs(_ frames: [TouchFrame]) -> [SceneItemID] {
        var s = makeSession()
        for f in frames { _ = s.process(f) }
        var builder = SceneBuilder(field: s.game.field, seed: 1)
        return builder.scene(s, at: TimeStamp(milliseconds: 100)).items.map(\.id).filter {
            if case .finger = $0 { return true } else { return false }
        }
    }

    @Test func slotsOfDifferentDevicesNeverShareAnID() {
        // Once device*100+slot: device 0 slot 100 and device 1 slot 0 both made 200.
        let ids = Self.fingerIDs([
            TouchFrame(time: .zero, device: 0, contacts: [TouchPoint(slot: 100, trackingID: 1, position: Vector2(100, 100))]),
            TouchFrame(time: .zero, device: 1, contacts: [TouchPoint(slot: 0, trackingID: 1, position: Vector2(300, 300))]),
            TouchFrame(time: .zero, device: 1, contacts: [
                TouchPoint(slot: 0, trackingID: 1, position: Vector2(300, 300)),
                TouchPoint(slot: 255, trackingID: 2, position: Vector2(500, 300)),
            ]),
        ])
        #expect(ids.count == 3)
        #expect(Set(ids).count == 3)
        #expect(ids.contains(.finger(100, device: 0)) && ids.contains(.finger(0, device: 1)))
    }
}
