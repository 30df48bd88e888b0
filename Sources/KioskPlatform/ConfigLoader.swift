#if canImport(Glibc)
import Glibc
#endif
import KioskCore

/// Finds and reads the config files and applies them over the built-in defaults.
/// Never throws: every problem becomes a diagnostic, so callers can keep running on defaults.
public enum ConfigLoader {
    /// Where the config lives unless `directoryVariable` says otherwise.
    public static let systemDirectory = "/etc/bubble-kiosk"
    /// Environment variable that replaces `systemDirectory`, for tests and development.
    public static let directoryVariable = "BUBBLE_KIOSK_CONFIG_DIR"
    /// The main file inside the directory.
    public static let mainFileName = "kiosk.conf"
    /// Folder of drop-ins inside the directory, read after the main file.
    public static let dropInDirectoryName = "kiosk.conf.d"

    /// The config directory in effect: `$BUBBLE_KIOSK_CONFIG_DIR` when set and not empty.
    public static func directory() -> String {
        if let value = getenv(directoryVariable) {
            let path = String(cString: value)
            if !path.isEmpty { return path }
        }
        return systemDirectory
    }

    /// Loads only `configPath` when given (a missing file is an error),
    /// otherwise the system files from `directory()`.
    public static func load(configPath: String?, schema: ConfigSchema = .standard) -> ConfigResult {
        if let configPath { return loadFile(configPath, schema: schema) }
        return loadSystem(directory: directory(), schema: schema)
    }

    /// Loads exactly one file.
    public static func loadFile(_ path: String, schema: ConfigSchema = .standard) -> ConfigResult {
        var builder = ConfigBuilder(schema: schema)
        read(path, into: &builder, missingIsError: true)
        return builder.finish()
    }

    /// Loads `kiosk.conf` then `kiosk.conf.d/*.conf` in bytewise name order, like systemd drop-ins.
    /// Absent files and folders are fine: the built-in defaults need no config at all.
    public static func loadSystem(directory: String, schema: ConfigSchema = .standard) -> ConfigResult {
        var builder = ConfigBuilder(schema: schema)
        read(joinPath(directory, mainFileName), into: &builder, missingIsError: false)
        let dropIns = joinPath(directory, dropInDirectoryName)
        do {
            // listDirectory already sorts bytewise, independent of the locale.
            for name in try FileSystem.listDirectory(dropIns) where name.hasSuffix(".conf") {
                let path = joinPath(dropIns, name)
                // A folder that happens to end in .conf is not a drop-in.
                if FileSystem.isDirectory(path) { continue }
                read(path, into: &builder, missingIsError: false)
            }
        } catch {
            builder.report(.error(dropIns, nil, "cannot list drop-ins: \(reason(error))"))
        }
        return builder.finish()
    }

    private static func read(_ path: String, into builder: inout ConfigBuilder, missingIsError: Bool) {
        do {
            builder.add(text: try FileSystem.readText(path, limit: maximumFileBytes), file: path)
        } catch let error as SystemError where !missingIsError && (error.errno == ENOENT || error.errno == ENOTDIR) {
            // Not there (or a dangling drop-in symlink): nothing to apply.
        } catch let refusal as FileRefusal {
            // `FILE: too large (...)` says it all; "cannot read" would suggest permissions.
            builder.reportUnreadable(path, refusal.description)
        } catch {
            builder.reportUnreadable(path, "cannot read: \(reason(error))")
        }
    }

    /// Largest config file read: a hand-written config is a few kilobytes.
    public static let maximumFileBytes = 1 << 20

    private static func reason(_ error: any Error) -> String {
        if let error = error as? SystemError { return String(cString: strerror(error.errno)) }
        return "\(error)"
    }
}
