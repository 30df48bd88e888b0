internal import CCairo
internal import CPixman
import KioskCore

/// What a sprite shows. Sizes are quantised (bubbles to whole pixels, angles to whole degrees,
/// particles to half and finger radii to quarter pixels) so near-identical shapes share one sprite.
enum SpriteKey: Hashable {
    case bubble(diameter: Int, color: RGBColor, content: QuantisedContent)
    case particle(halfRadius: Int, color: RGBColor)
    case finger(quarterRadius: Int, ghost: Bool)
    /// A lifted bubble's soft shadow at full opacity (blended at the shadow's own).
    case shadow(quarterRadius: Int, quarterBlur: Int)
    /// Buttons and texts are shaped for the scene's language (fonts and forms differ), so
    /// the same string in two languages is two sprites.
    case button(width: Int, height: Int, title: String, language: String, color: RGBColor, pressed: Bool)
    case text(String, language: String, quarterSize: Int, color: RGBColor, bold: Bool)
    /// The basket at its exact size and sub-pixel offset (what is left of its frame position
    /// after whole pixels), so the sprite holds the very pixels its paths would draw there;
    /// over an opaque `background` when nothing lies under it (then exactly the pixels drawn
    /// straight onto the frame: translucent layers blended in a sprite first can round a
    /// level apart).
    case goal(width: Double, height: Double, offsetX: Double, offsetY: Double, active: Bool, background: RGBColor?)

    enum QuantisedContent: Hashable {
        case none
        case taps(Int)
        case arrow(degrees: Int)
        case grip

        init(_ c: BubbleContent) {
            switch c {
            case .none: self = .none
            case .taps(let n): self = .taps(n)
            case .arrow(let d): self = .arrow(degrees: Int(Angle.normalized(d).rounded()))
            case .grip: self = .grip
            }
        }

        var content: BubbleContent {
            switch self {
            case .none: .none
            case .taps(let n): .taps(n)
            case .arrow(let d): .arrow(degrees: Double(d))
            case .grip: .grip
            }
        }
    }
}

/// Renders each distinct sprite once and keeps it while there is room.
///
/// Memory is bounded by `byteBudget` (`Sprite.byteCount`): a new sprite that would take the cache over
/// it first drops the least recently used ones (a bubble that popped, a score that changed).
/// Never one used in this frame or the last: frames whose own sprites exceed the budget keep
/// them. Dropping one of this frame's would render it again later in the same frame; one of
/// the last frame's, not yet drawn in this one, would be rendered again when it is, and drop
/// another of them in turn, every frame.
/// Lookups, hits and drops are O(1); a hit allocates nothing.
final class SpriteCache {
    /// Where each key's sprite sits in `recency`.
    private var slots: [SpriteKey: Int] = [:]
    private var recency = RecencyList()
    /// Set anew when the screen changes size; takes effect as sprites are next cached.
    var byteBudget: Int
    /// Counts `endFrame` calls; sprites used at this count or the one before are never dropped.
    private var clock: UInt64 = 1
    /// Sprites rendered from their shapes so far (for tests and the benchmark); flattening one
    /// onto the background does not count.
    private(set) var misses = 0
    /// Sprites dropped to stay within the budget so far.
    private(set) var evictions = 0
    /// Memory of the distinct sprites the last finished frame used: what it needs cached to
    /// render again without rendering a sprite.
    private(set) var lastFrameBytes = 0
    /// The same, so far, for the frame under way.
    private var frameBytes = 0
    /// Lays out the text of text, button and bubble sprites.
    let typesetter = Typesetter()

    init(byteBudget: Int) {
        self.byteBudget = byteBudget
    }

    var count: Int { slots.count }

    /// Whether `key`'s sprite is cached, without using it (for tests).
    func isCached(_ key: SpriteKey) -> Bool { slots[key] != nil }
    /// Memory of the cached sprites (`Sprite.byteCount`).
    var byteCount: Int { recency.byteCount }

    func sprite(_ key: SpriteKey) -> Sprite { cached(key).sprite }

    /// `key`'s sprite and its pixels flattened onto `background` (`Sprite.flattened(onto:)`),
    /// whose memory the cache counts with the sprite's.
    func flattened(_ key: SpriteKey, onto background: RGBColor) -> (sprite: Sprite, flat: Sprite.Flattened) {
        let (slot, sprite) = cached(key)
        let before = sprite.byteCount
        let flat = sprite.flattened(onto: background)
        if sprite.byteCount != before {
            recency.resize(slot, by: sprite.byteCount - before)
            frameBytes += sprite.byteCount - before
            makeRoom(for: 0)
        }
        return (sprite, flat)
    }

