/// Where a mirrored screen shows the game: the picture scaled to fit, centred, with black bars
/// along the sides that do not fill (letterbox or pillarbox). Aspect ratio is kept.
public struct MirrorFit: Equatable, Sendable {
    /// The game's picture.
    public let source: PixelSize
    /// The mirror's mode.
    public let target: PixelSize
    /// Target pixels per source pixel.
    public let scale: Double
    /// The part of the target the picture covers.
    public let placed: PixelRect

    public init(source: PixelSize, target: PixelSize) {
        self.source = source
        self.target = target
        let sw = Double(max(source.width, 1)), sh = Double(max(source.height, 1))
        scale = min(Double(target.width) / sw, Double(target.height) / sh)
        let w = min(target.width, Int((sw * scale).rounded())), h = min(target.height, Int((sh * scale).rounded()))
        placed = PixelRect(x: (target.width - w) / 2, y: (target.height - h) / 2, width: w, height: h)
    }

    /// The target pixels that show source rectangle `rect`, widened by a pixel on each side for
    /// the filter's reach and kept inside `placed`.
    public func targetRect(of rect: PixelRect) -> PixelRect? {
        guard rect.width > 0, rect.height > 0 else { return nil }
        let x0 = Double(placed.x) + Double(rect.x) * scale, y0 = Double(placed.y) + Double(rect.y) * scale
        let x1 = Double(placed.x) + Double(rect.x + rect.width) * scale
        let y1 = Double(placed.y) + Double(rect.y + rect.height) * scale
        let grown = PixelRect(enclosing: Rect(x: x0 - 1, y: y0 - 1, width: x1 - x0 + 2, height: y1 - y0 + 2))
        return grown.intersection(placed)
    }
}
