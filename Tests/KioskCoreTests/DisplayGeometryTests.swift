import KioskCore
import Testing

/// Panel geometry the displays and touch share: pixel density sanity and its resolution, the
/// rotation maps and the rotated copy, and damage merging.
struct DisplayGeometryTests {
    // MARK: pixel density

    @Test func densityFromBelievableSizes() {
        #expect(PixelDensity.pxPerMM(pixels: PixelSize(width: 1280, height: 800), mmWidth: 320, mmHeight: 200) == 4)
        let fullHD = PixelDensity.pxPerMM(pixels: PixelSize(width: 1920, height: 1080), mmWidth: 477, mmHeight: 268)
        #expect(fullHD.map { abs($0 - 4.03) < 0.01 } == true)
    }

    /// Unknown sizes, an aspect ratio instead of a size (16x9 mm), absurd sizes, and axes that
    /// disagree (a 5:4 mode on a 16:10 screen's size).
    @Test(arguments: [(1280, 800, 0, 0), (1280, 800, 0, 200), (1280, 800, 320, 0), (1280, 800, 16, 9),
                      (1280, 800, 100_000, 60_000), (1280, 1024, 320, 200)])
    func densityRejectsNonsense(width: Int, height: Int, mmWidth: Int, mmHeight: Int) {
        #expect(PixelDensity.pxPerMM(pixels: PixelSize(width: width, height: height), mmWidth: mmWidth, mmHeight: mmHeight) == nil)
    }

    // MARK: rotation

    @Test func logicalSizeSwapsForQuarterTurns() {
        let panel = PixelSize(width: 1280, height: 800)
        #expect(ScreenRotation(degrees: 0)!.logicalSize(panel: panel) == panel)
        #expect(ScreenRotation(degrees: 90)!.logicalSize(panel: panel) == PixelSize(width: 800, height: 1280))
        #expect(ScreenRotation(degrees: 180)!.logicalSize(panel: panel) == panel)
        #expect(ScreenRotation(degrees: 270)!.logicalSize(panel: panel) == PixelSize(width: 800, height: 1280))
        #expect(ScreenRotation(degrees: 45) == nil)
        #expect(ScreenRotation(degrees: -90) == nil)
    }

    /// One list of turns: each allowed value makes a rotation, its text names them all, and
    /// anything else falls back to no turn where a fallback is wanted.
    @Test func allowedDegreesAreTheOnlyRotations() {
        #expect(ScreenRotation.allowedDegrees.map { ScreenRotation(degrees: $0)?.degrees } == [0, 90, 180, 270])
        #expect(ScreenRotation.allowedText == "0, 90, 180 or 270")
        #expect(ScreenRotation(degreesOrNone: 270).degrees == 270)
        #expect(ScreenRotation(degreesOrNone: 45) == .none)
        #expect(TouchTransform(native: PixelSize(width: 4, height: 2), rotation: 45).rotation == 0)
    }

    /// Every panel pixel inside `panelRect` shows a game pixel inside the game rectangle, and
    /// the counts match: the rectangle map agrees with the pixel map.
    @Test(arguments: [0, 90, 180, 270])
    func rectMapAgreesWithPixelMap(degrees: Int) {
        let turn = ScreenRotation(degrees: degrees)!
        let logical = PixelSize(width: 7, height: 5)
        let panel = turn.swapsAxes ? PixelSize(width: 5, height: 7) : logical
        #expect(turn.logicalSize(panel: panel) == logical)
        let rect = PixelRect(x: 1, y: 2, width: 4, height: 2)
        let mapped = turn.panelRect(rect, logical: logical)
        #expect(mapped.area == rect.area)
        for py in mapped.y..<mapped.maxY {
            for px in mapped.x..<mapped.maxX {
                let g = turn.gamePixel(panelX: px, panelY: py, logical: logical)
                #expect(g.x >= rect.x && g.x < rect.maxX && g.y >= rect.y && g.y < rect.maxY, "(\(px), \(py)) -> \(g)")
            }
        }
    }

    /// The display's rotation and the touch transform turn the same way (clockwise, game top
    /// edge down the panel's right side at 90).
    @Test(arguments: [0, 90, 180, 270])
    func rotationMatchesTouchTransform(degrees: Int) {
        let turn = ScreenRotation(degrees: degrees)!
        let native = PixelSize(width: 12, height: 8)
        let touch = TouchTransform(native: native, rotation: degrees)
        let logical = turn.logicalSize(panel: native)
        #expect(touch.logical == logical)
        for py in 0..<native.height {
            for px in 0..<native.width {
                let g = turn.gamePixel(panelX: px, panelY: py, logical: logical)
                let t = touch.apply(Vector2(Double(px) + 0.5, Double(py) + 0.5))
                #expect(abs(t.x - (Double(g.x) + 0.5)) < 1e-9 && abs(t.y - (Double(g.y) + 0.5)) < 1e-9)
            }
        }
        if degrees == 90 {
            // The game's top-left pixel sits at the panel's top-right corner.
            #expect(turn.gamePixel(panelX: native.width - 1, panelY: 0, logical: logical) == (0, 0))
        }
    }

