/// When the display sleeps by the clock (`[display] sleep_schedule`): ranges of local time such
/// as `22:00-07:00`, separated by commas; a range whose end comes before its start crosses
/// midnight. Empty: never.
public struct SleepSchedule: Equatable, Sendable, CustomStringConvertible {
    /// One range in minutes since local midnight: from `start` (included) to `end` (excluded).
    /// `end` may be 1440 (`24:00`); `end < start` crosses midnight.
    public struct Range: Equatable, Sendable, CustomStringConvertible {
        public let start: Int
        public let end: Int

        public init?(start: Int, end: Int) {
            guard (0..<Self.day).contains(start), (0...Self.day).contains(end), start != end else { return nil }
            self.start = start
            self.end = end
        }

        static let day = 24 * 60

        /// Whether the minute of the day (0..<1440) falls inside.
        public func contains(minute: Int) -> Bool {
            start < end ? (minute >= start && minute < end) : (minute >= start || minute < end)
        }

        /// `22:00-07:00`.
        public var description: String { "\(Self.clock(start))-\(Self.clock(end))" }

        /// `07:00` for minute 420 (`24:00` for 1440).
        public static func clock(_ minute: Int) -> String {
            let h = minute / 60, m = minute % 60
            return (h < 10 ? "0" : "") + "\(h):" + (m < 10 ? "0" : "") + "\(m)"
        }
    }

    public let ranges: [Range]

    public init(_ ranges: [Range] = []) { self.ranges = ranges }

    /// No sleep by the clock.
    public static let none = SleepSchedule()

    /// More ranges than anyone needs; the limit keeps a pasted blob from being a long list.
    public static let maximumRanges = 48

    public var isEmpty: Bool { ranges.isEmpty }

    /// The ranges as the config writes them: `22:00-07:00,12:00-13:00`; empty for none.
    public var description: String { ranges.map(\.description).joined(separator: ",") }

    /// Reads `HH:MM-HH:MM[,HH:MM-HH:MM...]` (spaces allowed around the parts; hours 0-24, `24:00`
    /// only as an end). Empty text is no schedule. On failure: what is wrong, in a few words.
    public static func parse(_ text: String) -> Result<SleepSchedule, ScheduleError> {
        let trimmed = ConfigParser.trimmingBlanks(Substring(text))
        guard !trimmed.isEmpty else { return .success(.none) }
        guard text.utf8.count <= 4096 else { return .failure(ScheduleError("too long")) }
        let parts = trimmed.split(separator: ",", omittingEmptySubsequences: false)
        guard parts.count <= maximumRanges else {
            return .failure(ScheduleError("more than \(maximumRanges) ranges"))
        }
        var ranges: [Range] = []
        for (i, part) in parts.enumerated() {
            let which = parts.count == 1 ? "the range" : "range \(i + 1)"
            let ends = part.split(separator: "-", omittingEmptySubsequences: false)
            guard ends.count == 2 else {
                return .failure(ScheduleError("\(which) is not HH:MM-HH:MM"))
            }
            guard let start = minute(ends[0], allowMidnightEnd: false), let end = minute(ends[1], allowMidnightEnd: true) else {
                return .failure(ScheduleError("\(which) is not HH:MM-HH:MM with hours 00-23 and minutes 00-59"))
            }
            guard let range = Range(start: start, end: end) else {
                return .failure(ScheduleError("\(which) starts and ends at the same time"))
            }
            ranges.append(range)
        }
        return .success(SleepSchedule(ranges))
    }

    /// The first range that holds the minute of the day, if any.
    public func range(containing minute: Int) -> Range? {
        ranges.first { $0.contains(minute: minute) }
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
}

/// Why a sleep schedule was refused.
public struct ScheduleError: Error, Equatable, Sendable, CustomStringConvertible {
    public let description: String
    init(_ text: String) { description = text }
}

extension Character {
    fileprivate var isASCIIDigitChar: Bool { ("0"..."9").contains(self) }
}
