import KioskCore
import Testing
import KioskTestSupport

/// The words on screen: languages, numbers, wording with marks, and the config keys.
@Suite struct LanguageTests {
    @Test func localeNamesMeanShippedLanguages() {
        #expect(KioskLanguage.fromLocale("de_DE.UTF-8")?.code == "de")
        #expect(KioskLanguage.fromLocale("pt_BR@euro")?.code == "pt")
        #expect(KioskLanguage.fromLocale("zh_CN.UTF-8")?.code == "zh_CN")
        #expect(KioskLanguage.fromLocale("zh_TW.UTF-8") == nil)
        #expect(KioskLanguage.fromLocale("C.UTF-8") == .english)
        #expect(KioskLanguage.fromLocale("POSIX") == .english)
        #expect(KioskLanguage.fromLocale("sv_SE.UTF-8") == nil)
        let env = ["LANG": "fr_FR.UTF-8", "LC_MESSAGES": "", "LC_ALL": "ar_EG.UTF-8"]
        #expect(KioskLanguage.fromEnvironment { env[$0] }.language?.code == "ar")
        #expect(KioskLanguage.fromEnvironment { ["LANG": "fr_FR.UTF-8"][$0] }.language?.code == "fr")
        #expect(KioskLanguage.fromEnvironment { _ in nil }.language == .english)
        #expect(KioskLanguage.fromEnvironment { ["LANG": "fi_FI"][$0] } .language == nil)
    }

    @Test func numbersFollowTheLanguage() {
        func n(_ code: String, _ v: Int) -> String { NumberStyle.of(KioskLanguage(code: code)!).format(v) }
        #expect(n("en", 1234567) == "1,234,567")
        #expect(n("en", 999) == "999")
        #expect(n("de", 12345) == "12.345")
        #expect(n("fr", 12345) == "12\u{202F}345")
        #expect(n("es", 1234) == "1234")
        #expect(n("es", 12345) == "12.345")
        #expect(n("pl", 1234) == "1234")
        #expect(n("hi", 1234567) == "12,34,567")
        #expect(n("hi", 12345) == "12,345")
        #expect(n("ar", 1205) == "١٬٢٠٥")
        #expect(n("en", -42) == "-42")
        #expect(NumberStyle.of(KioskLanguage(code: "ar")!).clock(seconds: 65) == "١:٠٥")
        #expect(NumberStyle.english.clock(seconds: 9) == "0:09")
        #expect(NumberStyle.english.clock(seconds: 600) == "10:00")
    }

    @Test func marksAreFilledInTheLanguagesStyle() {
        var words = MessageCatalogue(language: KioskLanguage(code: "de")!, translations: [.score: "Punkte {score}"])
        #expect(words.text(.score, ["score": 12345]) == "Punkte 12.345")
        #expect(words.text(.playAgain) == "Play again")  // not translated: English
        words.translations[.newHighScore] = "{rank}. Platz {unbekannt} {"
        #expect(words.text(.newHighScore, ["rank": 2]) == "2. Platz {unbekannt} {")
        var overrides = TextOverrides()
        overrides[.playAgain] = "Nochmal!"
        overrides[.start] = ""
        #expect(words.overridden(by: overrides).text(.playAgain) == "Nochmal!")
        #expect(words.overridden(by: overrides).text(.start) == "Start")
        #expect(UIMessage.placeholders(in: "a {x} b {yy}") == ["x", "yy"])
    }

    @Test func languageTextAndBrandingKeysAreChecked() {
        let good = loadConfig("""
            [kiosk]
            language = ar
            [text]
            play_again = Encore une fois
            final_score_is_no_key = x
            score = Punkte: {score}
            [branding]
            title = Stadtmuseum
            accent = #12abEF  # the museum's blue
            [text]
            new_high_score = Rekord! #{rank} ## said twice: a comment
            """)
        #expect(!good.hasErrors)
        #expect(good.settings.kiosk.language == "ar")
        #expect(good.settings.text[.playAgain] == "Encore une fois")
        #expect(good.settings.text[.score] == "Punkte: {score}")
        #expect(good.settings.branding.title == "Stadtmuseum")
        #expect(good.settings.branding.accentColor == RGBColor(hex: 0x12_AB_EF))
        #expect(good.settings.text[.newHighScore] == "Rekord! #{rank}")
        #expect(good.diagnostics.map(\.description) == ["k.conf:5: warning: unknown key 'final_score_is_no_key' in [text]"])

        let bad = loadConfig("""
            [kiosk]
            language = klingon
            [text]
            score = Punkte {punkte}
            [branding]
            background = blue
            logo = logo.png
            """)
        let lines = bad.diagnostics.map(\.description)
        #expect(lines.count == 4)
        #expect(lines.contains { $0.contains("k.conf:2") && $0.contains("klingon") && $0.contains("auto or one of en, de") })
        #expect(lines.contains { $0.contains("k.conf:4") && $0.contains("{punkte}") })
        #expect(lines.contains { $0.contains("k.conf:6") && $0.contains("#RRGGBB") })
        #expect(lines.contains { $0.contains("k.conf:7") && $0.contains("absolute path") })
    }

