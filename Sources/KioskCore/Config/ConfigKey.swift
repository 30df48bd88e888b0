/// One key of the config file: its section and name, what it accepts, what it sets, and its doc line.
public struct ConfigKey: Sendable {
    public let section: String
    public let name: String
    public let kind: ConfigKind
    /// One line for the example config: what the key changes, in the operator's terms.
    public let doc: String
    /// The id of the key this is another name for (the same setting), or nil. Effective
    /// settings and reload summaries name the setting once, by that key.
    public let sameAs: String?

    public init(_ section: String, _ name: String, _ kind: ConfigKind, _ doc: String, sameAs: String? = nil) {
        self.section = section
        self.name = name
        self.kind = kind
        self.doc = doc
        self.sameAs = sameAs
    }

    /// `section.name`, unique within a schema.
    public var id: String { "\(section).\(name)" }

    /// What the key accepts, for messages: `a whole number from 1 to 200`.
    public var expectation: String {
        switch kind {
        case .int(_, let r): return "a whole number from \(r.lowerBound) to \(r.upperBound)"
        case .double(_, let r): return "a number from \(formatConfigNumber(r.lowerBound)) to \(formatConfigNumber(r.upperBound))"
        case .duration(_, _, let r, let whole):
            return "a \(whole ? "whole " : "")number from \(formatConfigNumber(r.lowerBound)) to \(formatConfigNumber(r.upperBound))"
        case .optionalDouble(_, let r):
            return "a number from \(formatConfigNumber(r.lowerBound)) to \(formatConfigNumber(r.upperBound)) or 'auto'"
        case .bool: return "true or false"
        case .choice(_, let values): return "one of " + values.map(String.init).joined(separator: ", ")
        case .keyword(_, let words): return "one of " + words.joined(separator: ", ")
        case .numbers(_, let count, let r, _):
            return "\(count) numbers from \(formatConfigNumber(r.lowerBound)) to \(formatConfigNumber(r.upperBound)) separated by spaces"
        case .path: return "an absolute path or 'auto'"
        case .text(_, let expects, _): return expects
        case .commandLine: return "a program and its arguments, quoted as in sh but run without a shell, or nothing"
        case .schedule:
            return "clauses separated by ';', each [DAYS] HH:MM-HH:MM[,HH:MM-HH:MM...] or DAYS closed, DAYS being "
                + "weekdays, ranges of them (Mon-Fri) and dates (YYYY-MM-DD) separated by commas; or nothing"
        case .refused: return "nothing"
        }
    }

    /// Parses and range-checks `text` and stores it in `settings`;
    /// returns the error message (without location or key name) when the value is rejected.
    public func apply(_ text: String, to settings: inout Settings) -> String? {
        let rejected = "expected \(expectation), got '\(echoed(text))'"
        switch kind {
        case .int(let path, let range):
            guard let value = parseConfigInt(text), range.contains(value) else { return rejected }
            settings[keyPath: path] = value
        case .double(let path, let range):
            guard let value = parseConfigDouble(text), range.contains(value) else { return rejected }
            settings[keyPath: path] = value
        case .duration(let path, let unit, let range, let whole):
            let parsed = whole ? parseConfigInt(text).map(Double.init) : parseConfigDouble(text)
            guard let value = parsed, range.contains(value) else { return rejected }
            settings[keyPath: path] = unit.duration(value)
        case .optionalDouble(let path, let range):
            if text == "auto" {
                settings[keyPath: path] = nil
                return nil
            }
            guard let value = parseConfigDouble(text), range.contains(value) else { return rejected }
            settings[keyPath: path] = value
        case .bool(let path):
            switch text.lowercased() {
            case "true", "yes", "on", "1": settings[keyPath: path] = true
            case "false", "no", "off", "0": settings[keyPath: path] = false
            default: return rejected
            }
        case .choice(let path, let values):
            guard let value = parseConfigInt(text), values.contains(value) else { return rejected }
            settings[keyPath: path] = value
        case .keyword(let path, let words):
            guard words.contains(text) else { return rejected }
            settings[keyPath: path] = text
        case .numbers(let path, let count, let range, let check):
            let parts = text.split(whereSeparator: { $0 == " " || $0 == "\t" })
            guard parts.count == count else { return rejected }
            let values = parts.compactMap { parseConfigDouble(String($0)) }.filter(range.contains)
            guard values.count == count else { return rejected }
            if let problem = check?(values) { return "\(problem), got '\(echoed(text))'" }
            settings[keyPath: path] = values
        case .path(let path):
            if text == "auto" {
                settings[keyPath: path] = nil
                return nil
            }
            // A path is handed to open(2) and quoted in log lines: no control or bidi characters
            // (what `echoed` escapes), and within PATH_MAX.
            guard text.hasPrefix("/"), text.utf8.count < 4096,
                  !text.unicodeScalars.contains(where: isEscapedByEcho) else { return rejected }
            settings[keyPath: path] = text
        case .text(let path, _, let check):
            let emptyTaken = check.map { $0("") == nil } ?? false
            guard !text.isEmpty || emptyTaken, text.utf8.count < 4096,
                  !text.unicodeScalars.contains(where: isEscapedByEcho) else { return rejected }
            if let expected = check?(text) { return "expected \(expected), got '\(echoed(text))'" }
            settings[keyPath: path] = text
        case .commandLine(let path):
            if case .failure(let problem) = HookCommandLine.parse(text) {
                return "not a command line: \(problem), got '\(echoed(text))'"
            }
            settings[keyPath: path] = text
        case .refused(let because):
            if !text.isEmpty { return because }
        case .schedule(let path):
            switch SleepSchedule.parse(text) {
            case .success(let schedule): settings[keyPath: path] = schedule
            // The problem quotes the part that is wrong; the whole value may be long.
            case .failure(let problem): return problem.description
            }
        }
        return nil
    }

