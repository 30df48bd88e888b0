/// What a config key accepts and which `Settings` field it sets.
/// A new kind of value (bool, text, choice) is a new case plus its arms in `ConfigKey`.
public enum ConfigKind: Sendable {
    /// A whole number (`12`, `-5`) within the range.
    case int(WritableKeyPath<Settings, Int> & Sendable, ClosedRange<Int>)
    /// A decimal number (`3`, `3.5`) within the range.
    case double(WritableKeyPath<Settings, Double> & Sendable, ClosedRange<Double>)
    /// A decimal number within the range, or `auto` for nil (decided at run time).
    case optionalDouble(WritableKeyPath<Settings, Double?> & Sendable, ClosedRange<Double>)
    /// `true`/`false` (also `yes`/`no`, `on`/`off`, `1`/`0`).
    case bool(WritableKeyPath<Settings, Bool> & Sendable)
    /// One of a few whole numbers (`rotation = 90`).
    case choice(WritableKeyPath<Settings, Int> & Sendable, [Int])
    /// One of a few words (`reset_gesture = four-corners`).
    case keyword(WritableKeyPath<Settings, String> & Sendable, [String])
    /// Exactly `count` decimal numbers separated by spaces, each within the range, which
    /// `check` (when given) accepts as a whole (a calibration matrix); `check` returns the problem.
    case numbers(WritableKeyPath<Settings, [Double]> & Sendable, count: Int, range: ClosedRange<Double>,
                 check: (@Sendable ([Double]) -> String?)? = nil)
    /// An absolute file path, or `auto` for nil (a default decided at run time).
    case path(WritableKeyPath<Settings, String?> & Sendable)
    /// A line of printable text (an ALSA device name, `auto|none|/path`), described as
    /// `expects`, which `check` (when given) accepts; `check` returns what is expected when not.
    case text(WritableKeyPath<Settings, String> & Sendable, expects: String = "printable text",
              check: (@Sendable (String) -> String?)? = nil)
    /// A program and its arguments with shell-like quoting (`HookCommandLine`), never run
    /// through a shell; empty for none.
    case commandLine(WritableKeyPath<Settings, String> & Sendable)
    /// Ranges of local time, `22:00-07:00,12:00-13:00` (`SleepSchedule`); empty for none.
    case schedule(WritableKeyPath<Settings, SleepSchedule> & Sendable)
}

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
        case .schedule: return "HH:MM-HH:MM ranges of local time separated by commas, or nothing"
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
            guard !text.isEmpty, text.utf8.count < 4096,
                  !text.unicodeScalars.contains(where: isEscapedByEcho) else { return rejected }
            if let expected = check?(text) { return "expected \(expected), got '\(echoed(text))'" }
            settings[keyPath: path] = text
        case .commandLine(let path):
            if case .failure(let problem) = HookCommandLine.parse(text) {
                return "not a command line: \(problem), got '\(echoed(text))'"
            }
            settings[keyPath: path] = text
        case .schedule(let path):
            switch SleepSchedule.parse(text) {
            case .success(let schedule): settings[keyPath: path] = schedule
            case .failure(let problem): return "\(problem) (expected \(expectation)), got '\(echoed(text))'"
            }
        }
        return nil
    }

    /// The key's value in `settings`, written so that `apply` reads it back unchanged.
    public func render(_ settings: Settings) -> String {
        switch kind {
        case .int(let path, _): return String(settings[keyPath: path])
        case .double(let path, _): return formatConfigNumber(settings[keyPath: path])
        case .optionalDouble(let path, _): return settings[keyPath: path].map(formatConfigNumber) ?? "auto"
        case .bool(let path): return settings[keyPath: path] ? "true" : "false"
        case .choice(let path, _): return String(settings[keyPath: path])
        case .keyword(let path, _): return settings[keyPath: path]
        case .numbers(let path, _, _, _): return settings[keyPath: path].map(formatConfigNumber).joined(separator: " ")
        case .path(let path): return settings[keyPath: path] ?? "auto"
        case .text(let path, _, _): return settings[keyPath: path]
        case .commandLine(let path): return settings[keyPath: path]
        case .schedule(let path): return settings[keyPath: path].description
        }
    }

    /// The value as a number for cross-checks; nil when it is `auto`.
    public func number(in settings: Settings) -> Double? {
        switch kind {
        case .int(let path, _): return Double(settings[keyPath: path])
        case .double(let path, _): return settings[keyPath: path]
        case .optionalDouble(let path, _): return settings[keyPath: path]
        case .choice(let path, _): return Double(settings[keyPath: path])
        case .bool, .keyword, .numbers, .path, .text, .commandLine, .schedule: return nil
        }
    }

    /// Copies this key's field from `source`; used to fall back to defaults.
    public func copy(from source: Settings, to target: inout Settings) {
        switch kind {
        case .int(let path, _): target[keyPath: path] = source[keyPath: path]
        case .double(let path, _): target[keyPath: path] = source[keyPath: path]
        case .optionalDouble(let path, _): target[keyPath: path] = source[keyPath: path]
        case .bool(let path): target[keyPath: path] = source[keyPath: path]
        case .choice(let path, _): target[keyPath: path] = source[keyPath: path]
        case .keyword(let path, _): target[keyPath: path] = source[keyPath: path]
        case .numbers(let path, _, _, _): target[keyPath: path] = source[keyPath: path]
        case .path(let path): target[keyPath: path] = source[keyPath: path]
        case .text(let path, _, _): target[keyPath: path] = source[keyPath: path]
        case .commandLine(let path): target[keyPath: path] = source[keyPath: path]
        case .schedule(let path): target[keyPath: path] = source[keyPath: path]
        }
    }
}

