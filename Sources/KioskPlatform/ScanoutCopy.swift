import KioskCore

/// How the game's picture is turned on the panel, clockwise (the `[display] rotation` key):
/// at 90 the game's top edge runs down the panel's right side, as in `TouchTransform`.
public struct ScreenRotation: Equatable, Sendable {
    /// 0, 90, 180 or 270.
    public let degrees: Int

    public init?(degrees: Int) {
        guard [0, 90, 180, 270].contains(degrees) else { return nil }
        self.degrees = degrees
    }

    public static let none = ScreenRotation(degrees: 0)!

    public var swapsAxes: Bool { degrees == 90 || degrees == 270 }

    /// The size the game lays out for on a panel of `panel` pixels.
    public func logicalSize(panel: PixelSize) -> PixelSize {
        swapsAxes ? PixelSize(width: panel.height, height: panel.width) : panel
    }

    /// Where the game's rectangle `r` lands on the panel (the game being `logical` in size).
    public func panelRect(_ r: PixelRect, logical: PixelSize) -> PixelRect {
        let gw = logical.width, gh = logical.height
        switch degrees {
        case 90: return PixelRect(x: gh - r.maxY, y: r.x, width: r.height, height: r.width)
        case 180: return PixelRect(x: gw - r.maxX, y: gh - r.maxY, width: r.width, height: r.height)
        case 270: return PixelRect(x: r.y, y: gw - r.maxX, width: r.height, height: r.width)
        default: return r
        }
    }

    /// The game pixel shown at panel pixel (px, py).
    public func gamePixel(panelX px: Int, panelY py: Int, logical: PixelSize) -> (x: Int, y: Int) {
        let gw = logical.width, gh = logical.height
        switch degrees {
        case 90: return (py, gh - 1 - px)
        case 180: return (gw - 1 - px, gh - 1 - py)
        case 270: return (gw - 1 - py, px)
        default: return (px, py)
        }
    }

    /// Copies the game's rectangle `rect` (clipped to the game) from an XRGB8888 image of
    /// `logical` size into the panel buffer, turned. Strides are in bytes.
    ///
    /// The destination is walked row by row so writes stay sequential, which is what
    /// write-combined display memory wants; the source (ordinary cached memory) takes the
    /// strided reads. For 90 and 270 the destination is cut into 64-pixel-wide strips so the
    /// source rows a strip reads stay in the cache from one destination row to the next.
    public func copy(_ rect: PixelRect, from source: UnsafeRawPointer, sourceStride: Int, logical: PixelSize,
                     to destination: UnsafeMutableRawPointer, destinationStride: Int) {
        guard let r = rect.intersection(PixelRect(x: 0, y: 0, width: logical.width, height: logical.height)) else {
            return
        }
        if degrees == 0 {
            for y in r.y..<r.maxY {
                (destination + y * destinationStride + r.x * 4)
                    .copyMemory(from: source + y * sourceStride + r.x * 4, byteCount: r.width * 4)
            }
            return
        }
        let d = panelRect(r, logical: logical)
        let sourceRow = sourceStride / 4
        let src = source.assumingMemoryBound(to: UInt32.self)
        // Moving one pixel right on the panel moves this far in the source.
        let step: Int
        switch degrees {
        case 90: step = -sourceRow
        case 180: step = -1
        default: step = sourceRow
        }
        let stripWidth = degrees == 180 ? d.width : 64
        var x0 = d.x
        while x0 < d.maxX {
            let count = min(stripWidth, d.maxX - x0)
            for py in d.y..<d.maxY {
                let dst = (destination + py * destinationStride).assumingMemoryBound(to: UInt32.self) + x0
                let start = gamePixel(panelX: x0, panelY: py, logical: logical)
                let s = src + start.y * sourceRow + start.x
                for i in 0..<count { dst[i] = s[i * step] }
            }
            x0 += count
        }
    }
}

/// Rectangles still to copy into a buffer, kept few: contained ones are dropped, and past a
/// handful (or half the area) one bounding box is cheaper than many small copies.
public enum DamageList {
    public static let maxRects = 16

    /// `rects` clipped to `bounds` and simplified.
    public static func merged(_ rects: [PixelRect], within bounds: PixelRect) -> [PixelRect] {
        var clipped = rects.compactMap { $0.intersection(bounds) }
        guard clipped.count > 1 else { return clipped }
        // Bigger first, so smaller ones are tested against everything that can contain them.
        clipped.sort { $0.area > $1.area }
        var kept: [PixelRect] = []
        for r in clipped where !kept.contains(where: { $0.contains(r) }) { kept.append(r) }
        let area = kept.reduce(0) { $0 + $1.area }
        if kept.count > maxRects || area * 2 > bounds.area {
            return [kept.dropFirst().reduce(kept[0]) { $0.union($1) }]
        }
        return kept
    }
}

/// Pixel density from a screen's reported physical size, when the numbers are believable.
public enum PixelDensity {
    /// About 13 to 1000 dpi: beyond that the EDID (or fbdev) is reporting nonsense, such as
    /// an aspect ratio (16x9) or a projector's "size".
    public static let believable: ClosedRange<Double> = 0.5...40

    /// Pixels per millimetre of a `pixels`-sized mode on a `mmWidth` x `mmHeight` screen; nil
    /// when a size is 0, a density is outside `believable` or the two axes disagree by more
    /// than a quarter (pixels are square on every panel the kiosk targets).
    public static func pxPerMM(pixels: PixelSize, mmWidth: Int, mmHeight: Int) -> Double? {
        guard mmWidth > 0, mmHeight > 0, pixels.width > 0, pixels.height > 0 else { return nil }
        let horizontal = Double(pixels.width) / Double(mmWidth)
        let vertical = Double(pixels.height) / Double(mmHeight)
        guard believable.contains(horizontal), believable.contains(vertical),
              max(horizontal, vertical) / min(horizontal, vertical) <= 1.25 else { return nil }
        return (horizontal + vertical) / 2
    }
}
