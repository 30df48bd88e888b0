import Testing
@testable import KioskCore
import KioskTestSupport

/// Gestures from the recordings kept as fixtures (hand-written in the formats real devices
/// produce), on a 1280x800 screen at 4 px/mm.
@Suite struct GestureFixtureTests {
    func gestures(_ name: String) throws -> [Gesture] {
        let recording = try EvemuRecording.parse(Fixture.text(name), file: name)
        var out: [Gesture] = []
        Replay.gestures(of: recording, screen: PixelSize(width: 1280, height: 800),
                        thresholds: GestureThresholds(GestureSettings(), pxPerMM: 4)) { out.append($0) }
        return out.filter { $0.kind != .dragMove }
    }

    @Test func protocolBTwoFingersTapIndependently() throws {
        let g = try gestures("protocol-b-two-fingers.evemu")
        #expect(g.map(\.kind) == [.tap, .tap, .tap])
        #expect(g.map(\.slot) == [0, 1, 1])
        #expect(g.map(\.count) == [1, 1, 2], "the second finger tapped twice in the same place")
        #expect(g[0].position == Vector2(410, 300))
    }

    @Test func format11Loads() throws {
        #expect(try gestures("format-1.1.evemu").map(\.kind) == [.tap])
    }

    @Test func protocolAWithTrackingIDsKeepsCrossingFingersApart() throws {
        let g = try gestures("protocol-a-tracking-ids.evemu")
        // A drag's end waits out the bounce time (25 ms) after its lift, so the tap of the
        // finger that lifted 20 ms after the first drag's finger comes before it.
        #expect(g.map(\.kind) == [.dragStart, .dragStart, .tap, .dragEnd, .swipe, .dragEnd, .swipe])
        // The two fingers crossed: one swiped right, the other left.
        let swipes = g.filter { $0.kind == .swipe }
        #expect(swipes.count == 2)
        #expect(Angle.difference(swipes[0].angleDegrees, 0) < 5)
        #expect(Angle.difference(swipes[1].angleDegrees, 180) < 5)
        #expect(swipes[0].slot != swipes[1].slot)
    }

    @Test func protocolAEndingWithBtnTouchLeavesNoStuckTouch() throws {
        let g = try gestures("protocol-a-btn-touch-release.evemu")
        #expect(g.map(\.kind) == [.dragStart, .tap, .dragEnd, .tap])
        // Every contact that went down came up: as many ends as starts.
        let downs = g.filter { $0.kind == .dragStart || $0.kind == .tap }.count
        let ups = g.filter { $0.kind == .dragEnd || $0.kind == .tap }.count
        #expect(downs == 3 && ups == 3)
    }

    @Test func singleTouchSwipes() throws {
        let g = try gestures("single-touch.evemu")
        #expect(g.map(\.kind) == [.dragStart, .dragEnd, .swipe, .dragStart, .dragEnd, .swipe])
        #expect(Angle.difference(g[2].angleDegrees, 0) < 1)
        #expect(Angle.difference(g[5].angleDegrees, 90) < 1)
    }

    @Test func pressAndReleaseInOneFrameIsATap() throws {
        let g = try gestures("single-touch-press-release-one-frame.evemu")
        #expect(g.map(\.kind) == [.tap, .tap])
        #expect(g[0].position == Vector2(640, 400))
    }

    @Test func absolutePointerClicksAreTaps() throws {
        #expect(try gestures("qemu-usb-tablet.evemu").map(\.kind) == [.tap])
    }

    @Test func synDroppedCancelsAndTheNextTouchWorks() throws {
        let g = try gestures("protocol-b-syn-dropped.evemu")
        #expect(g.map(\.kind) == [.dragStart, .cancel, .tap])
    }
}
