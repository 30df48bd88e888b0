import KioskCore
@testable import KioskRender
import Testing

/// The sprite cache stays within its byte budget by dropping the least recently used sprites,
/// and never drops what the frames being drawn need: those stay hits.
@Suite struct SpriteCacheTests {
    /// A plain bubble of diameter 30: a 32x32 sprite, 4096 bytes. `n` picks its colour, so
    /// every `n` is a sprite of its own, all of one size.
    static func key(_ n: Int) -> SpriteKey {
        .bubble(diameter: 30, color: RGBColor(r: Double(n % 256) / 255, g: Double(n / 256) / 255, b: 0.5), content: .none)
    }

    static let spriteBytes = 32 * 32 * 4

    @Test func aSpriteIsAsLargeAsTheBudgetCountsIt() {
        let cache = SpriteCache(byteBudget: 1 << 20)
        #expect(cache.sprite(Self.key(0)).byteCount == Self.spriteBytes)
        #expect(cache.byteCount == Self.spriteBytes && cache.count == 1)
    }

    /// A thousand distinct sprites, one a frame (popped bubbles, changing scores): the cache
    /// never holds more than its budget, and drops exactly what it must.
    @Test func theBudgetHoldsUnderManyDistinctSprites() {
        let budget = 10 * Self.spriteBytes
        let cache = SpriteCache(byteBudget: budget)
        for n in 0..<1000 {
            _ = cache.sprite(Self.key(n))
            #expect(cache.byteCount <= budget, "frame \(n): \(cache.byteCount) bytes")
            cache.endFrame()
        }
        #expect(cache.count == 10)
        #expect(cache.evictions == 990)
        #expect(cache.misses == 1000)
        // The newest ten are the ones left.
        #expect((990..<1000).allSatisfy { cache.isCached(Self.key($0)) })
    }

    /// Several sprites a frame, of many sizes: the cache holds no more than its budget, or than
    /// the sprites of the frame under way and the last (which are never dropped).
    @Test func theBudgetHoldsWithSpritesOfManySizes() {
        let budget = 200_000
        let cache = SpriteCache(byteBudget: budget)
        var lastFrame = 0
        for frame in 0..<200 {
            var thisFrame = 0
            for i in 0..<5 {
                let d = 10 + (frame * 7 + i * 13) % 90
                thisFrame += cache.sprite(.bubble(diameter: d, color: .bubble(frame % 8), content: .taps(1 + i))).byteCount
                #expect(cache.byteCount <= max(budget, lastFrame + thisFrame), "frame \(frame): \(cache.byteCount) bytes")
            }
            cache.endFrame()
            lastFrame = thisFrame
        }
        #expect(cache.evictions > 500)
    }

    @Test func theLeastRecentlyUsedGoesFirst() {
        let cache = SpriteCache(byteBudget: 3 * Self.spriteBytes)
        for n in 0..<3 {  // 0, 1 and 2, one a frame
            _ = cache.sprite(Self.key(n))
            cache.endFrame()
        }
        _ = cache.sprite(Self.key(0))  // 0 used again: now 1 is the least recently used
        cache.endFrame()
        cache.endFrame()
        cache.endFrame()
        _ = cache.sprite(Self.key(3))
        #expect(!cache.isCached(Self.key(1)))
        #expect(cache.isCached(Self.key(0)) && cache.isCached(Self.key(2)) && cache.isCached(Self.key(3)))
        cache.endFrame()
        cache.endFrame()
        _ = cache.sprite(Self.key(4))  // then 2, then 0
        #expect(!cache.isCached(Self.key(2)) && cache.isCached(Self.key(0)))
        cache.endFrame()
        cache.endFrame()
        _ = cache.sprite(Self.key(5))
        #expect(!cache.isCached(Self.key(0)))
        #expect(cache.evictions == 3 && cache.count == 3)
    }

    /// The score bar's text drawn every frame while bubbles come and go: it is rendered once.
    @Test func aSpriteUsedEveryFrameStays() {
        let cache = SpriteCache(byteBudget: 4 * Self.spriteBytes)
        let everyFrame = Self.key(9999)
        let first = cache.sprite(everyFrame)
        for n in 0..<500 {
            #expect(cache.sprite(everyFrame) === first)
            _ = cache.sprite(Self.key(n))
            cache.endFrame()
        }
        #expect(cache.isCached(everyFrame))
        #expect(cache.misses == 501)
    }