    private func cached(_ key: SpriteKey) -> (slot: Int, sprite: Sprite) {
        if let slot = slots[key] {
            let (sprite, firstUse) = recency.use(slot, at: clock)
            if firstUse { frameBytes += sprite.byteCount }
            return (slot, sprite)
        }
        let s = make(key)
        makeRoom(for: s.byteCount)
        let slot = recency.add(key, s, at: clock)
        slots[key] = slot
        frameBytes += s.byteCount
        misses += 1
        return (slot, s)
    }

    /// Drops least recently used sprites until `bytes` more fit in the budget, or until only
    /// sprites of this frame and the last are left.
    private func makeRoom(for bytes: Int) {
        while recency.byteCount + bytes > byteBudget, let oldest = recency.oldest(usedBefore: clock - 1) {
            let key = recency.remove(oldest)
            slots[key] = nil
            evictions += 1
        }
    }

    /// The frame is drawn: its sprites may be dropped from now on.
    func endFrame() {
        lastFrameBytes = frameBytes
        frameBytes = 0
        clock += 1
    }

    // MARK: Keys for shapes

    static func key(_ b: BubbleShape) -> SpriteKey {
        .bubble(diameter: max(Int(b.diameter.rounded()), 1), color: b.color, content: .init(b.content))
    }

    static func key(_ p: ParticleShape) -> SpriteKey {
        .particle(halfRadius: max(Int((p.radius * 2).rounded()), 1), color: p.color)
    }

    static func key(_ f: FingerShape) -> SpriteKey {
        .finger(quarterRadius: max(Int((f.radius * 4).rounded()), 1), ghost: f.ghost)
    }

    static func shadowKey(radius: Double, blur: Double) -> SpriteKey {
        .shadow(quarterRadius: max(Int((radius * 4).rounded()), 1), quarterBlur: max(Int((blur * 4).rounded()), 0))
    }

    static func key(_ b: ButtonShape, language: String) -> SpriteKey {
        .button(width: max(Int(b.rect.width.rounded()), 1), height: max(Int(b.rect.height.rounded()), 1),
                title: b.title, language: language, color: b.color, pressed: b.pressed)
    }

    static func key(_ t: TextShape, language: String) -> SpriteKey {
        .text(t.string, language: language, quarterSize: max(Int((t.sizePx * 4).rounded()), 1), color: t.color, bold: t.bold)
    }

    /// The goal's key, and the frame pixel its sprite's anchor goes to; nil for a rect that is
    /// not finite (drawn with paths, which cope). `background`: the opaque colour under it, if
    /// nothing else is.
    static func key(_ g: GoalShape, background: RGBColor?) -> (key: SpriteKey, anchor: Vector2)? {
        let r = g.rect
        guard r.x.isFinite, r.y.isFinite, r.width.isFinite, r.height.isFinite else { return nil }
        let x = r.x.rounded(.down), y = r.y.rounded(.down)
        return (.goal(width: r.width, height: r.height, offsetX: r.x - x, offsetY: r.y - y, active: g.active,
                      background: background?.withAlpha(1)),
                Vector2(x, y))
    }

    // MARK: Rendering

    private func make(_ key: SpriteKey) -> Sprite {
        switch key {
        case let .bubble(diameter, color, content):
            let d = Double(diameter)
            return centred(extent: d) { cr in
                Painter.bubble(cr, diameter: d, color: color, content: content.content, typesetter: typesetter)
            }
        case let .particle(halfRadius, color):
            let r = Double(halfRadius) / 2
            return centred(extent: 2 * r) { cr in Painter.particle(cr, radius: r, color: color) }
        case let .finger(quarterRadius, ghost):
            let r = Double(quarterRadius) / 4
            return centred(extent: 2 * r) { cr in Painter.finger(cr, radius: r, ghost: ghost) }
        case let .shadow(quarterRadius, quarterBlur):
            let r = Double(quarterRadius) / 4, blur = Double(quarterBlur) / 4
            return centred(extent: 2 * (r + blur)) { cr in
                Painter.shadow(cr, center: Vector2(0, 0), radius: r, blur: blur, opacity: 1)
            }
        case let .button(width, height, title, language, color, pressed):
            // One pixel of margin for the capsule's antialiased edge.
            return Sprite(width: width + 2, height: height + 2, anchor: Vector2(1, 1)) { cr in
                Painter.button(cr, width: Double(width), height: Double(height), title: title,
                               color: color, pressed: pressed, typesetter: typesetter, language: language)
            }
        case let .text(string, language, quarterSize, color, bold):
            let line = typesetter.layout(string, size: Double(quarterSize) / 4, bold: bold, language: language)
            return text(line, color: color)
        case let .goal(width, height, offsetX, offsetY, active, background):
            // The shape's bounds (its glow reaches 2 px out), with the anchor on the whole
            // pixel left of and above its corner.
            let shape = GoalShape(rect: Rect(x: offsetX, y: offsetY, width: width, height: height), active: active)
            let box = shape.bounds
            return Sprite(width: box.width, height: box.height, anchor: Vector2(Double(-box.x), Double(-box.y))) { cr in
                if let background {
                    Painter.setColor(cr, background)
                    cairo_paint(cr)
                }
                Painter.goal(cr, shape)
            }
        }
    }

