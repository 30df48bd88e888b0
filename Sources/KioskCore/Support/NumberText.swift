/// How the kiosk writes numbers in logs, reports and files: the few styles it needs, each once,
/// since scripts and tests read the text.
public enum NumberText {
    /// `value` in hexadecimal, padded with zeros to at least `digits` (`0a`, `00ff`; `0A` upper-case):
    /// evemu's fields, EDID product codes, USB ids, CEC opcodes.
    public static func hex<T: BinaryInteger>(_ value: T, digits: Int, uppercase: Bool = false) -> String {
        let text = String(value, radix: 16, uppercase: uppercase)
        return String(repeating: "0", count: max(0, digits - text.count)) + text
    }

    /// `value` rounded to `places` decimals (still a `Double`).
    public static func rounded(_ value: Double, places: Int) -> Double {
        var scale = 1.0
        for _ in 0..<places { scale *= 10 }
        return (value * scale).rounded() / scale
    }

    /// Rounded to `places` decimals as Swift prints a `Double`: `2.5`, `3.0`, `0.12`.
    public static func decimal(_ value: Double, places: Int) -> String {
        String(rounded(value, places: places))
    }

    /// Whole numbers without `.0` (`3`, `-0.0` as `0`), others as Swift prints them (`2.5`,
    /// `1e+20`); rounded to `places` decimals first when given.
    public static func trimmed(_ value: Double, places: Int? = nil) -> String {
        let v = places.map { rounded(value, places: $0) } ?? value
        if v == v.rounded(), abs(v) < 1e15 { return String(Int64(v)) }
        return String(v)
    }

    /// Exactly `places` decimals: `4.00`, `-0.5`, `12.345`.
    public static func fixed(_ value: Double, places: Int) -> String {
        var scale = 1
        for _ in 0..<places { scale *= 10 }
        let n = Int((value * Double(scale)).rounded())
        let whole = String(n / scale), fraction = String(abs(n % scale))
        return (n < 0 && n / scale == 0 ? "-" : "") + whole
            + (places > 0 ? "." + String(repeating: "0", count: places - fraction.count) + fraction : "")
    }

    /// The shortest text that reads back as the same number, with no exponent: `3`, not `3.0`;
    /// `0.0000001`, not `1e-07` (the config takes plain decimals only).
    public static func plain(_ value: Double) -> String {
        let text = trimmed(value)
        guard let e = text.firstIndex(where: { $0 == "e" || $0 == "E" }), let exponent = Int(text[text.index(after: e)...])
        else { return text }
        // Move the point of the mantissa's digits by the exponent, exactly, in text.
        var mantissa = text[..<e]
        let negative = mantissa.hasPrefix("-")
        if negative { mantissa = mantissa.dropFirst() }
        let parts = mantissa.split(separator: ".", omittingEmptySubsequences: false)
        let whole = String(parts[0]), fraction = parts.count > 1 ? String(parts[1]) : ""
        var digits = whole + fraction
        var point = whole.count + exponent
        if point <= 0 {
            digits = String(repeating: "0", count: 1 - point) + digits
            point = 1
        } else if point > digits.count {
            digits += String(repeating: "0", count: point - digits.count)
        }
        var fractional = String(digits.dropFirst(point))
        while fractional.hasSuffix("0") { fractional.removeLast() }
        let integral = String(digits.prefix(point))
        return (negative ? "-" : "") + integral + (fractional.isEmpty ? "" : "." + fractional)
    }

    /// `3d 4h 5m 6s`, leaving out leading zero units.
    public static func duration(seconds: Int) -> String {
        let parts = [(seconds / 86400, "d"), (seconds / 3600 % 24, "h"), (seconds / 60 % 60, "m"), (seconds % 60, "s")]
        let shown = parts.drop { $0.0 == 0 && $0.1 != "s" }
        return shown.map { "\($0.0)\($0.1)" }.joined(separator: " ")
    }
}