    /// The key's value in `settings`, written so that `apply` reads it back unchanged.
    public func render(_ settings: Settings) -> String {
        switch kind {
        case .int(let path, _): return String(settings[keyPath: path])
        case .double(let path, _): return formatConfigNumber(settings[keyPath: path])
        case .duration(let path, let unit, _, _): return formatConfigNumber(unit.value(settings[keyPath: path]))
        case .optionalDouble(let path, _): return settings[keyPath: path].map(formatConfigNumber) ?? "auto"
        case .bool(let path): return settings[keyPath: path] ? "true" : "false"
        case .choice(let path, _): return String(settings[keyPath: path])
        case .keyword(let path, _): return settings[keyPath: path]
        case .numbers(let path, _, _, _): return settings[keyPath: path].map(formatConfigNumber).joined(separator: " ")
        case .path(let path): return settings[keyPath: path] ?? "auto"
        case .text(let path, _, _): return settings[keyPath: path]
        case .commandLine(let path): return settings[keyPath: path]
        case .schedule(let path): return settings[keyPath: path].description
        case .refused: return ""
        }
    }

    /// The value as a number for cross-checks; nil when it is `auto`.
    public func number(in settings: Settings) -> Double? {
        switch kind {
        case .int(let path, _): return Double(settings[keyPath: path])
        case .double(let path, _): return settings[keyPath: path]
        case .duration(let path, let unit, _, _): return unit.value(settings[keyPath: path])
        case .optionalDouble(let path, _): return settings[keyPath: path]
        case .choice(let path, _): return Double(settings[keyPath: path])
        case .bool, .keyword, .numbers, .path, .text, .commandLine, .schedule, .refused: return nil
        }
    }

    /// Whether a path key names a file (not `auto`); false for every other kind.
    public func isSet(in settings: Settings) -> Bool {
        if case .path(let path) = kind { return settings[keyPath: path] != nil }
        return false
    }

    /// Copies this key's field from `source`; used to fall back to defaults.
    public func copy(from source: Settings, to target: inout Settings) {
        switch kind {
        case .int(let path, _): target[keyPath: path] = source[keyPath: path]
        case .double(let path, _): target[keyPath: path] = source[keyPath: path]
        case .duration(let path, _, _, _): target[keyPath: path] = source[keyPath: path]
        case .optionalDouble(let path, _): target[keyPath: path] = source[keyPath: path]
        case .bool(let path): target[keyPath: path] = source[keyPath: path]
        case .choice(let path, _): target[keyPath: path] = source[keyPath: path]
        case .keyword(let path, _): target[keyPath: path] = source[keyPath: path]
        case .numbers(let path, _, _, _): target[keyPath: path] = source[keyPath: path]
        case .path(let path): target[keyPath: path] = source[keyPath: path]
        case .text(let path, _, _): target[keyPath: path] = source[keyPath: path]
        case .commandLine(let path): target[keyPath: path] = source[keyPath: path]
        case .schedule(let path): target[keyPath: path] = source[keyPath: path]
        case .refused: break
        }
    }
}
