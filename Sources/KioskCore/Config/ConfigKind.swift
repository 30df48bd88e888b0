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
    /// Empty is taken only when `check` accepts it.
    case text(WritableKeyPath<Settings, String> & Sendable, expects: String = "printable text",
              check: (@Sendable (String) -> String?)? = nil)
    /// A program and its arguments with shell-like quoting (`HookCommandLine`), never run
    /// through a shell; empty for none.
    case commandLine(WritableKeyPath<Settings, String> & Sendable)
    /// A key that is known but never taken (an inline secret): any value but an empty one is
    /// refused with `because`, and the value is never quoted back.
    case refused(because: String)
    /// Ranges of local time, `22:00-07:00,12:00-13:00` (`SleepSchedule`); empty for none.
    case schedule(WritableKeyPath<Settings, SleepSchedule> & Sendable)
}
