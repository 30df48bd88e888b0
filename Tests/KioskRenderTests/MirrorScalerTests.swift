import KioskCore
import KioskRender
import Testing

/// The mirror's copy: the game's picture scaled into the placed part of a bigger screen, bars
/// left alone, and damage scaled to the same pixels a full copy gives.
@Suite struct MirrorScalerTests {
    /// A picture with a red left half and a blue right half.
    static func halves(_ size: PixelSize) -> PixelBuffer {
        let picture = PixelBuffer(size: size)
        for y in 0..<size.height {
            for x in 0..<size.width {
                picture.pixels.storeBytes(of: x < size.width / 2 ? 0x00FF_0000 : 0x0000_00FF,
                                          toByteOffset: y * picture.stride + x * 4, as: UInt32.self)
            }
        }
        return picture
    }

    @Test func theWholePictureFillsThePlacedPartAndLeavesTheBarsBlack() {
        let picture = Self.halves(PixelSize(width: 160, height: 100))
        let fit = MirrorFit(source: picture.size, target: PixelSize(width: 400, height: 300))
        let screen = PixelBuffer(size: fit.target)
        MirrorScaler.paint(picture, [picture.bounds], fit: fit, into: screen.pixels, destinationStride: screen.stride)
        #expect(fit.placed == PixelRect(x: 0, y: 25, width: 400, height: 250))
        #expect(screen[10, 10] == 0, "the bar above stays black")
        #expect(screen[10, 290] == 0, "the bar below stays black")
        #expect(screen[10, 150] == 0xFF_0000)
        #expect(screen[390, 150] == 0x00_00FF)
        #expect(screen[0, 25] == 0xFF_0000 && screen[399, 274] == 0x00_00FF, "edges sample the picture, not black")
    }

    @Test func damagedPartsAddUpToTheWholeCopy() {
        let size = PixelSize(width: 160, height: 100)
        let fit = MirrorFit(source: size, target: PixelSize(width: 333, height: 250))
        let before = Self.halves(size), after = Self.halves(size)
        // A square changes colour; only it is damaged.
        let changed = PixelRect(x: 30, y: 40, width: 20, height: 10)
        for y in changed.y..<(changed.y + changed.height) {
            for x in changed.x..<(changed.x + changed.width) {
                after.pixels.storeBytes(of: 0x0000_FF00, toByteOffset: y * after.stride + x * 4, as: UInt32.self)
            }
        }
        let partial = PixelBuffer(size: fit.target), whole = PixelBuffer(size: fit.target)
        MirrorScaler.paint(before, [before.bounds], fit: fit, into: partial.pixels, destinationStride: partial.stride)
        MirrorScaler.paint(after, [changed], fit: fit, into: partial.pixels, destinationStride: partial.stride)
        MirrorScaler.paint(after, [after.bounds], fit: fit, into: whole.pixels, destinationStride: whole.stride)
        var differing = 0
        for y in 0..<whole.height {
            for x in 0..<whole.width where partial[x, y] != whole[x, y] { differing += 1 }
        }
        #expect(differing == 0)
        let inside = fit.targetRect(of: changed)!
        #expect(whole[inside.x + inside.width / 2, inside.y + inside.height / 2] == 0x00_FF00)
    }
}
