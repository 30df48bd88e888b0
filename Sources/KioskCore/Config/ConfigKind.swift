/// What a config key accepts and which `Settings` field it sets.
/// A new kind of value (bool, text, choice) is a new case plus its arms in `ConfigKey`.
public enum ConfigKind: Sendable {
    /// A whole number (`12`, `-5`) within the range.
    case int(WritableKeyPath<Settings, Int> & Sendable, ClosedRange<Int>)
    /// A decimal number (`3`, `3.5`) within the range.
    case double(WritableKeyPath<Settings, Double> & Sendable, ClosedRange<Double>)
    /// A span of time written as a number of `unit`s (`tap_max_ms = 500`, `duration_s = 60`)
    /// within the range, a whole number when `whole`; the setting holds a `Duration`.
    case duration(WritableKeyPath<Settings, Duration> & Sendable, TimeUnit, ClosedRange<Double>, whole: Bool = false)
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
    /// Ranges of local time by weekday and date, `Mon-Fri 22:00-07:00; Sat,Sun closed`
    /// (`SleepSchedule`); empty for none.
    case schedule(WritableKeyPath<Settings, SleepSchedule> & Sendable)
}

/// The unit a config key writes a span of time in: the key's suffix (`_ms`, `_s`, `_min`).
public enum TimeUnit: Sendable {
    case milliseconds, seconds, minutes

    /// `value` of this unit as a span (config values are range-checked, so no overflow).
    public func duration(_ value: Double) -> Duration {
        switch self {
        case .milliseconds: .milliseconds(value)
        case .seconds: .seconds(value)
        case .minutes: .seconds(value * 60)
        }
    }

    /// `span` counted in this unit.
    public func value(_ span: Duration) -> Double {
        switch self {
        case .milliseconds: span.inMilliseconds
        case .seconds: span.inSeconds
        case .minutes: span.inSeconds / 60
        }
    }
}
