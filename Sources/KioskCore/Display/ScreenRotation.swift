/// How the game's picture is turned on the panel, clockwise (the `[display] rotation` key): at 90
/// the game's top edge runs down the panel's right side, and a 1280x800 panel shows an 800x1280
/// game. The one map between panel and game coordinates: touch, the scanout copy and the tests
/// all go through it.
public struct ScreenRotation: Equatable, Sendable {
    /// 0, 90, 180 or 270.
    public let degrees: Int

    /// The turns a panel can be mounted at: the config key, the displays and touch accept these.
    public static let allowedDegrees = [0, 90, 180, 270]
    /// `allowedDegrees` as messages spell them: "0, 90, 180 or 270".
    public static let allowedText = "0, 90, 180 or 270"

    public init?(degrees: Int) {
        guard Self.allowedDegrees.contains(degrees) else { return nil }
        self.degrees = degrees
    }

    /// `degrees`, or no turn for a value outside `allowedDegrees`.
    public init(degreesOrNone degrees: Int) {
        self = ScreenRotation(degrees: degrees) ?? .none
    }

    public static let none = ScreenRotation(degrees: 0)!

    public var swapsAxes: Bool { degrees == 90 || degrees == 270 }

    /// The size the game lays out for on a panel of `panel` pixels.
    public func logicalSize(panel: PixelSize) -> PixelSize {
        swapsAxes ? PixelSize(width: panel.height, height: panel.width) : panel
    }

    /// The game position shown at panel position `p`, on a panel `width` x `height` in the
    /// same units (pixels, or 1 x 1 for normalized coordinates).
    public func gamePoint(ofPanel p: Vector2, width: Double, height: Double) -> Vector2 {
        switch degrees {
        case 90: return Vector2(p.y, width - p.x)
        case 180: return Vector2(width - p.x, height - p.y)
        case 270: return Vector2(height - p.y, p.x)
        default: return p
        }
    }

    /// Where on the panel the game position `g` is shown; the inverse of `gamePoint`, for a game
    /// `width` x `height` in the same units.
    public func panelPoint(ofGame g: Vector2, width: Double, height: Double) -> Vector2 {
        switch degrees {
        case 90: return Vector2(height - g.y, g.x)
        case 180: return Vector2(width - g.x, height - g.y)
        case 270: return Vector2(g.y, width - g.x)
        default: return g
        }
    }

    /// Where the game's rectangle `r` lands on the panel (the game being `logical` in size).
    public func panelRect(_ r: PixelRect, logical: PixelSize) -> PixelRect {
        let w = Double(logical.width), h = Double(logical.height)
        let a = panelPoint(ofGame: Vector2(Double(r.x), Double(r.y)), width: w, height: h)
        let b = panelPoint(ofGame: Vector2(Double(r.maxX), Double(r.maxY)), width: w, height: h)
        let lo = Vector2(min(a.x, b.x), min(a.y, b.y)), hi = Vector2(max(a.x, b.x), max(a.y, b.y))
        return PixelRect(x: Int(lo.x), y: Int(lo.y), width: Int(hi.x - lo.x), height: Int(hi.y - lo.y))
    }

    /// The game pixel shown at panel pixel (px, py): the one under the panel pixel's centre.
    public func gamePixel(panelX px: Int, panelY py: Int, logical: PixelSize) -> (x: Int, y: Int) {
        let panel = logicalSize(panel: logical)  // a quarter turn is its own inverse on sizes
        let g = gamePoint(ofPanel: Vector2(Double(px) + 0.5, Double(py) + 0.5),
                          width: Double(panel.width), height: Double(panel.height))
        return (Int(g.x.rounded(.down)), Int(g.y.rounded(.down)))
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
