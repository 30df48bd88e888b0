import KioskCore
import KioskPlatform

/// Loads the settings for an operator's command: the system config files, or only `configPath`
/// (the `--config FILE` option) when given. Every diagnostic goes to stderr as `FILE:LINE: message`;
/// rejected values and cross-check failures fall back to the defaults (or earlier files' values).
/// A `--config FILE` that cannot be read at all (missing, a FIFO, a folder) throws: the answer
/// would be for settings the operator did not ask about.
func loadSettings(configPath: String?) throws -> Settings {
    let result = ConfigLoader.load(configPath: configPath)
    for diagnostic in result.diagnostics {
        Console.errorLine(diagnostic.description)
    }
    if let configPath, result.unreadableFiles.contains(configPath) {
        throw ConfigUnreadable(path: configPath)
    }
    return result.settings
}

/// The file given with `--config` could not be read (the diagnostic above says why).
struct ConfigUnreadable: Error, CustomStringConvertible {
    let path: String
    var description: String { "\(echoed(path, limit: 200)): the file given with --config cannot be read" }
}
