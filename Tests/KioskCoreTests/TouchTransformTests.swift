import Testing
@testable import KioskCore

@Suite struct TouchTransformTests {
    let panel = PixelSize(width: 1280, height: 800)

    @Test func identityLeavesPointsAlone() {
        let t = TouchTransform(native: panel)
        #expect(t.apply(Vector2(100, 700)) == Vector2(100, 700))
        #expect(t.logical == panel)
    }

    @Test(arguments: [
        // (rotation, panel point, game point): the panel's corners in a game 800 wide at 90/270.
        (90, Vector2(1280, 0), Vector2(0, 0)),     // the game's top-left sits at the panel's top-right
        (90, Vector2(0, 0), Vector2(0, 1280)),
        (90, Vector2(1280, 800), Vector2(800, 0)),
        (180, Vector2(0, 0), Vector2(1280, 800)),
        (180, Vector2(320, 200), Vector2(960, 600)),
        (270, Vector2(0, 800), Vector2(0, 0)),     // the game's top-left at the panel's bottom-left
        (270, Vector2(1280, 800), Vector2(0, 1280)),
    ])
    func rotationsFollowThePicture(rotation: Int, panelPoint: Vector2, gamePoint: Vector2) {
        let t = TouchTransform(native: panel, rotation: rotation)
        let g = t.apply(panelPoint)
        #expect(abs(g.x - gamePoint.x) < 1e-9 && abs(g.y - gamePoint.y) < 1e-9, "\(rotation): \(g)")
        let back = t.panelPosition(ofGame: gamePoint)
        #expect(abs(back.x - panelPoint.x) < 1e-9 && abs(back.y - panelPoint.y) < 1e-9)
    }

    @Test func portraitLayoutSize() {
        #expect(TouchTransform(native: panel, rotation: 90).logical == PixelSize(width: 800, height: 1280))
        #expect(TouchTransform(native: panel, rotation: 270).logical == PixelSize(width: 800, height: 1280))
        #expect(TouchTransform(native: panel, rotation: 45).rotation == 0, "only right angles")
    }

    @Test func calibrationUsesNormalizedCoordinates() {
        // libinput's example: shift everything by 10% of the width, then scale y by a half.
        let t = TouchTransform(native: panel, calibration: [1, 0, 0.1, 0, 0.5, 0])
        #expect(t.apply(Vector2(0, 800)) == Vector2(128, 400))
        // A malformed matrix falls back to identity rather than scrambling touch.
        #expect(TouchTransform(native: panel, calibration: [1, 2]).calibration == TouchTransform.identityMatrix)
    }

    @Test func calibrationThenRotation() {
        let t = TouchTransform(native: panel, rotation: 180, calibration: [1, 0, 0.1, 0, 1, 0])
        // Calibrated to (0.1, 0) of the panel, which is the game's bottom-right area at 180.
        let g = t.apply(Vector2(0, 0))
        #expect(abs(g.x - 0.9 * 1280) < 1e-9 && abs(g.y - 800) < 1e-9)
    }
}
