/// How a language writes the numbers the kiosk shows (scores, ranks, the round's clock):
/// its digits and how it groups thousands. Only what differs from English is written down.
public struct NumberStyle: Equatable, Sendable {
    /// The digits 0 to 9 (Arabic writes ٠ to ٩).
    public var digits: [Character]
    /// Between groups of digits: `,` in English, `.` in German, a narrow no-break space in French.
    public var groupSeparator: String
    /// Numbers with fewer digits than this are not grouped (Polish and Spanish leave 1234 alone).
    public var minimumGroupedDigits: Int
    /// Indian grouping: the first group of three, then groups of two (12,34,567).
    public var groupsOfTwo: Bool

    public init(digits: [Character] = Array("0123456789"), groupSeparator: String = ",",
                minimumGroupedDigits: Int = 4, groupsOfTwo: Bool = false) {
        self.digits = digits
        self.groupSeparator = groupSeparator
        self.minimumGroupedDigits = minimumGroupedDigits
        self.groupsOfTwo = groupsOfTwo
    }

    public static let english = NumberStyle()

    /// The style of `language`, from the common usage of its main country (CLDR's defaults).
    public static func of(_ language: KioskLanguage) -> NumberStyle {
        switch language.code {
        case "de", "it", "nl", "tr", "pt": NumberStyle(groupSeparator: ".")
        case "es": NumberStyle(groupSeparator: ".", minimumGroupedDigits: 5)
        case "fr": NumberStyle(groupSeparator: "\u{202F}")
        case "pl": NumberStyle(groupSeparator: "\u{00A0}", minimumGroupedDigits: 5)
        case "hi": NumberStyle(groupsOfTwo: true)
        case "ar": NumberStyle(digits: Array("٠١٢٣٤٥٦٧٨٩"), groupSeparator: "٬")
        default: .english
        }
    }

    /// `value` in this style: `12.345`, `١٢٬٣٤٥`, `-7`.
    public func format(_ value: Int) -> String {
        let plain = String(value.magnitude)
        var out: [Character] = []
        let count = plain.count
        for (i, c) in plain.enumerated() {
            let left = count - i
            if i > 0, count >= minimumGroupedDigits, isGroupBoundary(digitsLeft: left) {
                out += groupSeparator
            }
            out.append(digits[Int(c.asciiValue! - 48)])
        }
        return (value < 0 ? "-" : "") + String(out)
    }

    private func isGroupBoundary(digitsLeft n: Int) -> Bool {
        guard groupsOfTwo else { return n % 3 == 0 }
        return n == 3 || (n > 3 && (n - 3) % 2 == 0)
    }

    /// A span of seconds as the round's clock shows it: `1:05`, `0:09`.
    public func clock(seconds: Int) -> String {
        let s = max(seconds, 0)
        let tail = s % 60 < 10 ? format(0) + format(s % 60) : format(s % 60)
        return format(s / 60) + ":" + tail
    }
}
