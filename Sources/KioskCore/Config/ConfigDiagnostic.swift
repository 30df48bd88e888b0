/// How serious a config finding is: errors make `check-config` fail, warnings only inform.
public enum ConfigSeverity: Equatable, Sendable {
    case warning
    case error
}

/// One finding about the configuration, printed as `FILE:LINE: message`
/// (or `FILE:LINE: warning: message`) so editors and operators can jump to it.
public struct ConfigDiagnostic: Equatable, Sendable, CustomStringConvertible {
    public var severity: ConfigSeverity
    /// The file as it was opened, so the message points at the right one among drop-ins.
    public var file: String
    /// 1-based line; nil when the finding is about the whole file (for example it cannot be read).
    public var line: Int?
    /// The text after the location; names the key and the offending value.
    public var message: String

    /// Findings listed per file; the rest are counted in one line, so a file of garbage
    /// neither floods the log nor fills memory with messages.
    public static let maximumPerFile = 50

    public init(_ severity: ConfigSeverity, file: String, line: Int?, _ message: String) {
        self.severity = severity
        self.file = file
        self.line = line
        self.message = message
    }

    /// An error at `file:line`.
    public static func error(_ file: String, _ line: Int?, _ message: String) -> ConfigDiagnostic {
        ConfigDiagnostic(.error, file: file, line: line, message)
    }

    /// A warning at `file:line`.
    public static func warning(_ file: String, _ line: Int?, _ message: String) -> ConfigDiagnostic {
        ConfigDiagnostic(.warning, file: file, line: line, message)
    }

    public var description: String {
        // File names come from directory listings and command lines: shown escaped too.
        let name = echoed(file, limit: 200)
        let place = line.map { "\(name):\($0)" } ?? name
        switch severity {
        case .error: return "\(place): \(message)"
        case .warning: return "\(place): warning: \(message)"
        }
    }
}

/// Findings in line order, keeping the first `ConfigDiagnostic.maximumPerFile` and counting the rest.
struct BoundedFindings {
    private(set) var kept: [ConfigDiagnostic] = []
    private(set) var omittedErrors = 0
    private(set) var omittedWarnings = 0

    mutating func append(_ finding: ConfigDiagnostic) {
        if kept.count < ConfigDiagnostic.maximumPerFile {
            kept.append(finding)
        } else if finding.severity == .error {
            omittedErrors += 1
        } else {
            omittedWarnings += 1
        }
    }

    mutating func omit(errors: Int, warnings: Int) {
        omittedErrors += errors
        omittedWarnings += warnings
    }
}
