#if canImport(Glibc)
import Glibc
#endif

/// The kiosk's state directory: `$STATE_DIRECTORY` as systemd's `StateDirectory=` sets it (the
/// first entry when it lists several), else the one given on the command line.
public enum StateDirectory {
    public static let variable = "STATE_DIRECTORY"

    /// nil when neither says one.
    public static func resolve(flag: String?) -> String? {
        if let value = getenv(variable) {
            let first = String(cString: value).split(separator: ":").first.map(String.init) ?? ""
            if !first.isEmpty { return first }
        }
        if let flag, !flag.isEmpty { return flag }
        return nil
    }

    /// Where the score store lives when neither says one (screenshots keep the working directory).
    public static let storeDefault = "/var/lib/bubble-kiosk"

    /// The score store's folder: `resolve(flag:)`, else `storeDefault`.
    public static func resolveForStore(flag: String?) -> String {
        resolve(flag: flag) ?? storeDefault
    }

    /// The store an operator command (`scores`, `stats`, `touch-heatmap`) reads: the folder its
    /// `--state-dir` names first, typed on purpose, then `resolveForStore`. (`run` puts systemd's
    /// variable first: the unit's `StateDirectory=` is where the service must keep its data.)
    public static func resolveForReading(flag: String?) -> String {
        if let flag, !flag.isEmpty { return flag }
        return resolveForStore(flag: nil)
    }
}