    /// A frame whose own sprites exceed the budget keeps them all, and so does the next one
    /// drawing them again, even as new sprites come: no sprite is rendered twice.
    @Test func hitsStayHitsWhenAFrameNeedsMoreThanTheBudget() {
        let cache = SpriteCache(byteBudget: 8 * Self.spriteBytes)
        let onScreen = (0..<20).map(Self.key)
        for frame in 0..<50 {
            // A new sprite early in the frame, before most of the screen's are drawn again.
            _ = cache.sprite(Self.key(1000 + frame))
            for key in onScreen { _ = cache.sprite(key) }
            cache.endFrame()
        }
        #expect(cache.misses == 20 + 50)
        #expect((0..<20).allSatisfy { cache.isCached(Self.key($0)) })
        // What came and went is dropped: only the screen and the last two frames' new ones.
        #expect(cache.count == 22)
    }

    /// Two screens drawn in turn (the bench's yardstick and the renderer sharing one cache)
    /// that together exceed the budget: every sprite is rendered once.
    @Test func hitsStayHitsForTwoScreensInTurn() {
        let cache = SpriteCache(byteBudget: 5 * Self.spriteBytes)
        for frame in 0..<40 {
            let screen = frame % 2 == 0 ? 0..<6 : 100..<106
            for n in screen { _ = cache.sprite(Self.key(n)) }
            cache.endFrame()
        }
        #expect(cache.misses == 12)
        #expect(cache.evictions == 0)
    }

    /// A sprite flattened onto the background takes more memory, which the budget counts.
    @Test func flattenedPixelsCountInTheBudget() {
        let cache = SpriteCache(byteBudget: 3 * Self.spriteBytes)
        let (sprite, flat) = cache.flattened(Self.key(0), onto: .kioskBackground)
        #expect(flat.byteCount > 0 && sprite.byteCount == Self.spriteBytes + flat.byteCount)
        #expect(cache.byteCount == sprite.byteCount && cache.misses == 1)
        // Flattened again: the same pixels, nothing new.
        #expect(cache.flattened(Self.key(0), onto: .kioskBackground).flat.pixels == flat.pixels)
        #expect(cache.byteCount == sprite.byteCount)
        for n in 1...3 {
            cache.endFrame()
            cache.endFrame()
            _ = cache.sprite(Self.key(n))
        }
        #expect(!cache.isCached(Self.key(0)) && cache.byteCount <= 3 * Self.spriteBytes)
    }

    /// The renderer's budget follows the screen: three quarters of a frame, at least 2 MB.
    @Test func theRenderersBudgetFollowsTheScreen() {
        #expect(SceneRenderer.spriteBudget(for: PixelSize(width: 1920, height: 1080)) == 1920 * 1080 * 3)
        #expect(SceneRenderer.spriteBudget(for: PixelSize(width: 800, height: 480)) == 2 << 20)
        let renderer = SceneRenderer(size: PixelSize(width: 800, height: 480))
        #expect(renderer.spriteBudgetBytes == 2 << 20)
        renderer.render(Scene(size: PixelSize(width: 3840, height: 2160), pxPerMM: 4))
        #expect(renderer.spriteBudgetBytes == 3840 * 2160 * 3)
        let fixed = SceneRenderer(size: PixelSize(width: 800, height: 480), spriteBudgetBytes: 1000)
        fixed.render(Scene(size: PixelSize(width: 1920, height: 1080), pxPerMM: 4))
        #expect(fixed.spriteBudgetBytes == 1000)
    }

    /// A field of bubbles redrawn whole again and again on a budget smaller than its sprites:
    /// after the first frame nothing is rendered, and the picture stays the same.
    @Test func aFullRedrawOverBudgetRendersNoSpriteTwice() {
        let scene = TestScenes.field()
        let tight = SceneRenderer(size: scene.size, spriteBudgetBytes: 64 << 10)
        let roomy = SceneRenderer(size: scene.size)
        tight.render(scene)
        roomy.render(scene)
        let rendered = tight.spritesRendered
        #expect(tight.spriteBytesLastFrame > 64 << 10, "\(tight.spriteBytesLastFrame) bytes")
        for _ in 0..<10 {
            tight.invalidate()
            tight.render(scene)
        }
        #expect(tight.spritesRendered == rendered)
        #expect(tight.spritesRendered == roomy.spritesRendered)
        let diff = ImageDifference(tight.frame, roomy.frame)
        #expect(diff.sameSize && diff.largestChannelDifference == 0, "\(diff.summary)")
    }
}
