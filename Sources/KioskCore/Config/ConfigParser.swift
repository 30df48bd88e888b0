/// One `key = value` line as written in a config file, with where it came from.
public struct ConfigEntry: Equatable, Sendable {
    /// The section it is under; nil when it comes before any `[section]` line
    /// (the parser knows no keys, so `ConfigBuilder` reports it with a hint).
    public var section: String?
    public var key: String
    /// The value without surrounding whitespace or a trailing ` # comment`; may be empty.
    public var value: String
    public var file: String
    public var line: Int

    public init(section: String?, key: String, value: String, file: String, line: Int) {
        self.section = section
        self.key = key
        self.value = value
        self.file = file
        self.line = line
    }
}

/// A `[section]` line as written in a config file.
public struct ConfigSectionHeader: Equatable, Sendable {
    public var name: String
    public var file: String
    public var line: Int

    public init(name: String, file: String, line: Int) {
        self.name = name
        self.file = file
        self.line = line
    }
}

/// One file split into section headers and entries, plus its syntax errors.
public struct ParsedConfig: Equatable, Sendable {
    public var file: String
    public var sections: [ConfigSectionHeader] = []
    public var entries: [ConfigEntry] = []
    /// Syntax errors in line order, at most `ConfigDiagnostic.maximumPerFile` of them.
    public var diagnostics: [ConfigDiagnostic] = []
    /// Syntax errors found past that limit, counted only.
    public var omittedErrors = 0

    public init(file: String) {
        self.file = file
    }
}

/// Reads the INI-like syntax; it knows no keys, so the schema can grow without touching it.
public enum ConfigParser {
    /// Parses `text`; `file` is only used to label entries and diagnostics.
    public static func parse(_ text: String, file: String) -> ParsedConfig {
        var result = ParsedConfig(file: file)
        // Keys under a broken header are skipped silently: the header's error already
        // explains them, and guessing their section would only add misleading messages.
        enum Current { case none, named(String), broken }
        var current = Current.none

        // "\r\n" is a single Character in Swift, so files edited on Windows need their own separator.
        let lines = text.split(omittingEmptySubsequences: false) { $0 == "\n" || $0 == "\r\n" }
        for (index, rawLine) in lines.enumerated() {
            let number = index + 1
            var line = rawLine
            if index == 0, line.first == "\u{FEFF}" { line = line.dropFirst() }
            let content = trimmed(stripComment(line))
            if content.isEmpty { continue }

            func fail(_ message: String) {
                if result.diagnostics.count < ConfigDiagnostic.maximumPerFile {
                    result.diagnostics.append(.error(file, number, message))
                } else {
                    result.omittedErrors += 1
                }
            }

            if content.first == "[" {
                guard content.last == "]", content.count >= 2 else {
                    fail(syntaxMessage(content))
                    current = .broken
                    continue
                }
                let name = trimmed(content.dropFirst().dropLast())
                guard isIdentifier(name) else {
                    fail("invalid section name '\(echoed(name))': use lowercase letters, digits and '_'")
                    current = .broken
                    continue
                }
                current = .named(String(name))
                result.sections.append(ConfigSectionHeader(name: String(name), file: file, line: number))
            } else if let equals = content.firstIndex(of: "=") {
                let key = trimmed(content[..<equals])
                let value = trimmed(content[content.index(after: equals)...])
                guard !key.isEmpty else {
                    fail(syntaxMessage(content))
                    continue
                }
                guard isIdentifier(key) else {
                    fail("invalid key name '\(echoed(key))': use lowercase letters, digits and '_'")
                    continue
                }
                let section: String?
                switch current {
                case .broken: continue
                case .none: section = nil
                case .named(let name): section = name
                }
                result.entries.append(ConfigEntry(
                    section: section, key: String(key), value: String(value), file: file, line: number))
            } else {
                fail(syntaxMessage(content))
            }
        }
        return result
    }

    /// True for the names the format allows: lowercase letters, digits and `_`, not starting with a digit.
    public static func isIdentifier<S: StringProtocol>(_ text: S) -> Bool {
        guard let first = text.utf8.first, first == UInt8(ascii: "_") || isLower(first) else { return false }
        return text.utf8.allSatisfy { $0 == UInt8(ascii: "_") || isLower($0) || isDigit($0) }
    }

