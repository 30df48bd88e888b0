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
        for pairing in schema.pairings {
            guard let first = schema.key(pairing.section, pairing.first),
                  let second = schema.key(pairing.section, pairing.second) else {
                preconditionFailure("config pairing names an unknown key: \(pairing)")
            }
            let (firstSet, secondSet) = (first.isSet(in: settings), second.isSet(in: settings))
            guard firstSet != secondSet else { continue }
            let (set, missing) = firstSet ? (first, second) : (second, first)
            guard let origin = origins[set.id] else { continue }
            diagnostics.append(.error(origin.file, origin.line,
                "\(set.name): needs \(missing.name) as well (both or neither), got '\(echoed(origin.text))' without it"))
            first.copy(from: defaults, to: &settings)
            second.copy(from: defaults, to: &settings)
        }
        return ConfigResult(settings: settings, diagnostics: diagnostics, files: files, unreadableFiles: unreadableFiles)
    }
}
