import KioskCore
import Testing

/// What a schedule says on the calendar: which day a range belongs to, the week's end, closed
/// dates, where the answer changes, when it wakes, and the outlook `check-config` prints.
@Suite struct SleepScheduleCalendarTests {
    static func schedule(_ text: String) -> SleepSchedule {
        guard case .success(let s) = SleepSchedule.parse(text) else { fatalError("bad test schedule \(text)") }
        return s
    }

    /// 2026-12-07, a Monday.
    static let monday = 20_794

    static func at(_ day: Int, _ hour: Int, _ minute: Int = 0) -> SleepSchedule.Moment {
        .init(day: day, minute: hour * 60 + minute)
    }

    @Test func dayNumbersHaveTheirWeekdays() {
        #expect(SleepSchedule.Weekday(day: 0) == .thursday)
        #expect(SleepSchedule.Weekday(day: -1) == .wednesday)
        #expect(SleepSchedule.Weekday(day: 20_788) == .tuesday)
        #expect(SleepSchedule.Weekday(day: Self.monday) == .monday)
        #expect(SleepSchedule.Moment(day: Self.monday, minute: 1440 + 7 * 60).description == "Tue 2026-12-08 07:00")
        #expect(SleepSchedule.Moment(day: Self.monday, minute: -60).weekdayAndTime == "Sun 23:00")
    }

    /// A range is times of day on each day named: on Monday `22:00-07:00` is 00:00-07:00 and
    /// 22:00-24:00, so the weekend stays dark until Monday 07:00 and Friday's night runs into
    /// the closed Saturday.
    @Test func aRangeIsTimesOfDayOnEachDayNamed() {
        let s = Self.schedule("Mon-Fri 22:00-07:00; Sat,Sun closed")
        let mon = Self.monday
        func holding(_ m: SleepSchedule.Moment) -> String? { s.clause(at: m)?.description }
        #expect(holding(Self.at(mon, 0, 30)) == "Mon-Fri 22:00-07:00", "Monday's early hours")
        #expect(holding(Self.at(mon, 6, 59)) == "Mon-Fri 22:00-07:00")
        #expect(holding(Self.at(mon, 7)) == nil)
        #expect(holding(Self.at(mon, 21, 59)) == nil)
        #expect(holding(Self.at(mon, 22)) == "Mon-Fri 22:00-07:00")
        #expect(holding(Self.at(mon + 1, 6, 59)) == "Mon-Fri 22:00-07:00")
        #expect(holding(Self.at(mon + 1, 7)) == nil)
        #expect(holding(Self.at(mon + 4, 23)) == "Mon-Fri 22:00-07:00")
        #expect(holding(Self.at(mon + 5, 3)) == "Sat,Sun closed", "Saturday is Saturday's")
        #expect(holding(Self.at(mon + 6, 23, 59)) == "Sat,Sun closed")
        #expect(holding(Self.at(mon + 7, 0)) == "Mon-Fri 22:00-07:00")
        #expect(holding(Self.at(mon + 7, 7)) == nil)
    }

    /// Sunday's times are Sunday's own: its midnight ends them; `Fri-Mon` runs past the week's end.
    @Test func theWeeksEnd() {
        let sunday = Self.schedule("Sun 22:00-07:00")
        let mon = Self.monday
        #expect(sunday.clause(at: Self.at(mon - 1, 23)) != nil)
        #expect(sunday.clause(at: Self.at(mon - 1, 6, 59)) != nil)
        #expect(sunday.clause(at: Self.at(mon, 0)) == nil, "Monday is not named")
        #expect(sunday.clause(at: Self.at(mon + 5, 23)) == nil, "Saturday")
        #expect(sunday.nextChange(after: Self.at(mon - 1, 23)) == Self.at(mon, 0))
        #expect(sunday.nextChange(after: Self.at(mon, 7)) == Self.at(mon + 6, 0))
        #expect(sunday.nextChange(after: Self.at(mon + 6, 0)) == Self.at(mon + 6, 7))

        let long = Self.schedule("Fri-Mon 22:00-07:00")
        let nights = (0..<7).map { long.clause(at: Self.at(mon + $0, 23)) != nil }
        #expect(nights == [true, false, false, false, true, true, true], "Mon, Fri, Sat, Sun nights")
        let mornings = (0..<7).map { long.clause(at: Self.at(mon + $0, 3)) != nil }
        #expect(mornings == [true, false, false, false, true, true, true], "Mon, Fri, Sat, Sun mornings")
    }

