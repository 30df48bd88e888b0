/// Unix time as ISO 8601 text in UTC (`2026-12-02T04:07:01Z`), for machine-read fields such as
/// MQTT's `last_touch`. The local time for log lines is `LocalWallClock.stamp`; this one needs
/// no time zone, so the core writes it without the C library.
public enum UTCTimeText {
    /// The earliest and latest seconds with a four-digit year (0000-01-01 to 9999-12-31).
    static let range: ClosedRange<Int64> = -62_167_219_200...253_402_300_799

    /// Whole seconds, clamped to the four-digit years so the text always has one shape.
    public static func iso8601(unixSeconds: Int64) -> String {
        let s = min(max(unixSeconds, range.lowerBound), range.upperBound)
        var days = s / 86_400
        var rest = s % 86_400
        if rest < 0 { rest += 86_400; days -= 1 }
        let (year, month, day) = civil(daysSinceEpoch: days)
        func two(_ n: Int64) -> String { n < 10 ? "0\(n)" : "\(n)" }
        let y = String(year)
        let year4 = String(repeating: "0", count: max(0, 4 - y.count)) + y
        return "\(year4)-\(two(month))-\(two(day))T\(NumberText.timeOfDay(seconds: Int(rest)))Z"
    }

    /// Seconds as a Double (how metrics keep the last touch), rounded down; nil when not finite.
    public static func iso8601(unixSeconds: Double) -> String? {
        guard unixSeconds.isFinite else { return nil }
        let floored = unixSeconds.rounded(.down)
        let clamped = min(max(floored, Double(range.lowerBound)), Double(range.upperBound))
        return iso8601(unixSeconds: Int64(clamped))
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
