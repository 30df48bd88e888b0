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
    ///
    /// Frame to frame most items stay where they were in the list: the runs at both ends whose
    /// ids line up are paired by position, and only the part between goes through the id
    /// lookups (hashing every item's id was a third of an animated frame).
    static func changedBounds(old: [SceneItem], oldBounds: [PixelRect],
                              new: [SceneItem], newBounds: [PixelRect]) -> [PixelRect] {
        var rects: [PixelRect] = []
        let shortest = min(old.count, new.count)
        var head = 0
        while head < shortest, old[head].id == new[head].id { head += 1 }
        var tail = 0
        while tail < shortest - head, old[old.count - 1 - tail].id == new[new.count - 1 - tail].id { tail += 1 }
        for k in 0..<head where old[k].shape != new[k].shape {
            addChange(from: oldBounds[k], to: newBounds[k], into: &rects)
        }
        changedBounds(old: old, oldBounds: oldBounds, oldRange: head..<(old.count - tail),
                      new: new, newBounds: newBounds, newRange: head..<(new.count - tail), into: &rects)
        for k in 0..<tail {
            let i = old.count - 1 - k, n = new.count - 1 - k
            if old[i].shape != new[n].shape { addChange(from: oldBounds[i], to: newBounds[n], into: &rects) }
        }
        return rects
    }

    /// An item in both scenes that changed: where it was and where it is.
    private static func addChange(from oldBox: PixelRect, to newBox: PixelRect, into rects: inout [PixelRect]) {
        // Most changes are small moves: one box over both places saves a merge later.
        if DamageRegion.worthMerging(oldBox, newBox) {
            rects.append(oldBox.union(newBox))
        } else {
            rects.append(oldBox)
            rects.append(newBox)
        }
    }

    /// The items of `oldRange` and `newRange` paired by id. The ranges lie between runs paired
    /// by position, so keeping their own order here keeps the whole order.
    private static func changedBounds(old: [SceneItem], oldBounds: [PixelRect], oldRange: Range<Int>,
                                      new: [SceneItem], newBounds: [PixelRect], newRange: Range<Int>,
                                      into rects: inout [PixelRect]) {
        // Ids that occur twice cannot be paired reliably: treat every copy as changed.
        var oldIndex: [SceneItemID: Int] = [:]
        oldIndex.reserveCapacity(oldRange.count)
        var duplicated: Set<SceneItemID> = []
        for i in oldRange where oldIndex.updateValue(i, forKey: old[i].id) != nil {
            duplicated.insert(old[i].id)
        }
        // 0: not matched, 1: kept as is, 2: changed (its bounds are already in `rects`).
        var oldState = [UInt8](repeating: 0, count: oldRange.count)
        var seen: Set<SceneItemID> = []
        seen.reserveCapacity(newRange.count)
        // Unchanged items must keep their relative order, else overlapping pixels differ.
        var lastKeptOldIndex = -1
        for n in newRange {
            let item = new[n]
            let firstTime = seen.insert(item.id).inserted
            guard firstTime, !duplicated.contains(item.id), let i = oldIndex[item.id] else {
                rects.append(newBounds[n])
                continue
            }
            if old[i].shape == item.shape, i > lastKeptOldIndex {
                oldState[i - oldRange.lowerBound] = 1
                lastKeptOldIndex = i
            } else {
                oldState[i - oldRange.lowerBound] = 2
                addChange(from: oldBounds[i], to: newBounds[n], into: &rects)
            }
        }
        for i in oldRange where oldState[i - oldRange.lowerBound] == 0 {
            rects.append(oldBounds[i])
        }
    }
}