    @Test func closedDatesAreWholeLocalDays() {
        let s = Self.schedule("2026-12-25 closed; 2026-12-31 22:00-02:00")
        let christmas = 20_812
        #expect(s.clause(at: Self.at(christmas - 1, 23, 59)) == nil)
        #expect(s.clause(at: Self.at(christmas, 0))?.description == "2026-12-25 closed")
        #expect(s.clause(at: Self.at(christmas, 23, 59)) != nil)
        #expect(s.clause(at: Self.at(christmas + 1, 0)) == nil)
        #expect(s.nextChange(after: Self.at(christmas - 10, 12)) == Self.at(christmas, 0))
        #expect(s.nextChange(after: Self.at(christmas, 0)) == Self.at(christmas + 1, 0))
        // New Year's Eve's times are its own: until 02:00 that morning and from 22:00 to midnight.
        #expect(s.clause(at: Self.at(christmas + 6, 1, 59))?.description == "2026-12-31 22:00-02:00")
        #expect(s.clause(at: Self.at(christmas + 6, 23))?.description == "2026-12-31 22:00-02:00")
        #expect(s.clause(at: Self.at(christmas + 7, 1)) == nil)
        #expect(s.nextChange(after: Self.at(christmas + 7, 2)) == nil, "nothing ahead: only past dates")
    }

    /// The schedule's next change is exact: walking minute by minute over three weeks, every
    /// minute at which the answer (the clause holding) changes is the change announced the
    /// minute before, and each announced change lies ahead.
    @Test(arguments: [
        "Mon-Fri 22:00-07:00; Sat,Sun 18:00-10:00; Tue closed; 2026-12-25 closed",
        "Mon-Fri 22:00-07:00; Sat,Sun closed", "Fri-Mon 23:00-01:00", "Sun 22:00-07:00", "22:00-07:00,12:00-13:00",
        "Mon 23:00-24:00; Tue 00:00-01:00", "2026-12-24 18:00-24:00; 2026-12-25 closed; 2026-12-31 22:00-02:00",
        "Wed 12:00-12:01, 12:01-12:02, 23:59-00:01; Thu 00:00-00:01", "closed", "Mon-Sun closed",
    ])
    func everyChangeIsAnnounced(_ text: String) {
        let s = Self.schedule(text)
        var before = SleepSchedule.Moment(day: 20_808, minute: 0)
        var misses: [String] = []
        for minute in 1..<(21 * 1440) {
            let m = SleepSchedule.Moment(day: 20_808, minute: minute)
            let next = s.nextChange(after: before)
            if let next, next <= before { misses.append("\(before): \(next) is not ahead") }
            if s.clause(at: m) != s.clause(at: before), next != m { misses.append("\(m): announced \(String(describing: next))") }
            before = m
        }
        #expect(misses.isEmpty, "\(misses.prefix(5))")
    }

    @Test func whenItWakesAndWhenItSleeps() {
        let s = Self.schedule("Mon-Fri 22:00-07:00; Sat,Sun closed")
        let mon = Self.monday
        #expect(s.wake(from: Self.at(mon, 22, 30)) == Self.at(mon + 1, 7))
        #expect(s.wake(from: Self.at(mon + 4, 23)) == Self.at(mon + 7, 7), "Friday night to Monday 07:00")
        #expect(s.wake(from: Self.at(mon, 12)) == Self.at(mon, 12), "awake already")
        #expect(s.sleep(from: Self.at(mon, 12)) == Self.at(mon, 22))
        #expect(s.sleep(from: Self.at(mon, 22)) == Self.at(mon, 22))
        #expect(Self.schedule("Mon-Sun closed").wake(from: Self.at(mon, 12)) == nil)
        #expect(Self.schedule("closed").wake(from: Self.at(mon, 12)) == nil)
        #expect(Self.schedule("Mon-Sat closed").wake(from: Self.at(mon, 12)) == Self.at(mon + 6, 0))
        #expect(Self.schedule("2020-01-01 closed").sleep(from: Self.at(mon, 12)) == nil)
        let far = Self.schedule("2099-03-29 closed")
        #expect(far.sleep(from: Self.at(mon, 12))?.description == "Sun 2099-03-29 00:00")
        #expect(SleepSchedule.none.sleep(from: Self.at(mon, 12)) == nil)
    }

