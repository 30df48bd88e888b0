import KioskCore
@testable import KioskRender
import Testing

/// Text laid out by Pango: every script shaped (joined, right to left, conjuncts, marks) with
/// fallback fonts, cached per language, and a character no font has said once, never hidden.
@Suite struct TextShapingTests {
    /// "Play again" (or near it) in scripts the toy API could not draw.
    enum Sample: String, CaseIterable, CustomTestStringConvertible {
        case arabic = "text-arabic"
        case hebrew = "text-hebrew"
        case japanese = "text-japanese"
        case hindi = "text-hindi"
        case thai = "text-thai"

        var testDescription: String { rawValue }

        var string: String {
            switch self {
            case .arabic: "جولة جديدة"
            case .hebrew: "שחק שוב"
            case .japanese: "もう一度遊ぶ"
            case .hindi: "फिर से खेलें"
            case .thai: "เล่นอีกครั้ง"
            }
        }

        var language: String {
            switch self {
            case .arabic: "ar"
            case .hebrew: "he"
            case .japanese: "ja"
            case .hindi: "hi"
            case .thai: "th"
            }
        }

        /// The string centred over a button with it as its title.
        var scene: Scene {
            let size = PixelSize(width: 280, height: 130)
            return Scene(size: size, pxPerMM: 4, items: [
                SceneItem(id: .ui("title"), shape: .text(TextShape(
                    position: Vector2(140, 40), string: string, sizePx: 28, alignment: .center))),
                SceneItem(id: .ui("button"), shape: .button(ButtonShape(
                    rect: Rect(x: 40, y: 62, width: 200, height: 56), title: string))),
            ], language: language)
        }
    }

    @Test(arguments: Sample.allCases)
    func matchesItsGoldenImage(_ sample: Sample) {
        let scene = sample.scene
        let renderer = SceneRenderer(size: scene.size)
        renderer.render(scene)
        Golden.check(renderer.frame, named: sample.rawValue)
    }

    /// The same text in two languages is two sprites; in one language twice, one.
    @Test func textSpritesAreCachedPerLanguage() {
        let cache = SpriteCache(byteBudget: 1 << 22)
        let text = TextShape(position: .zero, string: "Start", sizePx: 24)
        _ = cache.sprite(SpriteCache.key(text, language: "en"))
        _ = cache.sprite(SpriteCache.key(text, language: "en"))
        #expect(cache.misses == 1)
        _ = cache.sprite(SpriteCache.key(text, language: "de"))
        #expect(cache.misses == 2 && cache.count == 2)
        let button = ButtonShape(rect: Rect(x: 0, y: 0, width: 120, height: 40), title: "Start")
        _ = cache.sprite(SpriteCache.key(button, language: "en"))
        _ = cache.sprite(SpriteCache.key(button, language: "en"))
        _ = cache.sprite(SpriteCache.key(button, language: "de"))
        #expect(cache.misses == 4 && cache.count == 4)
    }

    /// A scene in another language with the very same items is drawn again whole, from the
    /// new language's sprites.
    @Test func anotherLanguageRepaintsTheSameItems() {
        let english = Sample.japanese.scene
        var other = english
        other.language = "zh-cn"
        let renderer = SceneRenderer(size: english.size)
        renderer.render(english)
        #expect(renderer.render(english).isEmpty)
        let rendered = renderer.spritesRendered
        #expect(renderer.render(other) == [english.screenRect])
        #expect(renderer.spritesRendered == rendered + 2)
        #expect(renderer.render(other).isEmpty)
    }

    /// The renderer clips text to its estimated bounds: the laid-out line fits in them, in
    /// every script, full-width Chinese, Japanese and Korean included.
    @Test(arguments: Sample.allCases.map { ($0.string, $0.language) } + [
        ("再玩一次", "zh-cn"), ("다시 하기", "ko"), ("もう一度遊ぶ", "ja"), ("Noch einmal spielen", "de"), ("Play again", "en"),
    ])
    func theLineFitsItsEstimatedWidth(_ string: String, _ language: String) {
        let cache = SpriteCache(byteBudget: 1 << 22)
        let shape = TextShape(position: .zero, string: string, sizePx: 30)
        let sprite = cache.sprite(SpriteCache.key(shape, language: language))
        #expect(sprite.advance > 0)
        #expect(sprite.advance <= shape.estimatedWidth - 0.5 * shape.sizePx, "\(string): \(sprite.advance) px")
    }

    /// Lines the renderer reported (from the renderer's own thread).
    final class Lines {
        var all: [String] = []
    }

    /// U+E000 (private use) is in no installed font: one line names it and the font that stood
    /// in, however often and wherever it is drawn.
    @Test func aMissingGlyphIsReportedOncePerCharacter() {
        let lines = Lines()
        let size = PixelSize(width: 200, height: 100)
        for (n, sizePx) in [20.0, 30.0, 20.0].enumerated() {
            let renderer = SceneRenderer(size: size)
            renderer.onMissingGlyph = { lines.all.append($0) }
            renderer.render(Scene(size: size, pxPerMM: 4, items: [
                SceneItem(id: .ui("text"), shape: .text(TextShape(position: Vector2(10, 40), string: "a\u{E000}b", sizePx: sizePx))),
                SceneItem(id: .ui("button"), shape: .button(ButtonShape(
                    rect: Rect(x: 10, y: 50, width: 150, height: 40), title: "\u{E000}\u{E001} \(n)"))),
            ]))
        }
        #expect(lines.all.count == 2, "\(lines.all)")
        #expect(lines.all.filter { $0.contains("U+E000 \"\u{E000}\"") }.count == 1, "\(lines.all)")
        #expect(lines.all.filter { $0.contains("U+E001 \"\u{E001}\"") }.count == 1, "\(lines.all)")
        #expect(lines.all.allSatisfy { $0.contains("DejaVu Sans") }, "\(lines.all)")
    }

    /// Strings a font has in full are not reported.
    @Test func everyScriptSampleHasItsGlyphs() {
        let lines = Lines()
        for sample in Sample.allCases {
            let renderer = SceneRenderer(size: sample.scene.size)
            renderer.onMissingGlyph = { lines.all.append($0) }
            renderer.render(sample.scene)
        }
        #expect(lines.all.isEmpty, "\(lines.all)")
    }
}
