import KioskCore
import KioskPlatform

/// Loads the settings for a running command: the system config files, or only `configPath`
/// (the `--config FILE` option) when given. Every diagnostic goes to stderr as `FILE:LINE: message`;
/// rejected values, cross-check failures and an unreadable file fall back to the defaults
/// (or earlier files' values), because a kiosk on safe defaults beats a kiosk that does not start.
func loadSettings(configPath: String?) -> Settings {
    let result = ConfigLoader.load(configPath: configPath)
    for diagnostic in result.diagnostics {
        Console.errorLine(diagnostic.description)
    }
    return result.settings
}
