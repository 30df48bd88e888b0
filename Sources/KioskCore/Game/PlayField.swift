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
    ///
    /// Every draw comes from `rng` as it did before drag bubbles existed; `drag` (decided from a
    /// stream of the round's own) only changes the kind, so seeds keep their layouts. `goal`,
    /// when given, is kept clear too.
    public func make(id: Int, avoiding existing: [Bubble], goal: Rect? = nil, drag: Bool = false,
                     at time: TimeStamp, using rng: inout SeededGenerator) -> Bubble? {
        let minD = field.px(game.bubbleMinMM)
        let maxD = max(minD, field.px(game.bubbleMaxMM))
        var diameter = rng.uniform(minD, maxD)
        var kind: BubbleKind
        if rng.unit() < game.swipeShare {
            // Whole degrees in (-180, 180]: readable in JSON and on screen alike.
            kind = .swipe(angleDeg: Double(rng.integer(in: -179...180)))
        } else {
            kind = .tap(required: rng.integer(in: 1...max(1, game.maxTaps)))
        }
        if drag { kind = .drag }
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
                        && !(goal.map { Self.disc(at: c, radius: r + gap, meets: $0) } ?? false)
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

extension BubblePlacer {
    /// Whether a disc overlaps a rectangle.
    static func disc(at c: Vector2, radius r: Double, meets rect: Rect) -> Bool {
        let nx = min(max(c.x, rect.x), rect.maxX), ny = min(max(c.y, rect.y), rect.maxY)
        return Vector2(nx, ny).distance(to: c) < r
    }

    /// The goal's size: wide enough for the largest bubble with room to spare.
    func goalSize() -> (width: Double, height: Double) {
        let d = max(field.px(game.bubbleMinMM), field.px(game.bubbleMaxMM))
        return (min(d * 1.7, field.area.width), min(d * 1.15, field.area.height))
    }

    /// Where the basket goes: against the bottom, left or right edge of the play area (never
    /// over the HUD), at the first place of a shuffled list that no live bubble covers. When
    /// every place is covered, the one covering the fewest bubbles, and `moved` lists those
    /// bubbles placed anew around it.
    public func goal(avoiding bubbles: [Bubble], using rng: inout SeededGenerator)
        -> (rect: Rect, moved: [Bubble]) {
        let (w, h) = goalSize()
        let a = field.area
        guard w > 0, h > 0 else { return (Rect(x: a.x, y: a.y, width: max(w, 0), height: max(h, 0)), []) }
        var spots: [Rect] = []
        // Places a third of its width apart (at most 64 of them).
        let xs = max(1, Int(min(64, (a.width - w) / (w / 3)).rounded(.down)))
        for k in 0...xs {
            spots.append(Rect(x: a.x + (a.width - w) * Double(k) / Double(xs), y: a.maxY - h, width: w, height: h))
        }
        // Upright on the sides: as tall as it is wide on the bottom.
        if a.height - w > h {
            let ys = max(1, Int(min(64, (a.height - w) / (w / 3)).rounded(.down)))
            for k in 0..<ys {
                let y = a.y + (a.height - w) * Double(k) / Double(ys)
                spots.append(Rect(x: a.x, y: y, width: h, height: w))
                spots.append(Rect(x: a.maxX - h, y: y, width: h, height: w))
            }
        }
        for i in stride(from: spots.count - 1, to: 0, by: -1) {
            spots.swapAt(i, rng.integer(in: 0...i))
        }
        let gap = field.px(1)
        let live = bubbles.filter { !$0.isPopped }
        func covered(_ r: Rect) -> [Bubble] { live.filter { Self.disc(at: $0.center, radius: $0.radius + gap, meets: r) } }
        let best = spots.min { covered($0).count < covered($1).count } ?? Rect(x: a.x, y: a.maxY - h, width: w, height: h)
        let under = covered(best)
        guard !under.isEmpty else { return (best, []) }
        var moved: [Bubble] = []
        var others = live.filter { b in !under.contains { $0.id == b.id } }
        for b in under {
            // A new place only: id, kind, size and colour stay.
            var placer = self
            placer.game.bubbleMinMM = b.diameter / field.pxPerMM
            placer.game.bubbleMaxMM = b.diameter / field.pxPerMM
            guard let fresh = placer.make(id: b.id, avoiding: others, goal: best, at: b.spawnedAt, using: &rng) else { continue }
            var m = b
            m.center = fresh.center
            moved.append(m)
            others.append(m)
        }
        return (best, moved)
    }
}
