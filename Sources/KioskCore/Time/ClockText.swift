/// The one formatter for clock and date text: ISO 8601 in UTC for machine-read fields (MQTT's
/// `last_touch`), a compact UTC stamp for file names, dates and times of day for the local
/// calendar (`LocalTime.stamp`). Written without the C library, so the core formats virtual
/// time in tests exactly as the system's.
public enum ClockText {
    /// The earliest and latest seconds with a four-digit year (0000-01-01 to 9999-12-31).
    static let range: ClosedRange<Int64> = -62_167_219_200...253_402_300_799

    /// Whole seconds, clamped to the four-digit years so the text always has one shape.
    public static func iso8601(unixSeconds: Int64) -> String {
        let s = min(max(unixSeconds, range.lowerBound), range.upperBound)
        var days = s / 86_400
        var rest = s % 86_400
        if rest < 0 { rest += 86_400; days -= 1 }
        return "\(date(daysSinceEpoch: days))T\(timeOfDay(seconds: Int(rest)))Z"
    }

    /// `2026-12-02T04:07:01Z`.
    public static func iso8601(_ w: WallTime) -> String { iso8601(unixSeconds: w.wholeUnixSeconds) }

    /// `20261202T040701Z`: a wall time in a file name (a damaged database moved aside).
    public static func compactUTC(_ w: WallTime) -> String {
        iso8601(w).filter { $0 != "-" && $0 != ":" }
    }

    /// `2026-12-02` for a day count from 1970-01-01.
    public static func date(daysSinceEpoch days: Int64) -> String {
        let (year, month, day) = civil(daysSinceEpoch: days)
        let y = String(year)
        return String(repeating: "0", count: max(0, 4 - y.count)) + y + "-\(two(month))-\(two(day))"
    }

    /// `HH:MM:SS` for a second of the day (0 to 86399), two digits each.
    public static func timeOfDay(seconds s: Int) -> String {
        "\(two(Int64(s / 3600))):\(two(Int64(s / 60 % 60))):\(two(Int64(s % 60)))"
    }

    private static func two(_ n: Int64) -> String { n < 10 ? "0\(n)" : "\(n)" }

    /// Seconds as a Double (how metrics keep the last touch), rounded down; nil when not finite.
    public static func iso8601(unixSeconds: Double) -> String? {
        guard unixSeconds.isFinite else { return nil }
        let floored = unixSeconds.rounded(.down)
        let clamped = min(max(floored, Double(range.lowerBound)), Double(range.upperBound))
        return iso8601(unixSeconds: Int64(clamped))
    }

    /// The day count from 1970-01-01 of a date, or nil when there is no such date (month 13,
    /// February 30th); Howard Hinnant's `days_from_civil`, proleptic Gregorian.
    public static func daysSinceEpoch(year: Int64, month: Int64, day: Int64) -> Int64? {
        guard (1...12).contains(month), (1...31).contains(day), (-1_000_000...1_000_000).contains(year) else { return nil }
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        let days = era * 146_097 + doe - 719_468
        // A day past the month's end lands in the next month: not the date written.
        return civil(daysSinceEpoch: days) == (year, month, day) ? days : nil
    }

    /// Year, month and day of a day count from 1970-01-01 (Howard Hinnant's `civil_from_days`,
    /// proleptic Gregorian).
    static func civil(daysSinceEpoch z0: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let z = z0 + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}
