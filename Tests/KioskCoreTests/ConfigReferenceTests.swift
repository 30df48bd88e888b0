@testable import KioskCore
import Testing
import KioskTestSupport

/// The configuration reference in `doc/` is generated from the key table: a key added, renamed
/// or re-documented without regenerating it fails here.
@Suite struct ConfigReferenceTests {
    static let repository = String(#filePath.split(separator: "/", omittingEmptySubsequences: false).dropLast(3)
        .joined(separator: "/"))

    @Test(arguments: [(ConfigReference.Format.markdown, "doc/configuration.md"), (.man, "doc/bubble-kiosk.conf.5")])
    func committedReferenceIsCurrent(format: ConfigReference.Format, file: String) throws {
        let path = Self.repository + "/" + file
        let text = try #require(readText(path), "cannot read \(path)")
        #expect(text == ConfigReference.render(format),
                "regenerate with: bubble-kiosk check-config --reference \(format.rawValue) > \(file)")
    }

    /// Every key of every section has its row in the Markdown table and its entry in the man
    /// page, under its own section, with its default.
    @Test func everyKeyIsDescribedUnderItsSection() {
        let schema = ConfigSchema.standard
        let markdown = ConfigReference.render(.markdown)
        let man = ConfigReference.render(.man)
        for section in schema.sections {
            let markdownPart = part(of: markdown, from: "\n## `[\(section)]`\n", to: "\n## ")
            let manPart = part(of: man, from: "\n.SS \"[\(section)]\"\n", to: "\n.S")
            #expect(!markdownPart.isEmpty && !manPart.isEmpty, "section \(section)")
            for key in schema.keys where key.section == section {
                let shown = key.render(Settings())
                let row = "| `\(key.name)` | "
                #expect(markdownPart.contains(row), "\(key.id) has no row")
                #expect(markdownPart.contains(shown.isEmpty ? "| (nothing) |" : "| `\(shown)` |"), "\(key.id)'s default")
                #expect(manPart.contains("\n.B \(key.name.replacing("\\", with: "\\e"))\n"), "\(key.id) has no man entry")
            }
        }
        #expect(markdown.split(separator: "\n| `", omittingEmptySubsequences: false).count - 1 == schema.keys.count)
    }

    /// A new section gets a line saying what it is for, and links into the guides.
    @Test func everySectionHasANote() {
        let markdown = ConfigReference.render(.markdown)
        for section in ConfigSchema.standard.sections {
            #expect(markdown.contains("- [`[\(section)]`](#\(section)): "), "section \(section) has no note")
        }
    }

    /// Every line the man page starts with a dot is one of the man macros it means to use, so no
    /// text (a doc line starting with a dot) is taken for a request.
    @Test func manPageLinesAreTextOrKnownMacros() {
        let macros: Set<String> = [".TH", ".SH", ".SS", ".TP", ".B", ".I", ".BR", ".PP", ".br", ".\\\""]
        for line in ConfigReference.render(.man).split(separator: "\n") where line.hasPrefix(".") || line.hasPrefix("'") {
            let macro = String(line.prefix { $0 != " " })
            #expect(macros.contains(macro), "\(line)")
        }
        #expect(ConfigReference.roffProse(".hidden `a-b` \\x") == "\\&.hidden \\fBa\\-b\\fR \\ex\n")
    }

    @Test func markdownLinesStayWithinTheirWidthAndStartNoBlock() {
        // "-", "1." and "#" would start a list or a heading: they stay on the line before.
        let text = "one two three four - five 1. six # seven"
        #expect(ConfigReference.wrapped(text, width: 9) == "one two\nthree\nfour -\nfive 1.\nsix #\nseven\n")
    }

    /// `text` from the first `start` to the next `end` after it; empty when `start` is missing.
    private func part(of text: String, from start: String, to end: String) -> Substring {
        guard let from = text.firstRange(of: start) else { return "" }
        let rest = text[from.upperBound...]
        return rest[..<(rest.firstRange(of: end)?.lowerBound ?? rest.endIndex)]
    }
}
