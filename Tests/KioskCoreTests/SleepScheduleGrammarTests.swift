import KioskCore
import Testing

/// The opening-hours grammar of `[display] sleep_schedule`: weekdays, ranges of them, dates and
/// closed days; what it refuses and in which words; random and mangled text.
@Suite struct SleepScheduleGrammarTests {
    private func parsed(_ text: String) -> SleepSchedule? {
        if case .success(let s) = SleepSchedule.parse(text) { return s }
        return nil
    }

    private func problem(_ text: String) -> String? {
        if case .failure(let e) = SleepSchedule.parse(text) { return e.description }
        return nil
    }

    @Test func theIssuesExampleReads() throws {
        let text = "Mon-Fri 22:00-07:00; Sat,Sun 18:00-10:00; Tue closed; 2026-12-25 closed"
        let s = try #require(parsed(text))
        #expect(s.clauses.map(\.description) == ["Mon-Fri 22:00-07:00", "Sat,Sun 18:00-10:00", "Tue closed", "2026-12-25 closed"])
        #expect(s.clauses[0].days == [.weekdays(.monday, .friday)])
        #expect(s.clauses[0].ranges == [SleepSchedule.Range(start: 22 * 60, end: 7 * 60)])
        #expect(s.clauses[1].days == [.weekdays(.saturday, .saturday), .weekdays(.sunday, .sunday)])
        #expect(s.clauses[2].closed && s.clauses[2].ranges == [.wholeDay])
        #expect(s.clauses[3].days == [.date(20_812)])
        #expect(s.description == text)
        let weekend = try #require(parsed("Mon-Fri 22:00-07:00; Sat,Sun closed"))
        #expect(weekend.description == "Mon-Fri 22:00-07:00; Sat,Sun closed")
    }

    /// The values the key took before days existed mean what they meant: every day.
    @Test func todaysValuesReadAsBefore() throws {
        for (text, written) in [("22:00-07:00", "22:00-07:00"), ("22:00-07:00, 12:00-13:00", "22:00-07:00,12:00-13:00"),
                                ("00:00-24:00", "00:00-24:00"), ("", "")] {
            let s = try #require(parsed(text))
            #expect(s.description == written)
            #expect(s.clauses.allSatisfy { $0.days.isEmpty && !$0.closed })
        }
        #expect(parsed("")?.isEmpty == true)
    }

    @Test(arguments: [
        ("monday-FRIDAY 22:00-07:00", "Mon-Fri 22:00-07:00"),
        (" sat , Sun\tclosed ", "Sat,Sun closed"),
        ("Fri-Mon 7:00 - 9:00, 12:00-13:00", "Fri-Mon 07:00-09:00,12:00-13:00"),
        ("Mon-Mon closed", "Mon closed"),
        ("Sun - Sat CLOSED", "Sun-Sat closed"),
        ("Tue, 2026-12-24 18:00-24:00", "Tue,2026-12-24 18:00-24:00"),
        ("closed", "closed"),
        ("Mon closed;12:00-13:00 ;  Wednesday 00:00-01:00", "Mon closed; 12:00-13:00; Wed 00:00-01:00"),
        ("2028-02-29 closed", "2028-02-29 closed"),
        ("Sat 00:00-24:00", "Sat 00:00-24:00"),
    ])
    func namesCaseAndBlanksAreFree(_ example: (text: String, written: String)) {
        #expect(parsed(example.text)?.description == example.written, "\(example.text)")
        #expect(parsed(example.written)?.description == example.written)
    }

    static let notADay = "not a weekday (Mon to Sun), a range of them (Mon-Fri) or a date (YYYY-MM-DD)"
    static let notTimes = "not HH:MM-HH:MM with hours 00-23 and minutes 00-59 (24:00 only as an end)"

    @Test(arguments: [
        ("Mon-Fri 22:00-07:00; Sat,Sun 18:00-10:00; Tue clsed", "clause 3: 'Tue clsed': not HH:MM-HH:MM or closed"),
        ("Mon-Fri", "'Mon-Fri': not HH:MM-HH:MM or closed"),
        ("Tus 10:00-12:00", "'Tus': \(notADay)"),
        ("Mon-Fry closed", "'Mon-Fry': \(notADay)"),
        ("Mon-Wed-Fri closed", "'Mon-Wed-Fri': \(notADay)"),
        ("Sat Sun closed", "'Sat Sun': \(notADay)"),
        ("2026-02-29 closed", "'2026-02-29': no such date"),
        ("2026-13-01 closed", "'2026-13-01': no such date"),
        ("26-12-25 closed", "'26-12-25': \(notADay)"),
        ("2026-12-25 25:00-07:00", "'25:00-07:00': \(notTimes)"),
        ("22:00-31:00", "'22:00-31:00': \(notTimes)"),
        ("Mon 10:00-10:00", "'10:00-10:00': starts and ends at the same time"),
        ("Mon 22:00", "'22:00': not HH:MM-HH:MM"),
        ("Mon 22:00-07:00,", "'22:00-07:00,': an empty range (a ',' too many?)"),
        ("Mon,,Tue closed", "'Mon,,Tue': an empty day (a ',' too many?)"),
        ("Mon-Fri22:00-07:00", "'Mon-Fri22:00-07:00': a blank is needed between the days and the times"),
        ("22:00-07:00;", "clause 2: empty (a ';' too many?)"),
        ("; Mon closed", "clause 1: empty (a ';' too many?)"),
        ("Mon 10:00-12:00 closed", "'Mon 10:00-12:00': \(notADay)"),
        ("Mon\u{1B}[31m closed", "'Mon\\e[31m': \(notADay)"),
    ])
    func badValuesSayWhatIsWrong(_ example: (text: String, message: String)) {
        #expect(problem(example.text) == example.message, "\(example.text)")
    }