/// A cross-check between two numeric keys of one section: `lower` must not exceed `upper`.
public struct ConfigOrdering: Sendable {
    public let section: String
    public let lower: String
    public let upper: String

    public init(_ section: String, _ lower: String, _ upper: String) {
        self.section = section
        self.lower = lower
        self.upper = upper
    }
}

/// Every known key and cross-check; the single table the parser, loader and renderer share.
public struct ConfigSchema: Sendable {
    public let keys: [ConfigKey]
    public let orderings: [ConfigOrdering]
    private let index: [String: Int]

    public init(keys: [ConfigKey], orderings: [ConfigOrdering] = []) {
        self.keys = keys
        self.orderings = orderings
        var index: [String: Int] = [:]
        for (i, key) in keys.enumerated() {
            precondition(index[key.id] == nil, "config key \(key.id) is listed twice")
            index[key.id] = i
        }
        self.index = index
    }

    /// Section names in the order their first key appears, so new sections need no list of their own.
    public var sections: [String] {
        var seen: Set<String> = []
        return keys.compactMap { seen.insert($0.section).inserted ? $0.section : nil }
    }

    public func key(_ section: String, _ name: String) -> ConfigKey? {
        index["\(section).\(name)"].map { keys[$0] }
    }

    public func hasSection(_ section: String) -> Bool {
        keys.contains { $0.section == section }
    }

    /// `settings` as config text: every section and key, in schema order (a setting with two
    /// names under its first).
    public func render(_ settings: Settings) -> String {
        sections.map { section in
            let lines = keys.filter { $0.section == section && $0.sameAs == nil }.map { "\($0.name) = \($0.render(settings))\n" }
            return "[\(section)]\n" + lines.joined()
        }.joined(separator: "\n")
    }

    /// The example config: every key commented out with its default, after its doc line.
    public func renderExample(_ defaults: Settings = Settings()) -> String {
        var text = """
            # bubble-kiosk configuration: every key with its built-in default.
            # Put changes in /etc/bubble-kiosk/kiosk.conf or in drop-ins
            # /etc/bubble-kiosk/kiosk.conf.d/*.conf (read in name order, later files win).
            # Uncomment a line to change it; check with `bubble-kiosk check-config`.
            # Sizes are millimetres on the glass (mm), times milliseconds (ms) or seconds (s).
            # Generated by `bubble-kiosk check-config --example`.

            """
        for section in sections {
            text += "\n[\(section)]\n"
            for key in keys where key.section == section {
                text += "# \(key.doc) (\(key.expectation))\n#\(key.name) = \(key.render(defaults))\n"
            }
        }
        return text
    }