    /// A square sprite with the shape's centre in its middle and a pixel to spare all round.
    private func centred(extent: Double, draw: (OpaquePointer) -> Void) -> Sprite {
        let side = Int(extent.rounded(.up)) + 2
        let half = Double(side) / 2
        return Sprite(width: side, height: side, anchor: Vector2(half, half), draw: draw)
    }

    /// The line's ink and its logical box (advance, ascent and descent) with a margin, the
    /// anchor on the baseline's start.
    private func text(_ line: TextLayout, color: RGBColor) -> Sprite {
        // Room for the ink, which can stick out of the logical box (overhangs, stacked marks).
        let pad = 2.0
        let left = min(line.ink.x, line.logical.x) - line.logical.x
        let right = max(line.ink.maxX, line.logical.maxX) - line.logical.x
        let top = min(line.ink.y, line.logical.y) - line.baseline
        let bottom = max(line.ink.maxY, line.logical.maxY) - line.baseline
        let width = Int((right - left + 2 * pad).rounded(.up))
        let height = Int((bottom - top + 2 * pad).rounded(.up))
        let anchor = Vector2(pad - left, pad - top)
        return Sprite(width: width, height: height, anchor: anchor, advance: line.advance) { cr in
            Painter.text(cr, line, color: color)
        }
    }
}

/// The cached sprites in order of last use, a doubly linked list over the slots of one array:
/// moving a sprite to the front is a few index writes, without allocation or reference
/// counting, and a dropped sprite's slot is reused by the next one cached.
private struct RecencyList {
    private struct Entry {
        var key: SpriteKey?
        var sprite: Sprite?
        /// The sprite's memory as last counted.
        var bytes = 0
        /// The `SpriteCache` clock at its last use.
        var lastUse: UInt64 = 0
        /// Neighbours towards the most and the least recently used end; -1 at the ends.
        var newer = -1
        var older = -1
    }

    private var entries: [Entry] = []
    private var freeSlots: [Int] = []
    private var newest = -1
    private var oldest = -1
    private(set) var byteCount = 0

    /// Caches `sprite` as the most recently used; returns its slot.
    mutating func add(_ key: SpriteKey, _ sprite: Sprite, at clock: UInt64) -> Int {
        let slot: Int
        if let free = freeSlots.popLast() {
            slot = free
        } else {
            slot = entries.count
            entries.append(Entry())
        }
        entries[slot] = Entry(key: key, sprite: sprite, bytes: sprite.byteCount, lastUse: clock)
        linkAsNewest(slot)
        byteCount += sprite.byteCount
        return slot
    }

    /// The sprite in `slot` grew (or shrank) by `bytes`.
    mutating func resize(_ slot: Int, by bytes: Int) {
        entries[slot].bytes += bytes
        byteCount += bytes
    }

    /// The sprite in `slot`, now the most recently used; `firstUse` when it had not been used
    /// at `clock` yet.
    mutating func use(_ slot: Int, at clock: UInt64) -> (sprite: Sprite, firstUse: Bool) {
        let firstUse = entries[slot].lastUse != clock
        entries[slot].lastUse = clock
        if slot != newest {
            unlink(slot)
            linkAsNewest(slot)
        }
        // A cached slot always holds its sprite.
        return (entries[slot].sprite.unsafelyUnwrapped, firstUse)
    }

    /// The least recently used slot, if it was last used before `clock`.
    func oldest(usedBefore clock: UInt64) -> Int? {
        guard oldest >= 0, entries[oldest].lastUse < clock else { return nil }
        return oldest
    }

    /// Takes the sprite in `slot` out (freeing it unless a frame still holds it); returns its key.
    mutating func remove(_ slot: Int) -> SpriteKey {
        unlink(slot)
        let entry = entries[slot]
        entries[slot] = Entry()
        freeSlots.append(slot)
        byteCount -= entry.bytes
        return entry.key.unsafelyUnwrapped
    }

    private mutating func linkAsNewest(_ slot: Int) {
        entries[slot].newer = -1
        entries[slot].older = newest
        if newest >= 0 { entries[newest].newer = slot } else { oldest = slot }
        newest = slot
    }

    private mutating func unlink(_ slot: Int) {
        let newer = entries[slot].newer, older = entries[slot].older
        if newer >= 0 { entries[newer].older = older } else { newest = older }
        if older >= 0 { entries[older].newer = newer } else { oldest = newer }
    }
}
