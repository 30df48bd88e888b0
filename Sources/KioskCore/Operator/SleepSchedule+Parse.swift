/// The text of `[display] sleep_schedule`:
///
///     schedule = clause { ";" clause }          (empty: no schedule)
///     clause   = [days blank] times | days blank "closed" | "closed"
///     days     = day { "," day }                 Mon, Monday, Mon-Fri, Fri-Mon, 2026-12-25
///     times    = HH:MM-HH:MM { "," HH:MM-HH:MM }  24:00 only as an end; end < start: past midnight
///
/// Blanks are allowed around every part; weekday names in any case.
extension SleepSchedule {
    /// More than anyone needs; the limits keep a pasted blob from being a long list.
    public static let maximumClauses = 32
    public static let maximumRanges = 48
    public static let maximumDays = 64
    static let maximumLength = 4096

    /// Reads a schedule; empty text is none. On failure: what is wrong, in a few words,
    /// quoting the part (`clause 3: 'Tue clsed': not HH:MM-HH:MM or closed`).
    public static func parse(_ text: String) -> Result<SleepSchedule, ScheduleError> {
        let trimmed = ConfigParser.trimmingBlanks(Substring(text))
        guard !trimmed.isEmpty else { return .success(.none) }
        guard text.utf8.count <= maximumLength else {
            return .failure(ScheduleError("too long: \(text.utf8.count) bytes, at most \(maximumLength)"))
        }
        let parts = trimmed.split(separator: ";", omittingEmptySubsequences: false)
        guard parts.count <= maximumClauses else { return .failure(ScheduleError("more than \(maximumClauses) clauses")) }
        var clauses: [Clause] = []
        for (i, part) in parts.enumerated() {
            switch clause(part) {
            case .success(let c): clauses.append(c)
            case .failure(let problem):
                return .failure(ScheduleError((parts.count == 1 ? "" : "clause \(i + 1): ") + problem.description))
            }
        }
        guard clauses.reduce(0, { $0 + ($1.closed ? 0 : $1.ranges.count) }) <= maximumRanges else {
            return .failure(ScheduleError("more than \(maximumRanges) ranges"))
        }
        guard clauses.reduce(0, { $0 + $1.days.count }) <= maximumDays else {
            return .failure(ScheduleError("more than \(maximumDays) days and dates"))
        }
        return .success(SleepSchedule(clauses))
    }

    /// `'text'`, shortened and escaped as config messages quote values.
    private static func quoted(_ text: Substring) -> String { "'\(echoed(text, limit: 40))'" }

    private static func clause(_ text: Substring) -> Result<Clause, ScheduleError> {
        let t = ConfigParser.trimmingBlanks(text)
        guard !t.isEmpty else { return .failure(ScheduleError("empty (a ';' too many?)")) }
        let words = t.split(whereSeparator: isBlank)
        if let last = words.last, last.lowercased() == "closed" {
            let daysText = ConfigParser.trimmingBlanks(t[..<last.startIndex])
            if daysText.isEmpty { return .success(.closed(on: [])) }
            return days(daysText).map(Clause.closed(on:))
        }
        guard let start = timesStart(t) else {
            return .failure(ScheduleError("\(quoted(t)): not HH:MM-HH:MM or closed"))
        }
        var days: [Days] = []
        if start != t.startIndex {
            // Days, then a blank, then the times: `Mon-Fri22:00-07:00` is a typo, not a clause.
            guard isBlank(t[t.index(before: start)]) else {
                return .failure(ScheduleError("\(quoted(t)): a blank is needed between the days and the times"))
            }
            switch self.days(ConfigParser.trimmingBlanks(t[..<start])) {
            case .success(let d): days = d
            case .failure(let problem): return .failure(problem)
            }
        }
        return ranges(t[start...]).map { Clause(days: days, ranges: $0) }
    }

    /// Where the times begin: the first run of one or two digits followed by `:` (a date's
    /// digits are followed by `-`).
    private static func timesStart(_ t: Substring) -> Substring.Index? {
        var i = t.startIndex
        while i < t.endIndex {
            if t[i].isASCIIDigitChar, i == t.startIndex || !t[t.index(before: i)].isASCIIDigitChar {
                let digits = t[i...].prefix(while: \.isASCIIDigitChar)
                if digits.count <= 2, digits.endIndex < t.endIndex, t[digits.endIndex] == ":" { return i }
            }
            i = t.index(after: i)
        }
        return nil
    }

