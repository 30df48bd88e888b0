import KioskCore
import Testing

struct TextSearchTests {
    /// Found at the start, in the middle and at the end; not found when only a prefix matches.
    @Test func findsAPartAnywhere() {
        #expect("/dev/../etc".containsText("/../"))
        #expect("/../etc".containsText("/../"))
        #expect("scores: cannot save a round".containsText("cannot save"))
        #expect("a/..".containsText("a/.."))
        #expect(!"/dev/cec0".containsText("/../"))
        #expect(!"/dev/..".containsText("/../"))
        #expect(!"cannot sav".containsText("cannot save"))
        #expect(!"".containsText("x"))
    }

    /// An empty part is in every text; a substring and non-ASCII text work too.
    @Test func emptyPartsSubstringsAndUTF8() {
        #expect("".containsText(""))
        #expect("abc".containsText(""))
        let line = "x: naïve café"
        #expect(line.dropFirst(3).containsText("café"))
        #expect(!line.containsText("cafe"))
    }
}
