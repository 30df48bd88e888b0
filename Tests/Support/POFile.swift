import KioskCore

/// A gettext catalogue as the tests read it from `po/`: its header fields and its messages,
/// strings joined across continuation lines and unescaped. Enough for the catalogues msgmerge
/// and people write (no plurals, no contexts); the product reads compiled `.mo` files through
/// the C library instead.
public struct POFile {
    public var header: [String: String] = [:]
    /// msgid to msgstr, in file order.
    public var messages: [(id: String, text: String)] = []
    /// The `#, fuzzy` entries' msgids (gettext does not use their translations).
    public var fuzzy: Set<String> = []

    /// The repository's `po/` folder.
    public static var folder: String {
        #filePath.split(separator: "/", omittingEmptySubsequences: false).dropLast(3).joined(separator: "/") + "/po"
    }

    public init(text: String) {
        var id: String?, str: String?, field = "", isFuzzy = false
        func finish() {
            if let i = id, let s = str {
                if i.isEmpty {
                    for line in s.split(separator: "\n") {
                        guard let colon = line.firstIndex(of: ":") else { continue }
                        header[String(line[..<colon])] = String(line[line.index(after: colon)...].drop { $0 == " " })
                    }
                } else {
                    messages.append((i, s))
                    if isFuzzy { fuzzy.insert(i) }
                }
            }
            id = nil; str = nil; isFuzzy = false
        }
        for raw in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let line = raw.drop { $0 == " " }
            if line.hasPrefix("#") || line.isEmpty {
                // A comment or a blank line ends the entry before it; `#, fuzzy` marks the next.
                if str != nil { finish() }
                if line.hasPrefix("#,") && line.split(separator: ",").contains(where: { $0.drop { $0 == " " } == "fuzzy" }) {
                    isFuzzy = true
                }
                continue
            }
            if line.hasPrefix("msgid ") {
                if str != nil { finish() }
                id = Self.unquote(line.dropFirst(6)); field = "id"
            } else if line.hasPrefix("msgstr ") {
                str = Self.unquote(line.dropFirst(7)); field = "str"
            } else if line.hasPrefix("\"") {
                if field == "id" { id = (id ?? "") + Self.unquote(line) } else { str = (str ?? "") + Self.unquote(line) }
            }
        }
        finish()
    }

    /// The message text of a `"..."` literal.
    static func unquote(_ literal: Substring) -> String {
        var body = literal.drop { $0 == " " }
        if body.first == "\"" { body = body.dropFirst() }
        if body.last == "\"" { body = body.dropLast() }
        var out = "", escaped = false
        for c in body {
            if escaped {
                switch c {
                case "n": out += "\n"
                case "t": out += "\t"
                default: out.append(c)
                }
                escaped = false
            } else if c == "\\" {
                escaped = true
            } else {
                out.append(c)
            }
        }
        return out
    }

    /// The catalogue of `language` in `po/`, or nil when it cannot be read.
    public static func shipped(_ code: String) -> POFile? {
        readText(folder + "/\(code).po").map(POFile.init(text:))
    }

    /// Its translations by message, for the messages it has.
    public var translations: [UIMessage: String] {
        var out: [UIMessage: String] = [:]
        for m in UIMessage.allCases {
            if let found = messages.first(where: { $0.id == m.english }), !fuzzy.contains(m.english) { out[m] = found.text }
        }
        return out
    }
}
