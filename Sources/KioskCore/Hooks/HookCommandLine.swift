/// A hook's command line split into a program and its arguments with shell-like quoting, and
/// never handed to a shell: `;`, `|`, `$(...)`, `*` and the like are plain characters, so
/// nothing a hook is told about the game can become a command.
///
/// The quoting follows POSIX `sh` for what it keeps:
/// - spaces and tabs separate words outside quotes;
/// - `'...'` keeps everything up to the next `'` as it is (no escapes inside);
/// - `"..."` keeps everything up to the next unescaped `"`; inside, a backslash before `"`,
///   `\`, `$` or `` ` `` stands for that character, before anything else it is kept;
/// - outside quotes a backslash takes the next character as it is;
/// - quotes join with what touches them (`a'b c'd` is one word `ab cd`), and `''` is an
///   empty argument.
/// Nothing is expanded: no variables, no `~`, no globs.
public struct HookCommandLine: Equatable, Sendable {
    /// The program (`argv[0]`) and its arguments; never empty.
    public let words: [String]

    public var program: String { words[0] }

    /// Longest command line accepted, in bytes.
    public static let maximumLength = 4096

    /// Why a command line cannot be split.
    public enum Problem: Error, Equatable, Sendable, CustomStringConvertible {
        case unbalancedSingleQuote
        case unbalancedDoubleQuote
        case trailingBackslash
        case tooLong
        case controlCharacter

        public var description: String {
            switch self {
            case .unbalancedSingleQuote: return "a single quote (') is not closed"
            case .unbalancedDoubleQuote: return "a double quote (\") is not closed"
            case .trailingBackslash: return "it ends in a backslash with nothing to escape"
            case .tooLong: return "it is longer than \(HookCommandLine.maximumLength) bytes"
            case .controlCharacter: return "it holds a control or bidi character"
            }
        }
    }

    /// Splits `text`; nil for a blank line (no hook), a problem for a line that is not valid.
    public static func parse(_ text: String) -> Result<HookCommandLine?, Problem> {
        guard text.utf8.count <= maximumLength else { return .failure(.tooLong) }
        // Tabs separate words; every other control character (NUL, escape, newline, C1) and the
        // bidi overrides that make a logged line read differently from what runs (what `echoed`
        // escapes) have no place in an argument list typed into a config file.
        if text.unicodeScalars.contains(where: { $0 != "\t" && isEscapedByEcho($0) }) {
            return .failure(.controlCharacter)
        }
        var words: [String] = []
        var word = ""
        var inWord = false
        enum Quote { case none, single, double }
        var quote = Quote.none
        var scalars = text.unicodeScalars.makeIterator()
        while let c = scalars.next() {
            switch quote {
            case .single:
                if c == "'" { quote = .none } else { word.unicodeScalars.append(c) }
            case .double:
                if c == "\"" {
                    quote = .none
                } else if c == "\\" {
                    guard let next = scalars.next() else { return .failure(.unbalancedDoubleQuote) }
                    if next == "\"" || next == "\\" || next == "$" || next == "`" {
                        word.unicodeScalars.append(next)
                    } else {
                        word.unicodeScalars.append(c)
                        word.unicodeScalars.append(next)
                    }
                } else {
                    word.unicodeScalars.append(c)
                }
            case .none:
                switch c {
                case " ", "\t":
                    if inWord { words.append(word) }
                    word = ""
                    inWord = false
                case "'":
                    quote = .single
                    inWord = true
                case "\"":
                    quote = .double
                    inWord = true
                case "\\":
                    guard let next = scalars.next() else { return .failure(.trailingBackslash) }
                    word.unicodeScalars.append(next)
                    inWord = true
                default:
                    word.unicodeScalars.append(c)
                    inWord = true
                }
            }
        }
        switch quote {
        case .single: return .failure(.unbalancedSingleQuote)
        case .double: return .failure(.unbalancedDoubleQuote)
        case .none: break
        }
        if inWord { words.append(word) }
        return .success(words.isEmpty ? nil : HookCommandLine(words: words))
    }

    private init(words: [String]) { self.words = words }
}
