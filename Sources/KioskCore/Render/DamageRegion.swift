/// The one rule for keeping damage rectangles few: the damage tracker merges a frame's changes
/// with it, and displays merge what each of their buffers still misses with it.
public enum DamageRegion {
    /// Clips to `screen` and merges overlapping or nearby rectangles.
    ///
    /// Two rectangles merge when their bounding box adds at most a little area (32x32 pixels,
    /// or a quarter of what they cover). Past half the screen, one full-screen rectangle is
    /// cheaper to draw and to copy than many pieces.
    public static func merged(_ input: [PixelRect], within screen: PixelRect) -> [PixelRect] {
        var rects = input.compactMap { $0.intersection(screen) }
        var merged = true
        while merged && rects.count > 1 {
            merged = false
            var i = 0
            while i < rects.count {
                var j = i + 1
                while j < rects.count {
                    if worthMerging(rects[i], rects[j]) {
                        rects[i] = rects[i].union(rects[j])
                        rects.swapAt(j, rects.count - 1)
                        rects.removeLast()
                        // rects[i] grew, so rectangles it passed may fit it now: the outer
                        // loop makes another pass rather than restarting this one.
                        merged = true
                    } else {
                        j += 1
                    }
                }
                i += 1
            }
        }
        let covered = rects.reduce(0) { $0 + $1.area }
        if covered * 2 > screen.area { return [screen] }
        // Top to bottom, left to right: a predictable order for the copy and for tests.
        return rects.sorted { ($0.y, $0.x) < ($1.y, $1.x) }
    }

    /// Plain integer arithmetic: this runs for every pair of rectangles in a busy frame.
    public static func worthMerging(_ a: PixelRect, _ b: PixelRect) -> Bool {
        if a.isEmpty || b.isEmpty { return true }
        let overlapW = max(0, min(a.maxX, b.maxX) - max(a.x, b.x))
        let overlapH = max(0, min(a.maxY, b.maxY) - max(a.y, b.y))
        let covered = a.area + b.area - overlapW * overlapH
        let union = (max(a.maxX, b.maxX) - min(a.x, b.x)) * (max(a.maxY, b.maxY) - min(a.y, b.y))
        return union - covered <= max(1024, covered / 4)
    }
}