    /// Suggests a known key for a misspelt one, preferring its own section; nil when nothing is close.
    func suggestion(for name: String, in section: String) -> ConfigKey? {
        var best: (key: ConfigKey, rank: (Int, Int))? = nil
        for key in keys {
            let distance = configEditDistance(name, key.name)
            guard distance <= 2 else { continue }
            let rank = (distance, key.section == section ? 0 : 1)
            if best == nil || rank < best!.rank { best = (key, rank) }
        }
        return best?.key
    }

    /// Suggests a known section for a misspelt one.
    func sectionSuggestion(for name: String) -> String? {
        sections.map { ($0, configEditDistance(name, $0)) }
            .filter { $0.1 <= 2 }
            .min { $0.1 < $1.1 }?.0
    }
}


/// The settings after loading, with every finding in the order the files and lines were read.
public struct ConfigResult: Sendable {
    public var settings: Settings
    public var diagnostics: [ConfigDiagnostic]
    /// Files that were read, in order; empty when only built-in defaults apply.
    public var files: [String]
    /// Files that could not be read at all (missing when required, a FIFO, too large, no
    /// permission): said here, not guessed from a finding without a line number.
    public var unreadableFiles: [String]

    public init(settings: Settings, diagnostics: [ConfigDiagnostic] = [], files: [String] = [],
                unreadableFiles: [String] = []) {
        self.settings = settings
        self.diagnostics = diagnostics
        self.files = files
        self.unreadableFiles = unreadableFiles
    }

    public var hasErrors: Bool { diagnostics.contains { $0.severity == .error } }
}

/// Applies config files over the defaults in order. Later files win key by key, and a rejected
/// value leaves the earlier one in place, so a typo never stops the kiosk from starting.
public struct ConfigBuilder: Sendable {
    public let schema: ConfigSchema
    public let defaults: Settings
    private var settings: Settings
    private var diagnostics: [ConfigDiagnostic] = []
    private var files: [String] = []
    private var unreadableFiles: [String] = []
    /// Where each key's current value came from, so cross-checks can blame the right line.
    private var origins: [String: Origin] = [:]
    private var applied = 0

    private struct Origin: Sendable {
        var file: String
        var line: Int
        var text: String
        /// Position in reading order across all files.
        var order: Int
    }

    public init(schema: ConfigSchema = .standard, defaults: Settings = Settings()) {
        self.schema = schema
        self.defaults = defaults
        self.settings = defaults
    }

    /// Parses and applies one file's text.
    public mutating func add(text: String, file: String) {
        add(ConfigParser.parse(text, file: file))
    }

    /// Applies one parsed file.
    public mutating func add(_ parsed: ParsedConfig) {
        files.append(parsed.file)
        // Each list is in line order, so the first findings of the file are among the first of each.
        var syntax = BoundedFindings(), sections = BoundedFindings(), values = BoundedFindings()
        parsed.diagnostics.forEach { syntax.append($0) }
        syntax.omit(errors: parsed.omittedErrors, warnings: 0)
        // One message per distinct name: a file repeating a wrong header must not redo the search.
        var sectionMessages: [String: String] = [:]
        for header in parsed.sections where !schema.hasSection(header.name) {
            let message = sectionMessages[header.name] ?? {
                var message = "unknown section [\(echoed(header.name))]"
                if let near = schema.sectionSuggestion(for: header.name) { message += " (did you mean [\(near)]?)" }
                return message
            }()
            sectionMessages[header.name] = message
            sections.append(.warning(parsed.file, header.line, message))
        }
        var lastLines: [String: Int] = [:]
        for entry in parsed.entries {
            apply(entry, lastLines: &lastLines).forEach { values.append($0) }
        }
        // Syntax and value findings are collected separately; show them in line order.
        let ordered = (syntax.kept + sections.kept + values.kept).enumerated().sorted { a, b in
            (a.element.line ?? 0, a.offset) < (b.element.line ?? 0, b.offset)
        }.map(\.element)
        let shown = ordered.prefix(ConfigDiagnostic.maximumPerFile)
        diagnostics += shown
        let unshown = ordered.dropFirst(shown.count)
        let errors = unshown.filter { $0.severity == .error }.count
            + syntax.omittedErrors + sections.omittedErrors + values.omittedErrors
        let warnings = unshown.count - unshown.filter { $0.severity == .error }.count
            + syntax.omittedWarnings + sections.omittedWarnings + values.omittedWarnings
        if errors + warnings > 0 {
            let message = "\(errors + warnings) more findings not shown (\(errors) errors, \(warnings) warnings)"
            diagnostics.append(ConfigDiagnostic(errors > 0 ? .error : .warning, file: parsed.file, line: nil, message))
        }
    }