    @Test func theOutlookSaysWhenItNextSleepsAndWakes() {
        let s = Self.schedule("Mon-Fri 22:00-07:00; Sat,Sun closed")
        let clock = VirtualWallClock(midnight: .zero, day: Self.monday)
        func outlook(_ schedule: SleepSchedule, _ day: Int, _ hour: Int) -> String {
            schedule.outlook(at: clock.wallTime(localDay: Self.monday + day, minute: hour * 60), clock: clock)
        }
        #expect(outlook(s, 0, 12) == "next Mon 2026-12-07 22:00 CET until Tue 2026-12-08 07:00 CET")
        #expect(outlook(s, 5, 3) == "now (Sat,Sun closed) until Mon 2026-12-14 07:00 CET")
        #expect(outlook(s, 6, 12) == "now (Sat,Sun closed) until Mon 2026-12-14 07:00 CET")
        #expect(outlook(Self.schedule("Sat closed; Sun-Fri 00:00-24:00"), 0, 12) == "now (Sun-Fri 00:00-24:00) with no end")
        #expect(outlook(Self.schedule("Sat-Sun closed; Mon-Fri 00:00-24:00"), 0, 12).hasSuffix("with no end"))
        #expect(outlook(Self.schedule("Fri-Sun closed; Mon-Thu closed"), 2, 12) == "now (Mon-Thu closed) with no end")
        #expect(outlook(Self.schedule("2020-01-01 closed"), 0, 12) == "none ahead")
        #expect(outlook(.none, 0, 12) == "none")
        #expect(outlook(Self.schedule("2026-12-25 closed"), 0, 12) == "next Fri 2026-12-25 00:00 CET until Sat 2026-12-26 00:00 CET")
    }

    /// On the days daylight saving begins and ends (Berlin's rules on a clock of our own: the
    /// C library's part is tested with the platform), a closed day is 23 and 25 hours long, a
    /// range starting in the skipped hour starts at its end, and the zone's name follows.
    @Test func daylightSavingDays() {
        let clock = BerlinLikeClock()
        let spring = Self.schedule("2027-03-28 closed")
        let before = clock.wallTime(localDay: 20_904, minute: 12 * 60)  // Sat 2027-03-27
        #expect(spring.outlook(at: before, clock: clock) == "next Sun 2027-03-28 00:00 CET until Mon 2027-03-29 00:00 CEST")
        let start = clock.wallTime(localDay: 20_905, minute: 0), end = clock.wallTime(localDay: 20_906, minute: 0)
        #expect(end - start == .seconds(23 * 3600))
        let gap = Self.schedule("2027-03-28 02:30-05:00")
        #expect(gap.outlook(at: before, clock: clock) == "next Sun 2027-03-28 03:00 CEST until Sun 2027-03-28 05:00 CEST")
        let autumn = Self.schedule("2027-10-31 closed")
        let october = clock.wallTime(localDay: 21_121, minute: 12 * 60)  // Sat 2027-10-30
        #expect(autumn.outlook(at: october, clock: clock) == "next Sun 2027-10-31 00:00 CEST until Mon 2027-11-01 00:00 CET")
        #expect(clock.wallTime(localDay: 21_123, minute: 0) - clock.wallTime(localDay: 21_122, minute: 0) == .seconds(25 * 3600))
    }
}

/// Central European time with daylight saving in 2027 only (from 2027-03-28 01:00 UTC to
/// 2027-10-31 01:00 UTC): enough of a zone for the days the clocks change.
final class BerlinLikeClock: WallClock {
    static let summerFrom = WallTime(unixSeconds: 1_806_195_600)
    static let summerUntil = WallTime(unixSeconds: 1_824_944_400)
    /// Where monotonic zero is on the wall clock.
    var wallAtZero = WallTime(unixSeconds: 1_806_000_000)

    private func offset(_ w: WallTime) -> Int64 { w >= Self.summerFrom && w < Self.summerUntil ? 7200 : 3600 }

    func wallTime(at t: TimeStamp) -> WallTime { wallAtZero + (t - .zero) }

    func local(_ w: WallTime) -> LocalTime {
        let shifted = w.wholeUnixSeconds + offset(w)
        let day = Int(shifted >= 0 ? shifted / 86_400 : (shifted - 86_399) / 86_400)
        let s = Int(shifted - Int64(day) * 86_400)
        return LocalTime(wall: w, day: LocalDay(number: day, start: wallTime(localDay: day, minute: 0)),
                         hour: s / 3600, minute: s / 60 % 60, second: s % 60, zone: offset(w) == 7200 ? "CEST" : "CET")
    }

    func wallTime(localDay day: Int, minute: Int) -> WallTime {
        let shown = Int64(day) * 86_400 + Int64(minute) * 60
        // The first reading of either offset that shows it; in the skipped hour, its end.
        for guess in [shown - 7200, shown - 3600] where offset(WallTime(unixSeconds: guess)) == shown - guess {
            return WallTime(unixSeconds: guess)
        }
        return Self.summerFrom
    }
}