    private static func isLower(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z") }
    private static func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

    private static func syntaxMessage(_ content: Substring) -> String {
        // Long garbage (a pasted binary, a minified file) should not flood the terminal.
        "expected '[section]' or 'key = value', got '\(echoed(content, limit: 60))'"
    }

    /// Cuts a `#` comment: at the start of the line, or after whitespace where whitespace, another
    /// `#` or the line's end follows; so values such as `a#b`, a colour `#1A2B3C` or the wording
    /// `Rekord! #{rank}` keep their `#`.
    static func stripComment(_ line: Substring) -> Substring {
        var previous: Character? = nil
        for index in line.indices {
            let c = line[index]
            if c == "#" {
                if previous == nil { return line[..<index] }
                let next = line.index(after: index)
                if previous!.isWhitespace && (next == line.endIndex || line[next].isWhitespace || line[next] == "#") {
                    return line[..<index]
                }
            }
            previous = c
        }
        return line
    }

    /// `text` without the spaces and tabs around it: the blanks a value's parts (a schedule's
    /// ranges, a list's names) may have after their commas.
    static func trimmingBlanks(_ text: Substring) -> Substring {
        var s = text
        while let c = s.first, c == " " || c == "\t" { s = s.dropFirst() }
        while let c = s.last, c == " " || c == "\t" { s = s.dropLast() }
        return s
    }

    static func trimmed(_ text: Substring) -> Substring {
        var result = text
        while let c = result.first, c.isWhitespace { result = result.dropFirst() }
        while let c = result.last, c.isWhitespace { result = result.dropLast() }
        return result
    }
}

/// Edit distance counting insertions, deletions, substitutions and swaps of neighbours,
/// since a swapped pair (`bubbels`) is the most common typo in a key name.
func configEditDistance(_ a: String, _ b: String) -> Int {
    // Callers only ask whether the distance is at most 2, and it is at least the difference
    // in length: returning that lower bound keeps a megabyte-long key from costing a
    // megabyte-sized table per known key.
    let lengths = (a.utf8.count, b.utf8.count)
    if abs(lengths.0 - lengths.1) > 2 { return abs(lengths.0 - lengths.1) }
    let x = Array(a.utf8), y = Array(b.utf8)
    if x.isEmpty { return y.count }
    if y.isEmpty { return x.count }
    var rows = [[Int]](repeating: [Int](repeating: 0, count: y.count + 1), count: x.count + 1)
    for i in 0...x.count { rows[i][0] = i }
    for j in 0...y.count { rows[0][j] = j }
    for i in 1...x.count {
        for j in 1...y.count {
            let cost = x[i - 1] == y[j - 1] ? 0 : 1
            var best = min(rows[i - 1][j] + 1, rows[i][j - 1] + 1, rows[i - 1][j - 1] + cost)
            if i > 1, j > 1, x[i - 1] == y[j - 2], x[i - 2] == y[j - 1] {
                best = min(best, rows[i - 2][j - 2] + 1)
            }
            rows[i][j] = best
        }
    }
    return rows[x.count][y.count]
}

/// Whole numbers only; `3.0` is rejected on purpose, as counts are never fractional.
func parseConfigInt(_ text: String) -> Int? {
    Int(text)
}

/// Plain decimals only (`3`, `-0.5`, `.5`); `Double.init` alone would also take
/// `nan`, `inf`, `1e3` and hex floats, which no operator means in a kiosk config (nor on a
/// command line: the commands' numeric options use it too).
public func parseConfigDouble(_ text: String) -> Double? {
    var bytes = Substring(text).utf8[...]
    if let sign = bytes.first, sign == UInt8(ascii: "-") || sign == UInt8(ascii: "+") { bytes = bytes.dropFirst() }
    let isDigit = { (b: UInt8) in b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9") }
    let parts = bytes.split(separator: UInt8(ascii: "."), maxSplits: 1, omittingEmptySubsequences: false)
    guard let whole = parts.first, whole.allSatisfy(isDigit) else { return nil }
    if parts.count == 2 {
        guard !parts[1].isEmpty, parts[1].allSatisfy(isDigit) else { return nil }
    } else if whole.isEmpty {
        return nil
    }
    return Double(text)
}

/// A config value as the effective-settings print and the messages write it (`NumberText.plain`).
func formatConfigNumber(_ value: Double) -> String { NumberText.plain(value) }
