/// Finds the screen rectangles that differ between the last scene and the next one.
///
/// An item that was added, removed or changed damages its old and new bounds; identical scenes
/// damage nothing, so an idle frame costs no drawing and no copying. The rectangles are clipped
/// to the screen and merged where that wastes little, so the renderer and the display copy get a
/// handful of boxes rather than hundreds of particle-sized ones.
public struct DamageTracker: Sendable {
    private var previous: Scene?
    /// Bounds of the last scene's items, in item order (the renderer reuses them).
    public private(set) var bounds: [PixelRect] = []

    public init() {}

    /// Damage from the last scene passed here to `scene`, which becomes the new "last scene".
    public mutating func damage(for scene: Scene) -> [PixelRect] {
        // The idle case first: an unchanged scene costs one comparison and nothing else.
        if let previous, previous == scene { return [] }
        let newBounds = scene.items.map(\.bounds)
        defer {
            previous = scene
            bounds = newBounds
        }
        return Self.damage(from: previous, oldBounds: bounds, to: scene, newBounds: newBounds)
    }

    /// Forgets the last scene, so the next frame is damaged in full (e.g. after a VT switch).
    public mutating func invalidate() { previous = nil }

    /// Damage between two scenes; no old scene, a new size or a new background: the whole screen.
    public static func damage(from old: Scene?, to new: Scene) -> [PixelRect] {
        damage(from: old, oldBounds: old?.items.map(\.bounds) ?? [], to: new, newBounds: new.items.map(\.bounds))
    }

    static func damage(from old: Scene?, oldBounds: [PixelRect], to new: Scene, newBounds: [PixelRect]) -> [PixelRect] {
        let screen = new.screenRect
        guard let old, old.size == new.size, old.background == new.background else {
            return screen.isEmpty ? [] : [screen]
        }
        if old.items == new.items { return [] }
        let rects = changedBounds(old: old.items, oldBounds: oldBounds, new: new.items, newBounds: newBounds)
        return DamageRegion.merged(rects, within: screen)
    }

    /// Bounds of everything that differs, including items whose stacking order changed.
    static func changedBounds(old: [SceneItem], oldBounds: [PixelRect],
                              new: [SceneItem], newBounds: [PixelRect]) -> [PixelRect] {
        // Ids that occur twice cannot be paired reliably: treat every copy as changed.
        var oldIndex: [SceneItemID: Int] = [:]
        oldIndex.reserveCapacity(old.count)
        var duplicated: Set<SceneItemID> = []
        for (i, item) in old.enumerated() where oldIndex.updateValue(i, forKey: item.id) != nil {
            duplicated.insert(item.id)
        }
        // 0: not matched, 1: kept as is, 2: changed (its bounds are already in `rects`).
        var oldState = [UInt8](repeating: 0, count: old.count)
        var seen: Set<SceneItemID> = []
        seen.reserveCapacity(new.count)
        var rects: [PixelRect] = []
        // Unchanged items must keep their relative order, else overlapping pixels differ.
        var lastKeptOldIndex = -1
        for (n, item) in new.enumerated() {
            let firstTime = seen.insert(item.id).inserted
            guard firstTime, !duplicated.contains(item.id), let i = oldIndex[item.id] else {
                rects.append(newBounds[n])
                continue
            }
            if old[i].shape == item.shape, i > lastKeptOldIndex {
                oldState[i] = 1
                lastKeptOldIndex = i
            } else {
                // Most changes are small moves: one box over both places saves a merge later.
                oldState[i] = 2
                let a = oldBounds[i], b = newBounds[n]
                if DamageRegion.worthMerging(a, b) {
                    rects.append(a.union(b))
                } else {
                    rects.append(a)
                    rects.append(b)
                }
            }
        }
        for i in old.indices where oldState[i] == 0 {
            rects.append(oldBounds[i])
        }
        return rects
    }
}