    /// The rotated copy against a pixel-by-pixel reference, on padded strides, for the whole
    /// picture and a sub-rectangle; pixels outside the target rectangle stay untouched. The
    /// 70-pixel side exercises the 64-pixel strips.
    @Test(arguments: [0, 90, 180, 270])
    func rotatedCopyMatchesReference(degrees: Int) {
        let turn = ScreenRotation(degrees: degrees)!
        let logical = PixelSize(width: 9, height: 70)
        let panel = turn.swapsAxes ? PixelSize(width: 70, height: 9) : logical
        let sourceStride = (logical.width + 3) * 4, destinationStride = (panel.width + 5) * 4
        var source = [UInt32](repeating: 0, count: sourceStride / 4 * logical.height)
        for y in 0..<logical.height {
            for x in 0..<logical.width { source[y * sourceStride / 4 + x] = UInt32(y << 8 | x) | 0x0100_0000 }
        }
        let sentinel: UInt32 = 0xDEAD_BEEF
        for rect in [PixelRect(x: 0, y: 0, width: 9, height: 70), PixelRect(x: 2, y: 5, width: 4, height: 61),
                     PixelRect(x: -3, y: 60, width: 20, height: 20)] {
            var destination = [UInt32](repeating: sentinel, count: destinationStride / 4 * panel.height)
            source.withUnsafeBytes { src in
                destination.withUnsafeMutableBytes { dst in
                    turn.copy(rect, from: src.baseAddress!, sourceStride: sourceStride, logical: logical,
                              to: dst.baseAddress!, destinationStride: destinationStride)
                }
            }
            let clipped = rect.intersection(PixelRect(x: 0, y: 0, width: logical.width, height: logical.height))!
            let target = turn.panelRect(clipped, logical: logical)
            var wrong = 0
            for py in 0..<panel.height {
                for px in 0..<(destinationStride / 4) {
                    let got = destination[py * destinationStride / 4 + px]
                    let inside = px < panel.width && px >= target.x && px < target.maxX && py >= target.y && py < target.maxY
                    let g = turn.gamePixel(panelX: px, panelY: py, logical: logical)
                    let want = inside ? source[g.y * sourceStride / 4 + g.x] : sentinel
                    if got != want { wrong += 1 }
                }
            }
            #expect(wrong == 0, "\(degrees)° \(rect): \(wrong) wrong pixels")
        }
    }

    // MARK: damage bookkeeping

    @Test func damageRegionDropsContainedAndClips() {
        let bounds = PixelRect(x: 0, y: 0, width: 100, height: 100)
        let merged = DamageRegion.merged([PixelRect(x: 10, y: 10, width: 10, height: 10),
                                        PixelRect(x: 0, y: 0, width: 30, height: 30),
                                        PixelRect(x: 90, y: 90, width: 20, height: 20),
                                        PixelRect(x: 200, y: 0, width: 5, height: 5)], within: bounds)
        #expect(Set(merged) == [PixelRect(x: 0, y: 0, width: 30, height: 30), PixelRect(x: 90, y: 90, width: 10, height: 10)])
    }

    @Test func damageRegionCollapsesManyOrLargeRects() {
        let bounds = PixelRect(x: 0, y: 0, width: 1000, height: 1000)
        let many = (0..<20).map { PixelRect(x: $0 * 40, y: 0, width: 10, height: 10) }
        #expect(DamageRegion.merged(many, within: bounds) == [PixelRect(x: 0, y: 0, width: 770, height: 10)])
        let large = [PixelRect(x: 0, y: 0, width: 1000, height: 300), PixelRect(x: 0, y: 700, width: 1000, height: 300)]
        #expect(DamageRegion.merged(large, within: bounds) == [bounds])
        #expect(DamageRegion.merged([], within: bounds) == [])
    }

    @Test func densityResolutionPrefersConfigThenDisplay() {
        #expect(PixelDensity.resolve(configured: 6, reported: 3) == 6)
        #expect(PixelDensity.resolve(configured: nil, reported: 3) == 3)
        #expect(PixelDensity.resolve(configured: nil, reported: nil) == DisplaySettings.fallbackPxPerMM)
    }

    /// A pixel buffer copy at the same position equals the rotation-0 copy, on padded strides.
    @Test func pixelBufferCopyKeepsPositions() {
        let buffer = PixelBuffer(size: PixelSize(width: 5, height: 4), stride: 28)
        #expect(buffer.stride == 28)
        for y in 0..<4 {
            for x in 0..<5 { buffer.pixels.storeBytes(of: UInt32(y * 10 + x), toByteOffset: y * 28 + x * 4, as: UInt32.self) }
        }
        let target = PixelBuffer(size: PixelSize(width: 5, height: 4))
        buffer.copy(PixelRect(x: 1, y: 1, width: 3, height: 2), to: target.pixels, destinationStride: target.stride)
        for y in 0..<4 {
            for x in 0..<5 {
                let inside = (1...3).contains(x) && (1...2).contains(y)
                #expect(target[x, y] == (inside ? UInt32(y * 10 + x) : 0))
            }
        }
    }
}
