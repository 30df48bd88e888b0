import KioskCore
import Testing

/// Compiled gettext catalogues read as msgfmt writes them, and never a crash on a broken one.
@Suite struct MOFileTests {
    /// A catalogue of `pairs` (msgid, msgstr) in msgfmt's layout, in either byte order.
    static func catalogue(_ pairs: [(String, String)], bigEndian: Bool = false) -> [UInt8] {
        func word(_ v: Int) -> [UInt8] {
            let b = [UInt8(v >> 24 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)]
            return bigEndian ? b : b.reversed()
        }
        let n = pairs.count, originals = 28, translations = originals + 8 * n
        var strings: [UInt8] = [], tableO: [UInt8] = [], tableT: [UInt8] = []
        let start = translations + 8 * n
        for (id, _) in pairs {
            tableO += word(id.utf8.count) + word(start + strings.count)
            strings += Array(id.utf8) + [0]
        }
        for (_, text) in pairs {
            tableT += word(text.utf8.count) + word(start + strings.count)
            strings += Array(text.utf8) + [0]
        }
        return word(0x9504_12DE) + word(0) + word(n) + word(originals) + word(translations) + word(0) + word(0)
            + tableO + tableT + strings
    }

    let pairs = [("", "Content-Type: text/plain; charset=UTF-8\n"), ("Play again", "Nochmal spielen"),
                 ("Score {score}", "نقاط {score}"), ("Today", "")]

    @Test func readsEitherByteOrderAndSkipsTheHeaderAndUntranslated() throws {
        for big in [false, true] {
            let table = try MOFile.translations(Self.catalogue(pairs, bigEndian: big))
            #expect(table == ["Play again": "Nochmal spielen", "Score {score}": "نقاط {score}"])
        }
    }

    @Test func whatIsNoCatalogueIsOneReason() {
        #expect(throws: MOFile.FormatError.self) { try MOFile.translations(Array("msgid \"x\"".utf8)) }
        #expect(throws: MOFile.FormatError.self) { try MOFile.translations([]) }
        var huge = Self.catalogue(pairs)
        huge[8] = 0xFF; huge[9] = 0xFF; huge[10] = 0xFF; huge[11] = 0x7F  // two billion strings
        #expect(throws: MOFile.FormatError.self) { try MOFile.translations(huge) }
    }

    /// Every byte of a good catalogue changed, and every cut: an error or a table, never a trap.
    @Test func mutatedAndCutCataloguesNeverCrash() {
        let good = Self.catalogue(pairs)
        var rng = SeededGenerator(seed: 31)
        var tables = 0
        for index in good.indices {
            for _ in 0..<8 {
                var bad = good
                bad[index] = UInt8(truncatingIfNeeded: rng.next())
                if (try? MOFile.translations(bad)) != nil { tables += 1 }
            }
            if (try? MOFile.translations(Array(good[..<index]))) != nil { tables += 1 }
        }
        // Changes inside the strings still read: the loop did reach the parser's success path.
        #expect(tables > 0)
    }
}