    /// Today's refusals stay refusals.
    @Test(arguments: ["25:00-07:00", "22:60-07:00", "22:00", "22:00-07:00-08:00", "22-07", "22:00-07:00,",
                      ",22:00-07:00", "07:00-07:00", "24:00-07:00", "aa:bb-cc:dd", "22:0-07:00", "+2:00-07:00",
                      "22:00–07:00", "１２:00-13:00", "-1:00-07:00", "123:00-07:00", "1\u{308}2:00-13:00"])
    func badRangesAreRefused(_ text: String) {
        #expect(parsed(text) == nil, "\(text)")
    }

    /// A long quoted part is shortened as config messages shorten values.
    @Test func aLongPartIsShortened() throws {
        let message = try #require(problem(String(repeating: "x", count: 300) + " closed"))
        #expect(message.hasPrefix("'xxxx") && message.contains("...': \(Self.notADay)"))
        #expect(message.count < 130, "\(message)")
    }

    @Test func pastedBlobsAreRefusedByTheirSize() {
        let clauses = (0..<33).map { _ in "Mon closed" }.joined(separator: ";")
        #expect(problem(clauses) == "more than 32 clauses")
        #expect(parsed((0..<32).map { _ in "Mon closed" }.joined(separator: ";"))?.clauses.count == 32)
        let dates = (1...65).map { ClockText.date(daysSinceEpoch: Int64(20_800 + $0)) }
        #expect(problem(dates.joined(separator: ",") + " closed") == "more than 64 days and dates")
        #expect(parsed(dates.dropLast().joined(separator: ",") + " closed")?.clauses[0].days.count == 64)
        let ranges = "Mon 01:00-02:00,03:00-04:00; " + (0..<47).map { _ in "05:00-06:00" }.joined(separator: ",")
        #expect(problem(ranges) == "more than 48 ranges")
        #expect(problem(String(repeating: " ", count: 4096) + "closed") == "too long: 4102 bytes, at most 4096")
    }

    /// Random text and mangled schedules never crash or hang the parser or the calendar
    /// questions; whatever the parser accepts writes back to text that reads as the same
    /// schedule, clause by clause, within the limits.
    @Test func fuzzedOpeningHoursNeverCrashAndRoundTrip() {
        var rng = SeededGenerator(seed: 0x0DA7)
        let days = ["Mon", "fri", "Sunday", "Sat-Tue", "Mon-Fri", "Thu, Sat", "2026-12-25", "2028-02-29", "2026-02-30",
                    "", "Mon-", "-"]
        let hours = ["22:00-07:00", "00:00-24:00", "7:05 - 8:00", "closed", "clsed", "12:00-13:00,23:00-24:00",
                     "24:00-01:00", "9:00", ""]
        let words = ["-", ",", ";", " ", ":", "24", "\t", "é", "\u{0}", "Tue", "closed", "2026-12-31", "10:00-11:00"]
        let letters = Array("0123456789:-,; MTWFSonuedhriatcls\t")
        let seeds = ["Mon-Fri 22:00-07:00; Sat,Sun 18:00-10:00; Tue closed; 2026-12-25 closed",
                     "Mon-Fri 22:00-07:00; Sat,Sun closed", "Fri-Mon 23:00-01:00, 12:00-13:00", "22:00-07:00"]
        func pick<T>(_ a: [T]) -> T { a[rng.integer(in: 0...(a.count - 1))] }
        var accepted = 0, withDays = 0
        for i in 0..<6000 {
            var chars: [Character]
            switch i % 3 {
            case 0: chars = Array(seeds[i / 3 % seeds.count])
            case 1: chars = Array((0..<rng.integer(in: 1...4)).map { _ in pick(days) + " " + pick(hours) }
                                  .joined(separator: pick([";", "; ", " ;", ","])))
            default: chars = Array((0..<rng.integer(in: 0...12)).map { _ in pick(words) }.joined())
            }
            if i % 3 != 2 {
                for _ in 0..<rng.integer(in: 0...2) where !chars.isEmpty {
                    let at = rng.integer(in: 0...(chars.count - 1))
                    switch rng.integer(in: 0...3) {
                    case 0: chars[at] = pick(letters)
                    case 1: chars.remove(at: at)
                    case 2: chars.insert(pick(letters), at: at)
                    default: chars.insert(contentsOf: Array(pick(words)), at: at)
                    }
                }
            }
            let text = String(chars)
            guard let s = parsed(text) else { continue }
            accepted += 1
            if s.clauses.contains(where: { !$0.days.isEmpty }) { withDays += 1 }
            #expect(parsed(s.description) == s, "\(text)")
            for clause in s.clauses {
                #expect(parsed(clause.description)?.clauses == [clause], "\(text)")
            }
            #expect(s.clauses.count <= SleepSchedule.maximumClauses)
            #expect(s.clauses.flatMap(\.days).count <= SleepSchedule.maximumDays)
            // The calendar questions answer too, and a change always lies ahead.
            let m = SleepSchedule.Moment(day: 20_788 + i % 9, minute: i % 1440)
            _ = s.clause(at: m)
            if let next = s.nextChange(after: m) { #expect(next > m) }
        }
        // The mutations keep many schedules valid, with days too: the accepting path is exercised.
        #expect(accepted > 800, "\(accepted)")
        #expect(withDays > 400, "\(withDays)")
    }
}
