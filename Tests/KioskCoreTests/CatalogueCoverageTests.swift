import KioskCore
import Testing
import KioskTestSupport

/// The catalogues in `po/` against the messages in the code: every msgid the code shows is in
/// every catalogue, translated, with the same marks, and none is left over.
@Suite struct CatalogueCoverageTests {
    static let codes = KioskLanguage.shippedCodes.filter { $0 != "en" }

    @Test func fourteenLanguagesBesideEnglish() {
        // German, French, Spanish, Italian, Dutch, Portuguese, Polish, Turkish, Japanese,
        // Simplified Chinese, Korean, Arabic, Hebrew, Hindi (MessageCatalogueFileTests checks
        // po/ holds no other).
        #expect(Set(Self.codes) == ["de", "fr", "es", "it", "nl", "pt", "pl", "tr", "ja", "zh_CN", "ko", "ar", "he", "hi"])
    }

    @Test(arguments: codes) func catalogueCoversEveryMessageAndNothingElse(_ code: String) throws {
        let po = try #require(POFile.shipped(code))
        let ids = po.messages.map(\.id)
        let wanted = UIMessage.allCases.map(\.english)
        #expect(ids.filter { !wanted.contains($0) } == [], "stale msgids in \(code).po: make po")
        #expect(wanted.filter { !ids.contains($0) } == [], "untranslated msgids in \(code).po")
        #expect(po.fuzzy.isEmpty, "fuzzy entries in \(code).po")
        for (id, text) in po.messages {
            #expect(!text.isEmpty, "\(code).po: '\(id)' has no translation")
            #expect(UIMessage.placeholders(in: text).sorted() == UIMessage.placeholders(in: id).sorted(),
                    "\(code).po: '\(text)' does not keep the marks of '\(id)'")
        }
        #expect(po.header["Language"] == code)
        #expect(po.header["Content-Type"] == "text/plain; charset=UTF-8")
        // Said in the header, for the operator who reads the file and for tools.
        #expect(po.header["X-Machine-Translated"] == "yes")
    }

    @Test func templateIsCurrent() throws {
        let pot = try #require(readText(POFile.folder + "/bubble-kiosk.pot"))
        #expect(pot == MessageTemplate.pot(), "po/bubble-kiosk.pot is stale: make po")
        let parsed = POFile(text: pot)
        #expect(parsed.messages.map(\.id) == UIMessage.allCases.map(\.english))
    }

    @Test func everyMessageIsAConfigKey() {
        let keys = ConfigSchema.standard.keys.filter { $0.section == "text" }.map(\.name)
        #expect(keys == UIMessage.allCases.map(\.rawValue))
        #expect(Set(UIMessage.allCases.map(\.english)).count == UIMessage.allCases.count, "two messages share a msgid")
    }
}
