import KioskCore
import Testing
import KioskTestSupport

/// The burn-in shift's orbit on virtual time, the scene it moves, and its setting.
@Suite struct PixelShiftTests {
    let step = PixelShift.stepInterval
    /// Some time well into a boot, not on a step's start.
    let t0 = TimeStamp(microseconds: 5_000_000_123)

    /// The offsets seen every `sample` for `span` from `start`.
    func offsets(_ shift: PixelShift, from start: TimeStamp, for span: Duration, every sample: Duration) -> [(TimeStamp, PixelOffset)] {
        var result: [(TimeStamp, PixelOffset)] = []
        var t = start
        while t < start + span {
            result.append((t, shift.offset(at: t)))
            t = t + sample
        }
        return result
    }

    @Test(arguments: [1.0, 3.2, 4.0, 6.0, 9.7, 40.0])
    func theOrbitStaysWithinItsReachAndVisitsNinePositions(pxPerMM: Double) {
        let shift = PixelShift(enabled: true, pxPerMM: pxPerMM)
        let reach = shift.reach
        #expect(PixelShift.reachPixels.contains(reach))
        #expect(reach == min(max(Int((0.5 * pxPerMM).rounded()), 2), 4))
        let seen = offsets(shift, from: t0, for: step * 9, every: .seconds(10)).map(\.1)
        #expect(seen.allSatisfy { abs($0.dx) <= reach && abs($0.dy) <= reach })
        // Every corner, edge middle and the centre of the square the orbit spans.
        #expect(Set(seen).count == 9)
        #expect(Set(seen.map(\.dx)) == [-reach, 0, reach])
        #expect(Set(seen.map(\.dy)) == [-reach, 0, reach])
    }

    @Test func theOffsetChangesOnlyAtSteps() throws {
        let shift = PixelShift(enabled: true, pxPerMM: 4)
        var t = t0
        for _ in 0..<30 {
            let next = try #require(shift.nextChange(after: t))
            #expect(next > t)
            #expect(next - t <= step)
            // Constant up to the step, different from it on; one step moves at most one reach.
            let before = shift.offset(at: next - .microseconds(1))
            #expect(shift.offset(at: t) == before)
            #expect(shift.offset(at: t + (next - t) / 2) == before)
            let after = shift.offset(at: next)
            #expect(after != before)
            #expect(abs(after.dx - before.dx) <= shift.reach && abs(after.dy - before.dy) <= shift.reach)
            // Steps are evenly spaced.
            #expect(shift.nextChange(after: next) == next + step)
            t = next + .seconds(7)
        }
    }

    @Test func theOrbitComesRoundAndDependsOnlyOnTheTime() {
        let shift = PixelShift(enabled: true, pxPerMM: 4)
        let a = offsets(shift, from: t0, for: step * 9, every: .seconds(30)).map(\.1)
        let b = offsets(shift, from: t0 + step * 9, for: step * 9, every: .seconds(30)).map(\.1)
        #expect(a == b)
        #expect(PixelShift(enabled: true, pxPerMM: 4).offset(at: t0 + step * 4) == shift.offset(at: t0 + step * 4))
    }

    @Test func offMeansZeroAndNoWakeUps() {
        let shift = PixelShift(enabled: false, pxPerMM: 4)
        #expect(offsets(shift, from: t0, for: step * 12, every: .seconds(20)).allSatisfy { $0.1 == .zero })
        #expect(shift.nextChange(after: t0) == nil)
        #expect(shift.nextChange(after: .zero) == nil)
    }

    @Test func nonsenseTimesAndDensitiesDoNotTrap() {
        let shift = PixelShift(enabled: true, pxPerMM: .nan)
        #expect(shift.reach == PixelShift.reachPixels.lowerBound)
        #expect(abs(shift.offset(at: TimeStamp(microseconds: .min)).dx) <= 2)
        #expect(abs(shift.offset(at: .distantFuture).dy) <= 2)
        #expect(shift.nextChange(after: .distantFuture) == nil)
        let before = TimeStamp(microseconds: -1)
        #expect(shift.nextChange(after: before) == .zero)
    }

    // MARK: the scene

    @Test func aShiftedSceneMovesEveryItemsBoundsByTheOffset() {
        let items: [SceneItem] = [
            SceneItem(id: .bubble(1), shape: .bubble(BubbleShape(center: Vector2(100, 120), diameter: 60, color: .bubble(1), lift: 0.5))),
            SceneItem(id: .particle(spray: 1, index: 0), shape: .particle(ParticleShape(center: Vector2(30, 40), radius: 3, color: .white))),
            SceneItem(id: .finger(0), shape: .finger(FingerShape(center: Vector2(200, 220), radius: 20))),
            SceneItem(id: .ui("button"), shape: .button(ButtonShape(rect: Rect(x: 10, y: 20, width: 300, height: 90), title: "Start"))),
            SceneItem(id: .ui("text"), shape: .text(TextShape(position: Vector2(50, 60), string: "Score", sizePx: 20))),
            SceneItem(id: .ui("bar"), shape: .panel(PanelShape(rect: Rect(x: 0, y: 0, width: 640, height: 40), color: .black))),
            SceneItem(id: .ui("goal"), shape: .goal(GoalShape(rect: Rect(x: 500, y: 300, width: 100, height: 60)))),
            SceneItem(id: .ui("line"), shape: .polyline(PolylineShape(points: [Vector2(1, 2), Vector2(300, 200)], color: .white, width: 2))),
            SceneItem(id: .ui("cells"), shape: .cells(CellGridShape(rect: Rect(x: 0, y: 50, width: 640, height: 300), columns: 2, rows: 1, values: [0, 1]))),
        ]
        let scene = Scene(size: PixelSize(width: 640, height: 400), pxPerMM: 4, items: items)
        let offset = PixelOffset(dx: -3, dy: 2)
        let moved = scene.shifted(by: offset)
        #expect(moved.size == scene.size && moved.background == scene.background)
        #expect(moved.items.map(\.id) == scene.items.map(\.id))
        for (a, b) in zip(scene.items, moved.items) {
            let r = a.bounds
            #expect(b.bounds == PixelRect(x: r.x + offset.dx, y: r.y + offset.dy, width: r.width, height: r.height), "\(a.id)")
        }
        #expect(scene.shifted(by: .zero) == scene)
        #expect(moved.shifted(by: -offset) == scene)
    }

    // MARK: the setting

    @Test func theSettingIsOnByDefaultAndAppliesOnReload() throws {
        #expect(Settings().display.pixelShift)
        #expect(loadConfig("[display]\npixel_shift = false\n").settings.display.pixelShift == false)
        let key = try #require(ConfigSchema.standard.key("display", "pixel_shift"))
        #expect(ReloadPolicy.effect(of: key) == .now)
        let bad = loadConfig("[display]\npixel_shift = sometimes\n")
        #expect(bad.hasErrors)
        #expect(bad.settings.display.pixelShift)
    }
}
