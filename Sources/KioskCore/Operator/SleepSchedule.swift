/// When the display sleeps by the clock (`[display] sleep_schedule`): clauses separated by `;`,
/// each times of local day on some days (`Mon-Fri 22:00-07:00`), whole days (`Sat,Sun closed`,
/// `2026-12-25 closed`), or times on every day (`22:00-07:00, 12:00-13:00`). The display sleeps
/// while any clause holds. Empty: never. The grammar is in `SleepSchedule+Parse.swift`.
public struct SleepSchedule: Equatable, Sendable, CustomStringConvertible {
    /// One range in minutes since local midnight: from `start` (included) to `end` (excluded).
    /// `end` may be 1440 (`24:00`); `end < start` crosses midnight into the next day.
    public struct Range: Equatable, Sendable, CustomStringConvertible {
        public let start: Int
        public let end: Int

        public init?(start: Int, end: Int) {
            guard (0..<Self.day).contains(start), (0...Self.day).contains(end), start != end else { return nil }
            self.start = start
            self.end = end
        }

        static let day = 24 * 60

        /// The whole day, 00:00-24:00: what `closed` means.
        public static let wholeDay = Range(start: 0, end: day)!

        /// The range goes on past midnight into the next day.
        public var crossesMidnight: Bool { end < start }

        /// Whether the minute of the day (0..<1440) falls inside: for one across midnight, after
        /// its start or before its end.
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

    /// A day of the week, Monday first.
    public enum Weekday: Int, CaseIterable, Sendable {
        case monday, tuesday, wednesday, thursday, friday, saturday, sunday

        /// The weekday of a local day number (days since 1970-01-01, a Thursday).
        public init(day: Int) {
            self = Weekday(rawValue: ((day % 7) + 7 + 3) % 7)!
        }

        /// `Mon`.
        public var name: String { ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"][rawValue] }

        /// `Monday`.
        public var fullName: String {
            ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"][rawValue]
        }
    }

    /// The days a clause names: one weekday or a range of them (`Fri-Mon` runs past Sunday), or
    /// a date.
    public enum Days: Equatable, Sendable, CustomStringConvertible {
        /// From the first weekday to the second, both included; the same twice is one day.
        case weekdays(Weekday, Weekday)
        /// A local day number (`LocalDay.number`).
        case date(Int)

        public func contains(day: Int) -> Bool {
            switch self {
            case .weekdays(let from, let to):
                let w = Weekday(day: day).rawValue
                return from.rawValue <= to.rawValue ? (from.rawValue...to.rawValue).contains(w)
                                                    : (w >= from.rawValue || w <= to.rawValue)
            case .date(let d): return d == day
            }
        }

        /// `Mon-Fri`, `Tue`, `2026-12-25`.
        public var description: String {
            switch self {
            case .weekdays(let from, let to): return from == to ? from.name : "\(from.name)-\(to.name)"
            case .date(let d): return ClockText.date(daysSinceEpoch: Int64(d))
            }
        }
    }

    /// One clause: ranges of the day, or the whole day (`closed`), on the days it names, or on
    /// every day when it names none. A range is times of day on each day named: on those days
    /// `22:00-07:00` is 00:00 to 07:00 and 22:00 to midnight, so `Mon-Fri 22:00-07:00; Sat,Sun
    /// closed` keeps Monday's early hours dark and lets Friday's night run into Saturday's.
    public struct Clause: Equatable, Sendable, CustomStringConvertible {
        /// Empty: every day.
        public let days: [Days]
        /// For a closed clause, the whole day.
        public let ranges: [Range]
        /// Written `closed`: the whole local day, 00:00 to 24:00.
        public let closed: Bool

        public init(days: [Days] = [], ranges: [Range]) {
            self.days = days
            self.ranges = ranges
            closed = false
        }

        /// The whole of each day named.
        public static func closed(on days: [Days]) -> Clause { Clause(days: days) }

        private init(days: [Days]) {
            self.days = days
            ranges = [.wholeDay]
            closed = true
        }

        /// Whether the clause names local day `day`.
        public func applies(onDay day: Int) -> Bool {
            days.isEmpty || days.contains { $0.contains(day: day) }
        }

        /// Whether the display sleeps by this clause at `m`: the day is named and the time of
        /// day is inside a range.
        public func holds(at m: Moment) -> Bool {
            applies(onDay: m.day) && ranges.contains { $0.contains(minute: m.minute) }
        }

        /// Where this clause's answer may change on `day` if it applies then: its ranges' starts
        /// and ends, and the day's own midnights (whether it applies is the caller's question).
        func boundaries(onDay day: Int) -> [Moment] {
            [Moment(day: day, minute: 0), Moment(day: day + 1, minute: 0)]
                + ranges.flatMap { [Moment(day: day, minute: $0.start), Moment(day: day, minute: $0.end)] }
        }

