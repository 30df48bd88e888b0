import KioskCore
import Testing

@Suite struct TouchHeatmapTests {
    @Test func binsNormalisedPositionsIncludingTheEdges() {
        let n = Double(TouchHeatmap.columns)
        #expect(TouchHeatmap.cell(normalized: Vector2(0, 0))! == (0, 0))
        #expect(TouchHeatmap.cell(normalized: Vector2(1, 1))! == (TouchHeatmap.columns - 1, TouchHeatmap.rows - 1))
        #expect(TouchHeatmap.cell(normalized: Vector2(1 / n, 0.5))! == (1, TouchHeatmap.rows / 2))
        #expect(TouchHeatmap.cell(normalized: Vector2(1 / n - 1e-9, 0))! == (0, 0))
        #expect(TouchHeatmap.cell(normalized: Vector2(0.999999, 0.0))!.column == TouchHeatmap.columns - 1)
    }

    @Test func outOfRangeAndBrokenPositionsAreNotCounted() {
        var map = TouchHeatmap()
        let size = PixelSize(width: 1280, height: 800)
        for p in [Vector2(-1, 10), Vector2(10, 801), Vector2(1281, 0), Vector2(.nan, 5), Vector2(5, .infinity)] {
            let added = map.add(p, in: size)
            #expect(!added, "\(p)")
        }
        let onNothing = map.add(Vector2(1, 1), in: PixelSize(width: 0, height: 0))
        #expect(!onNothing)
        #expect(map.isEmpty && map.total == 0)
        let corner = map.add(Vector2(1280, 800), in: size)
        #expect(corner)
        #expect(map[TouchHeatmap.columns - 1, TouchHeatmap.rows - 1] == 1)
        // Cells off the grid and negative counts (a damaged database) are ignored.
        map.add(column: -1, row: 0)
        map.add(column: 0, row: TouchHeatmap.rows)
        map.add(column: 3, row: 3, count: -5)
        #expect(map.total == 1)
        #expect(map[99, 99] == 0)
    }

    /// A batch is what a map counted since the last one: merged back onto it, the whole again.
    @Test func whatWasCountedSinceAnEarlierMap() {
        var map = TouchHeatmap()
        map.add(column: 1, row: 2, count: 3)
        let earlier = map
        map.add(column: 1, row: 2, count: 2)
        map.add(column: 5, row: 0)
        let batch = map.counted(since: earlier)
        #expect(batch.cells.map { [$0.column, $0.row, $0.count] } == [[5, 0, 1], [1, 2, 2]])
        var whole = earlier
        whole.merge(batch)
        #expect(whole == map)
        #expect(map.counted(since: map).isEmpty)
        #expect(earlier.counted(since: map).isEmpty, "a map it did not grow from: nothing")
    }

    @Test func countsMergeAndScale() {
        var a = TouchHeatmap(), b = TouchHeatmap()
        a.add(column: 2, row: 3, count: 4)
        b.add(column: 2, row: 3)
        b.add(column: 0, row: 0, count: 16)
        a.merge(b)
        #expect(a[2, 3] == 5 && a[0, 0] == 16 && a.total == 21 && a.maximum == 16)
        #expect(a.cells.map(\.count) == [16, 5])
        let i = a.intensities
        #expect(i[0] == 1)
        #expect(abs(i[3 * TouchHeatmap.columns + 2] - (5.0 / 16).squareRoot()) < 1e-12)
        #expect(i[1] == 0)
        #expect(TouchHeatmap().intensities.allSatisfy { $0 == 0 })
    }

    @Test func touchDownsAreNewTrackingIDsPerDevice() {
        var t = TouchDownTracker()
        func f(_ device: Int, _ ids: [Int]) -> TouchFrame {
            TouchFrame(time: .zero, device: device, contacts: ids.map { TouchPoint(slot: $0, trackingID: $0, position: .zero) })
        }
        #expect(t.newContacts(in: f(0, [1])).map(\.trackingID) == [1])
        #expect(t.newContacts(in: f(0, [1, 2])).map(\.trackingID) == [2])
        #expect(t.newContacts(in: f(1, [1])).map(\.trackingID) == [1])
        #expect(t.newContacts(in: f(0, [])).isEmpty)
        #expect(t.newContacts(in: f(0, [1])).map(\.trackingID) == [1])
        t.forget(device: 1)
        #expect(t.newContacts(in: f(1, [1])).map(\.trackingID) == [1])
    }
}
