/// The screen as the game sees it: size, density and the area where bubbles may appear.
public struct PlayField: Equatable, Sendable {
    public var size: PixelSize
    public var pxPerMM: Double
    /// Where bubble centres' discs must lie entirely: the screen minus margins and the HUD bar.
    public var area: Rect

    public init(size: PixelSize, pxPerMM: Double, game: GameSettings) {
        self.size = size
        self.pxPerMM = pxPerMM
        let margin = game.marginMM * pxPerMM
        let top = game.hudHeightMM * pxPerMM + margin
        area = Rect(x: margin, y: top,
                    width: max(0, Double(size.width) - 2 * margin),
                    height: max(0, Double(size.height) - top - margin))
    }

    /// Millimetres to pixels on this screen.
    public func px(_ mm: Double) -> Double { mm * pxPerMM }
}

/// Places new bubbles at random, fully inside the play area and not overlapping.
public struct BubblePlacer: Sendable {
    public var field: PlayField
    public var game: GameSettings
    /// Attempts per bubble before trying a smaller one; bounded so placement always ends.
    static let attempts = 200

    public init(field: PlayField, game: GameSettings) {
        self.field = field
        self.game = game
    }

    /// A new bubble that overlaps none of `existing`, or nil when the field is full.
    public func make(id: Int, avoiding existing: [Bubble], at time: TimeStamp,
                     using rng: inout SeededGenerator) -> Bubble? {
        let minD = field.px(game.bubbleMinMM)
        let maxD = max(minD, field.px(game.bubbleMaxMM))
        var diameter = rng.uniform(minD, maxD)
        let kind: BubbleKind
        if rng.unit() < game.swipeShare {
            // Whole degrees in (-180, 180]: readable in JSON and on screen alike.
            kind = .swipe(angleDeg: Double(rng.integer(in: -179...180)))
        } else {
            kind = .tap(required: rng.integer(in: 1...max(1, game.maxTaps)))
        }
        let colorIndex = rng.integer(in: 0...7)
        let gap = field.px(1)
        // Crowded field: shrink towards the minimum size before giving up.
        for _ in 0..<3 {
            let r = diameter / 2
            let area = field.area
            if area.width >= diameter && area.height >= diameter {
                for _ in 0..<Self.attempts {
                    let c = Vector2(rng.uniform(area.x + r, area.maxX - r), rng.uniform(area.y + r, area.maxY - r))
                    let free = existing.allSatisfy { !$0.isPopped ? $0.center.distance(to: c) >= $0.radius + r + gap : true }
                    if free {
                        return Bubble(id: id, kind: kind, center: c, diameter: diameter,
                                      colorIndex: colorIndex, spawnedAt: time)
                    }
                }
            }
            diameter = max(minD, diameter * 0.8)
        }
        return nil
    }
}