        /// Names a weekday (or every day): it comes back each week.
        var repeats: Bool {
            days.isEmpty || days.contains { if case .weekdays = $0 { return true } else { return false } }
        }

        /// `Mon-Fri 22:00-07:00`, `Sat,Sun closed`, `22:00-07:00,12:00-13:00`.
        public var description: String {
            let hours = closed ? "closed" : ranges.map(\.description).joined(separator: ",")
            return days.isEmpty ? hours : days.map(\.description).joined(separator: ",") + " " + hours
        }
    }

    /// A minute of the local calendar: a local day number (`LocalDay.number`) and the minute
    /// the clock shows (0..<1440). What the schedule is asked about and answers in.
    public struct Moment: Comparable, Hashable, Sendable, CustomStringConvertible {
        public let day: Int
        public let minute: Int

        /// Minutes past the day's end count into the next days (1440 is the next midnight).
        public init(day: Int, minute: Int) {
            let carry = minute >= 0 ? minute / Range.day : (minute - Range.day + 1) / Range.day
            self.day = day + carry
            self.minute = minute - carry * Range.day
        }

        /// The minute the local calendar shows at `local` (its seconds dropped).
        public init(_ local: LocalTime) {
            self.init(day: local.day.number, minute: local.hour * 60 + local.minute)
        }

        public static func < (a: Moment, b: Moment) -> Bool { (a.day, a.minute) < (b.day, b.minute) }

        public var weekday: Weekday { Weekday(day: day) }

        /// `Mon 07:00`: when, within the week ahead, in a log line.
        public var weekdayAndTime: String { "\(weekday.name) \(Range.clock(minute))" }

        /// `Mon 2026-12-07 07:00`.
        public var description: String {
            "\(weekday.name) \(ClockText.date(daysSinceEpoch: Int64(day))) \(Range.clock(minute))"
        }
    }

    public let clauses: [Clause]

    public init(_ clauses: [Clause] = []) { self.clauses = clauses }

    /// No sleep by the clock.
    public static let none = SleepSchedule()

    public var isEmpty: Bool { clauses.isEmpty }

    /// The schedule as the config writes it: `Mon-Fri 22:00-07:00; Sat,Sun closed`; empty for none.
    public var description: String { clauses.map(\.description).joined(separator: "; ") }

    /// The first clause that holds at `m`, if any: why the display sleeps.
    public func clause(at m: Moment) -> Clause? {
        clauses.first { $0.holds(at: m) }
    }

    /// The first moment after `m` at which the answer may change (a range's start or end, a
    /// closed day's midnights); nil when none comes (only dates, all past).
    public func nextChange(after m: Moment) -> Moment? {
        var soonest: Moment?
        func consider(_ clause: Clause, onDay day: Int) {
            for b in clause.boundaries(onDay: day) where b > m && soonest.map({ b < $0 }) ?? true { soonest = b }
        }
        for clause in clauses {
            // A weekly clause starts within any 7 days; the day before adds ranges that end today.
            if clause.repeats {
                for day in (m.day - 1)...(m.day + 7) where clause.applies(onDay: day) { consider(clause, onDay: day) }
            }
            for case .date(let day) in clause.days where day >= m.day - 1 { consider(clause, onDay: day) }
        }
        return soonest
    }

    /// At most this many changes are walked to find a sleep or a wake: the length of the walk
    /// stays bounded whatever the schedule.
    static let longestWalk = 10_000

    /// The first moment from `m` on (included) at which no clause holds: when the display
    /// asleep by the schedule wakes by itself. Nil when that is not within a year (every day
    /// closed), or past `longestWalk` changes.
    public func wake(from m: Moment) -> Moment? {
        walk(from: m, until: { clause(at: $0) == nil }, withinDays: 366)
    }

    /// The first moment from `m` on (included) at which a clause holds; nil for none ahead.
    public func sleep(from m: Moment) -> Moment? {
        walk(from: m, until: { clause(at: $0) != nil }, withinDays: nil)
    }

    private func walk(from m: Moment, until found: (Moment) -> Bool, withinDays limit: Int?) -> Moment? {
        var at = m
        for _ in 0..<Self.longestWalk {
            if found(at) { return at }
            guard let next = nextChange(after: at), limit.map({ next.day - m.day <= $0 }) ?? true else { return nil }
            at = next
        }
        return nil
    }
}

/// Why a sleep schedule was refused: what is wrong, in a few words, quoting the part.
public struct ScheduleError: Error, Equatable, Sendable, CustomStringConvertible {
    public let description: String
    init(_ text: String) { description = text }
}