    private static func days(_ text: Substring) -> Result<[Days], ScheduleError> {
        var days: [Days] = []
        for item in text.split(separator: ",", omittingEmptySubsequences: false) {
            let t = ConfigParser.trimmingBlanks(item)
            guard !t.isEmpty else { return .failure(ScheduleError("\(quoted(text)): an empty day (a ',' too many?)")) }
            if isDateShaped(t) {
                guard let day = date(t) else { return .failure(ScheduleError("\(quoted(t)): no such date")) }
                days.append(.date(day))
                continue
            }
            let ends = t.split(separator: "-", omittingEmptySubsequences: false)
            guard ends.count <= 2, let from = weekday(ends[0]), let to = weekday(ends[ends.count - 1]) else {
                return .failure(ScheduleError(
                    "\(quoted(t)): not a weekday (Mon to Sun), a range of them (Mon-Fri) or a date (YYYY-MM-DD)"))
            }
            days.append(.weekdays(from, to))
        }
        return .success(days)
    }

    private static func weekday(_ text: Substring) -> Weekday? {
        let name = ConfigParser.trimmingBlanks(text).lowercased()
        return Weekday.allCases.first { $0.name.lowercased() == name || $0.fullName.lowercased() == name }
    }

    /// `DDDD-DD-DD`: meant as a date, so a bad one is called a bad date.
    private static func isDateShaped(_ t: Substring) -> Bool {
        let chars = Array(t)
        guard chars.count == 10 else { return false }
        return chars.indices.allSatisfy { [4, 7].contains($0) ? chars[$0] == "-" : chars[$0].isASCIIDigitChar }
    }

    /// The local day number of a `YYYY-MM-DD` that is a real calendar date.
    private static func date(_ t: Substring) -> Int? {
        let parts = t.split(separator: "-").compactMap { Int64($0) }
        guard parts.count == 3 else { return nil }
        return ClockText.daysSinceEpoch(year: parts[0], month: parts[1], day: parts[2]).map { Int($0) }
    }

    private static func ranges(_ text: Substring) -> Result<[Range], ScheduleError> {
        var ranges: [Range] = []
        for part in text.split(separator: ",", omittingEmptySubsequences: false) {
            let t = ConfigParser.trimmingBlanks(part)
            guard !t.isEmpty else { return .failure(ScheduleError("\(quoted(text)): an empty range (a ',' too many?)")) }
            let ends = t.split(separator: "-", omittingEmptySubsequences: false)
            guard ends.count == 2 else { return .failure(ScheduleError("\(quoted(t)): not HH:MM-HH:MM")) }
            guard let start = minute(ends[0], allowMidnightEnd: false), let end = minute(ends[1], allowMidnightEnd: true) else {
                return .failure(ScheduleError(
                    "\(quoted(t)): not HH:MM-HH:MM with hours 00-23 and minutes 00-59 (24:00 only as an end)"))
            }
            guard let range = Range(start: start, end: end) else {
                return .failure(ScheduleError("\(quoted(t)): starts and ends at the same time"))
            }
            ranges.append(range)
        }
        return .success(ranges)
    }

    /// `H:MM` or `HH:MM` as minutes since midnight; `24:00` only where an end may be.
    private static func minute(_ text: Substring, allowMidnightEnd: Bool) -> Int? {
        let t = ConfigParser.trimmingBlanks(text)
        let hm = t.split(separator: ":", omittingEmptySubsequences: false)
        guard hm.count == 2, (1...2).contains(hm[0].count), hm[1].count == 2,
              hm[0].allSatisfy(\.isASCIIDigitChar), hm[1].allSatisfy(\.isASCIIDigitChar),
              let h = Int(hm[0]), let m = Int(hm[1]), m < 60 else { return nil }
        if h == 24 && m == 0 && allowMidnightEnd { return Range.day }
        guard h < 24 else { return nil }
        return h * 60 + m
    }

    private static func isBlank(_ c: Character) -> Bool { c == " " || c == "\t" }
}

extension Character {
    /// 0 to 9 only: no other script's digits, no digit with a combining mark.
    fileprivate var isASCIIDigitChar: Bool { asciiValue.map { (48...57).contains($0) } ?? false }
}
