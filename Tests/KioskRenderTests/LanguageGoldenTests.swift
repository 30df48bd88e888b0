import KioskCore
import KioskRender
import Testing
import KioskTestSupport

/// The start and round-over screens in six languages that need different things of the text:
/// German's long words, Arabic's joined letters right to left, Hebrew right to left, Japanese
/// from the CJK font, Hindi's combining Devanagari. The words come from `po/` as shipped.
@Suite struct LanguageGoldenTests {
    static let languages = ["en", "de", "ar", "he", "ja", "hi"]

    static func words(_ code: String) throws -> MessageCatalogue {
        let language = try #require(KioskLanguage(code: code))
        guard code != "en" else { return .english }
        return MessageCatalogue(language: language, translations: try #require(POFile.shipped(code)).translations)
    }

    /// The golden screens' session (classic only, so the start screen has the Start button and
    /// the high-score lists), with `words`.
    static func builder(_ s: KioskSession, _ code: String) throws -> SceneBuilder {
        var builder = SceneBuilder(field: s.game.field, seed: 21)
        builder.words = try words(code)
        builder.scores = ScoreBoard(lists: [.classic: ScoreBoard.Lists(today: [1180, 90], allTime: [12420, 1310, 180])])
        return builder
    }

    @Test(arguments: languages) func startScreen(_ code: String) throws {
        let s = ScreenGoldenTests.session()
        var builder = try Self.builder(s, code)
        let scene = builder.scene(s, at: TimeStamp(milliseconds: 100))
        #expect(scene.language == (try Self.words(code)).language.tag)
        Golden.check(ScreenGoldenTests.render(s, &builder, at: 100), named: "language-start-\(code)")
    }

    @Test(arguments: languages) func roundOver(_ code: String) throws {
        var s = ScreenGoldenTests.session()
        var builder = try Self.builder(s, code)
        ScreenGoldenTests.tap(&s, ScreenGoldenTests.startButton(s), at: 0, builder: &builder)
        let t = try ScreenGoldenTests.clearRound(&s, from: 1000, builder: &builder)
        #expect(s.game.screen == .roundOver)
        Golden.check(ScreenGoldenTests.render(s, &builder, at: t + 2000), named: "language-round-over-\(code)")
    }
}
