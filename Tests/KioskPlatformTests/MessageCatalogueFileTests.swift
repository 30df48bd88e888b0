import Glibc
import KioskCore
import KioskPlatform
import KioskTestSupport
import Testing

/// The translations as the kiosk reads them: `po/*.po` compiled by msgfmt (as `make locale`
/// and `make install` do) and looked up through the C library's gettext.
@Suite(.serialized) struct MessageCatalogueFileTests {
    /// A locale folder with every catalogue of `po/` compiled into it.
    static func compiled() throws -> TemporaryDirectory {
        let dir = TemporaryDirectory("locale")
        for code in KioskLanguage.shippedCodes where code != "en" {
            let target = dir.path + "/\(code)/LC_MESSAGES"
            #expect(makeDirectories(target))
            let status = system("msgfmt --check -o \(target)/bubble-kiosk.mo \(POFile.folder)/\(code).po")
            try #require(status == 0, "msgfmt failed on \(code).po (gettext installed? make deps)")
        }
        return dir
    }

    @Test func catalogueFoldersAreBesideTheProgramWithoutDotDot() {
        #expect(MessageCatalogueFile.directories(program: "/usr/bin/bubble-kiosk") == ["/usr/share/locale", "/locale"])
        #expect(MessageCatalogueFile.directories(program: "/usr/local/bin/bubble-kiosk")
            == ["/usr/local/share/locale", "/usr/locale", "/usr/share/locale"])
        #expect(MessageCatalogueFile.directories(program: "/src/kiosk/.build/x86_64-unknown-linux-gnu/debug/bubble-kiosk")
            == ["/src/kiosk/.build/x86_64-unknown-linux-gnu/share/locale", "/src/kiosk/.build/locale", "/usr/share/locale"])
    }

    @Test func poHoldsOnlyShippedLanguages() throws {
        let names = try FileSystem.listDirectory(POFile.folder).filter { $0.hasSuffix(".po") }
        #expect(Set(names.map { String($0.dropLast(3)) }) == Set(KioskLanguage.shippedCodes.filter { $0 != "en" }))
    }

    @Test func everyLanguageReadsBackWhatItsCatalogueSays() throws {
        let dir = try Self.compiled()
        for code in KioskLanguage.shippedCodes where code != "en" {
            let language = try #require(KioskLanguage(code: code))
            let po = try #require(POFile.shipped(code))
            let loaded = MessageCatalogueFile.load(language, directories: ["/nonexistent", dir.path])
            guard case .success(let words) = loaded else { Issue.record("\(code): \(loaded)"); continue }
            #expect(words == po.translations, "\(code)")
            #expect(words.count == UIMessage.allCases.count)
        }
    }

    @Test func gettextsSettingsAreLeftAsTheyWere() throws {
        let dir = try Self.compiled()
        unsetenv("LANGUAGE")
        let before = String(cString: setlocale(LC_MESSAGES, nil))
        _ = MessageCatalogueFile.load(KioskLanguage(code: "ja")!, directories: [dir.path])
        #expect(getenv("LANGUAGE") == nil)
        #expect(String(cString: setlocale(LC_MESSAGES, nil)) == before)
        // A second language after the first: gettext's cache does not keep the first's words.
        guard case .success(let de) = MessageCatalogueFile.load(KioskLanguage(code: "de")!, directories: [dir.path]),
              case .success(let ja) = MessageCatalogueFile.load(KioskLanguage(code: "ja")!, directories: [dir.path]) else {
            Issue.record("no catalogue")
            return
        }
        #expect(de[.playAgain] == POFile.shipped("de")?.translations[.playAgain])
        #expect(ja[.playAgain] == POFile.shipped("ja")?.translations[.playAgain])
        #expect(de[.playAgain] != ja[.playAgain])
    }

    @Test func aMissingCatalogueSaysWhereItLooked() {
        let result = MessageCatalogueFile.load(KioskLanguage(code: "ko")!, directories: ["/nonexistent/a", "/nonexistent/b"])
        guard case .failure(let error) = result else { Issue.record("found a catalogue in /nonexistent"); return }
        #expect(error.description.contains("ko/LC_MESSAGES/bubble-kiosk.mo"))
        #expect(error.looked.count == 2)
        #expect(MessageCatalogueFile.load(.english, directories: []) == .success([:]))
    }
}
