import KioskCore
import Testing

/// The display-sleep policy on opening hours by weekday and date: its looks at the clock land
/// on every change, through a week, a closed date and the days daylight saving changes.
@Suite struct DisplaySleepWeekTests {
    let t0 = TimeStamp(microseconds: 1_000_000)

    func policy(_ text: String) -> DisplaySleepPolicy {
        DisplaySleepPolicy(idleAfter: .zero, schedule: SleepScheduleCalendarTests.schedule(text), demoWanted: true)
    }

    var resting: DisplaySleepPolicy.Facts {
        DisplaySleepPolicy.Facts(screen: .start, screenSince: t0, lastTouch: nil, lastWake: t0, touching: false)
    }

    /// Follows the policy's rechecks from `t0` for `span`: the answers where they changed.
    func walk(_ policy: DisplaySleepPolicy, clock: WallClock, for span: Duration) -> [(at: TimeStamp, asleep: String?)] {
        var changes: [(at: TimeStamp, asleep: String?)] = []
        var now = t0
        var last: String??
        while now < t0 + span {
            let d = policy.decide(resting, at: now, clock: clock)
            let asleep = d.asleep.map(\.statusText)
            if last != .some(asleep) { changes.append((now, asleep)) }
            last = asleep
            guard let next = d.recheck else { break }
            #expect(next > now && next - now <= DisplaySleepPolicy.longestRecheck)
            now = next
        }
        return changes
    }

    /// From Monday 2026-12-21 for a week (Christmas on Friday), the policy's looks at the
    /// clock find every minute at which the schedule's answer changes, and nothing between.
    @Test func theRechecksLandOnEveryChangeOfAWeek() {
        let text = "Mon-Fri 22:00-07:00; Sat,Sun 18:00-10:00; Tue closed; 2026-12-25 closed"
        let schedule = SleepScheduleCalendarTests.schedule(text)
        let clock = VirtualWallClock(midnight: t0, day: 20_808)
        var expected: [(minute: Int, asleep: String?)] = []
        var last: String??
        for minute in 0..<(7 * 1440) {
            let asleep = schedule.clause(at: .init(day: 20_808, minute: minute)).map { DisplaySleepPolicy.Reason.schedule($0).statusText }
            if last != .some(asleep) { expected.append((minute, asleep)) }
            last = asleep
        }
        let got = walk(policy(text), clock: clock, for: .seconds(7 * 86_400))
        #expect(got.map { Int(($0.at - t0).inSeconds) } == expected.map { $0.minute * 60 })
        #expect(got.map(\.asleep) == expected.map(\.asleep))
        // Thursday's night holds until 07:00, Christmas until Friday's night begins.
        #expect(got.map(\.asleep).contains("display asleep (schedule 2026-12-25 closed)"))
        #expect(got.map(\.asleep).contains("display asleep (schedule Tue closed)"))
    }

    @Test func theReasonNamesTheClauseAndTheWakeItsDay() {
        let p = policy("Mon-Fri 22:00-07:00; Sat,Sun closed")
        // Friday 2026-12-11 23:00.
        let clock = VirtualWallClock(midnight: t0 - .seconds(4 * 86_400 + 23 * 3600), day: 20_794)
        let d = p.decide(resting, at: t0, clock: clock)
        #expect(d.asleep?.statusText == "display asleep (schedule Mon-Fri 22:00-07:00)")
        #expect(p.scheduledWake(at: t0, clock: clock)?.weekdayAndTime == "Mon 07:00")
        #expect(p.scheduledWake(at: t0 + .seconds(19 * 3600), clock: clock)?.weekdayAndTime == "Mon 07:00")
        #expect(p.scheduledWake(at: t0 - .seconds(2 * 3600), clock: clock) == nil, "awake at 21:00")
        #expect(policy("closed").scheduledWake(at: t0, clock: clock) == nil, "never by itself")
    }

    /// A closed day is as long as the local day: 23 hours when daylight saving begins, 25 when
    /// it ends.
    @Test func aClosedDayLastsItsLocalDay() {
        let clock = BerlinLikeClock()
        // Sat 2027-03-27 12:00 CET, and Sat 2027-10-30 12:00 CEST.
        for (saturday, hours) in [(20_904, 23), (21_121, 25)] {
            clock.wallAtZero = clock.wallTime(localDay: saturday, minute: 12 * 60) - (t0 - .zero)
            let date = ClockText.date(daysSinceEpoch: Int64(saturday + 1))
            let changes = walk(policy("\(date) closed"), clock: clock, for: .seconds(3 * 86_400))
            #expect(changes.map(\.asleep) == [nil, "display asleep (schedule \(date) closed)", nil])
            guard changes.count == 3 else { continue }
            #expect(changes[1].at - t0 == .seconds(12 * 3600))
            #expect(changes[2].at - changes[1].at == .seconds(hours * 3600), "\(date)")
        }
    }

    /// A range starting in the hour the clock shows twice, seen from the second pass: its start
    /// on the first pass is past, so the policy looks each minute (no spinning) and sleeps
    /// when the clock shows it again.
    @Test func aStartInTheRepeatedHourIsFoundOnTheSecondPass() {
        let clock = BerlinLikeClock()
        // 02:10 CET on 2027-10-31: the second pass (01:10 UTC).
        clock.wallAtZero = WallTime(unixSeconds: 1_824_944_400 + 600) - (t0 - .zero)
        #expect(clock.local(at: t0).stamp == "2027-10-31 02:10:00 CET")
        let changes = walk(policy("2027-10-31 02:30-05:00"), clock: clock, for: .seconds(4 * 3600))
        #expect(changes.map(\.asleep) == [nil, "display asleep (schedule 2027-10-31 02:30-05:00)", nil])
        guard changes.count == 3 else { return }
        #expect(changes[1].at - t0 == .seconds(20 * 60))
        #expect(changes[2].at - changes[1].at == .seconds(150 * 60))
    }
}