    @Test func defaultsKeepTheGamesLook() {
        let b = BrandingSettings()
        #expect(b.backgroundColor == .kioskBackground)
        #expect(b.accentColor == .accent)
        #expect(b.textColor == .white)
        #expect(BrandColor.parse("#0A84FF") == .accent)
        #expect(BrandColor.parse("0A84FF") == nil)
        #expect(BrandColor.parse("#0A84FG") == nil)
        #expect(BrandColor.parse("#0A84FF0") == nil)
    }

    @Test func theLogoFitsAboveTheTitle() throws {
        // A wide logo is limited by the width, a tall one by the band; never scaled up past 2.
        let wide = try #require(BrandingSettings.logoRect(PixelSize(width: 2000, height: 500), centreX: 640, top: 16, bottom: 216, maxWidth: 768))
        #expect(wide.width == 768 && wide.height == 192 && wide.x == 256 && wide.y + wide.height == 216)
        let tall = try #require(BrandingSettings.logoRect(PixelSize(width: 100, height: 400), centreX: 640, top: 16, bottom: 216, maxWidth: 768))
        #expect(tall.height == 200 && tall.width == 50)
        let tiny = try #require(BrandingSettings.logoRect(PixelSize(width: 10, height: 10), centreX: 640, top: 16, bottom: 216, maxWidth: 768))
        #expect(tiny.width == 20)
        #expect(BrandingSettings.logoRect(PixelSize(width: 100, height: 100), centreX: 640, top: 16, bottom: 20, maxWidth: 768) == nil)
    }
}

/// The start, round and round-over screens in other words and colours, and right to left.
@Suite struct LocalizedSceneTests {
    static func texts(_ scene: Scene) -> [String: TextShape] {
        var out: [String: TextShape] = [:]
        for item in scene.items {
            if case .ui(let name) = item.id, case .text(let t) = item.shape { out[name] = t }
        }
        return out
    }

    static let arabic = MessageCatalogue(language: KioskLanguage(code: "ar")!, translations: [.score: "النقاط {score}", .start: "ابدأ"])

    @Test func startScreenShowsTheBrandAndTheWords() {
        let s = makeSession { $0.branding.title = "Stadtmuseum"; $0.branding.background = "#FFFFFF"; $0.branding.accent = "#112233" }
        var builder = SceneBuilder(field: s.game.field, seed: 1)
        builder.words = MessageCatalogue(language: KioskLanguage(code: "de")!, translations: [.hintDrag: "Tippe", .start: "Los"])
        let scene = builder.scene(s, at: .zero)
        let texts = Self.texts(scene)
        #expect(texts["title"]?.string == "Stadtmuseum")
        #expect(texts["hint"]?.string == "Tippe")
        #expect(scene.background == .white)
        let button = scene.items.compactMap { if case .button(let b) = $0.shape { b } else { nil } }.first
        #expect(button?.title == "Los" && button?.color == RGBColor(hex: 0x11_22_33))
    }

    @Test func rightToLeftPutsTheScoreOnTheRight() throws {
        var s = makeSession()
        _ = s.startDemo(at: .zero)
        var builder = SceneBuilder(field: s.game.field, seed: 1)
        let ltr = Self.texts(builder.scene(s, at: .zero))
        builder.words = Self.arabic
        let rtl = Self.texts(builder.scene(s, at: .zero))
        let l = try #require(ltr["score"]), r = try #require(rtl["score"])
        #expect(l.alignment == .left && l.position.x < 100)
        #expect(r.alignment == .right && r.position.x > 1180)
        #expect(r.string == "النقاط ٠")
        #expect(try #require(rtl["clock"]).position.x < 100)
    }

    @Test func highScoreListsMirrorRightToLeft() throws {
        let s = makeSession()
        var builder = SceneBuilder(field: s.game.field, seed: 1)
        builder.scores = ScoreBoard(lists: [.classic: ScoreBoard.Lists(today: [1234, 50], allTime: [1234, 900])])
        let ltr = Self.texts(builder.scene(s, at: .zero))
        builder.words = Self.arabic
        let rtl = Self.texts(builder.scene(s, at: .zero))
        #expect(try #require(ltr["scores-today"]).position.x < 640)
        #expect(try #require(rtl["scores-today"]).position.x > 640)
        #expect(try #require(ltr["scores-today-0"]).string == "1,234")
        #expect(try #require(rtl["scores-today-0"]).string == "١٬٢٣٤")
        // Rank before score in reading order: right of it in Arabic.
        #expect(try #require(rtl["scores-today-0-rank"]).position.x > (try #require(rtl["scores-today-0"])).position.x)
    }
}