    /// Records a finding from outside any file's text, such as a folder that cannot be listed.
    public mutating func report(_ diagnostic: ConfigDiagnostic) {
        diagnostics.append(diagnostic)
    }

    /// Records that `file` could not be read at all (an error without a line: `FILE: message`).
    public mutating func reportUnreadable(_ file: String, _ message: String) {
        diagnostics.append(.error(file, nil, message))
        unreadableFiles.append(file)
    }

    private mutating func apply(_ entry: ConfigEntry, lastLines: inout [String: Int]) -> [ConfigDiagnostic] {
        guard let section = entry.section else {
            var message = "key '\(echoed(entry.key))' comes before any [section] line"
            let homes = schema.keys.filter { $0.name == entry.key }.map { "[\($0.section)]" }
            if !homes.isEmpty { message += "; it belongs under \(homes.joined(separator: " or "))" }
            return [.error(entry.file, entry.line, message)]
        }
        // Keys of an unknown section are covered by the warning on its header.
        guard schema.hasSection(section) else { return [] }
        guard let key = schema.key(section, entry.key) else {
            var message = "unknown key '\(echoed(entry.key))' in [\(section)]"
            if let near = schema.suggestion(for: entry.key, in: section) {
                message += near.section == section
                    ? " (did you mean '\(near.name)'?)"
                    : " (did you mean '\(near.name)' in [\(near.section)]?)"
            }
            return [.warning(entry.file, entry.line, message)]
        }
        var found: [ConfigDiagnostic] = []
        if let previous = lastLines[key.id] {
            found.append(.warning(entry.file, entry.line,
                                  "duplicate key '\(key.name)' in [\(section)], also on line \(previous); the later line wins"))
        }
        lastLines[key.id] = entry.line
        if let problem = key.apply(entry.value, to: &settings) {
            found.append(.error(entry.file, entry.line, "\(key.name): \(problem)"))
        } else {
            applied += 1
            origins[key.id] = Origin(file: entry.file, line: entry.line, text: entry.value, order: applied)
        }
        return found
    }

    /// Runs the cross-checks and returns the settings to use with every finding.
    /// A pair that fails a check falls back to both defaults, which are known to agree.
    public func finish() -> ConfigResult {
        var settings = self.settings
        var diagnostics = self.diagnostics
        for ordering in schema.orderings {
            guard let low = schema.key(ordering.section, ordering.lower),
                  let high = schema.key(ordering.section, ordering.upper) else {
                preconditionFailure("config ordering names an unknown key: \(ordering)")
            }
            guard let lowValue = low.number(in: settings), let highValue = high.number(in: settings),
                  lowValue > highValue else { continue }
            // Blame the line read last: the pair held until that line changed it.
            let lowOrigin = origins[low.id], highOrigin = origins[high.id]
            let blameLow: Bool
            switch (lowOrigin, highOrigin) {
            case let (l?, h?): blameLow = l.order > h.order
            case (.some, nil): blameLow = true
            case (nil, .some): blameLow = false
            case (nil, nil): continue  // inconsistent defaults; the schema tests rule that out
            }
            let (bad, other) = blameLow ? (low, high) : (high, low)
            guard let badOrigin = blameLow ? lowOrigin : highOrigin else { continue }
            let source: String
            if let o = blameLow ? highOrigin : lowOrigin {
                source = o.file == badOrigin.file ? "set on line \(o.line)" : "set in \(o.file):\(o.line)"
            } else {
                source = "the default"
            }
            let relation = blameLow ? "at most" : "at least"
            diagnostics.append(.error(badOrigin.file, badOrigin.line,
                "\(bad.name): must be \(relation) \(other.name) (\(other.render(settings)), \(source)), got '\(echoed(badOrigin.text))'"))
            low.copy(from: defaults, to: &settings)
            high.copy(from: defaults, to: &settings)
        }
        return ConfigResult(settings: settings, diagnostics: diagnostics, files: files, unreadableFiles: unreadableFiles)
    }
}
