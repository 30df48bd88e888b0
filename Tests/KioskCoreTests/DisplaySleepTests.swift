import KioskCore
import Testing

/// `[display] sleep_schedule` and `sleep_after_idle_min`: the parser, the config keys and the
/// policy on virtual time.
@Suite struct SleepScheduleTests {
    private func parsed(_ text: String) -> SleepSchedule? {
        if case .success(let s) = SleepSchedule.parse(text) { return s }
        return nil
    }

    private func minute(_ h: Int, _ m: Int) -> Int { h * 60 + m }

    @Test func aRangeAcrossMidnight() throws {
        let s = try #require(parsed("22:00-07:00"))
        #expect(s.clauses.count == 1 && s.clauses[0].days.isEmpty && s.clauses[0].ranges.count == 1)
        let r = s.clauses[0].ranges[0]
        #expect(r.start == minute(22, 0) && r.end == minute(7, 0))
        #expect(r.contains(minute: minute(22, 0)))
        #expect(r.contains(minute: minute(23, 59)))
        #expect(r.contains(minute: 0))
        #expect(r.contains(minute: minute(6, 59)))
        #expect(!r.contains(minute: minute(7, 0)))
        #expect(!r.contains(minute: minute(21, 59)))
        #expect(!r.contains(minute: minute(12, 0)))
        #expect(s.description == "22:00-07:00")
    }

    @Test func severalRangesWithSpacesAndShortHours() throws {
        let s = try #require(parsed(" 12:00 - 13:30 , 7:05-8:00,23:00-24:00 "))
        #expect(s.description == "12:00-13:30,07:05-08:00,23:00-24:00")
        // Every day: any day number gives the same answer.
        for day in [0, 20_788, 20_793] {
            #expect(s.clause(at: .init(day: day, minute: minute(12, 45)))?.description == s.description)
            #expect(s.clause(at: .init(day: day, minute: minute(7, 30))) != nil)
            #expect(s.clause(at: .init(day: day, minute: minute(23, 59))) != nil)
            #expect(s.clause(at: .init(day: day, minute: minute(13, 30))) == nil)
            #expect(s.clause(at: .init(day: day, minute: 0)) == nil)
        }
        // What the config writes reads back the same.
        #expect(parsed(s.description) == s)
    }

    @Test func emptyIsNoSchedule() {
        #expect(parsed("") == SleepSchedule.none)
        #expect(parsed("   ") == SleepSchedule.none)
        #expect(SleepSchedule.none.description == "")
    }

    @Test(arguments: ["25:00-07:00", "22:60-07:00", "22:00", "22:00-07:00-08:00", "22-07", "22:00-07:00,",
                      ",22:00-07:00", "07:00-07:00", "24:00-07:00", "aa:bb-cc:dd", "22:0-07:00", "+2:00-07:00",
                      "22:00–07:00", "１２:00-13:00", "-1:00-07:00", "123:00-07:00"])
    func badInputIsRefused(_ text: String) {
        #expect(parsed(text) == nil, "\(text)")
    }

    @Test func tooManyRangesAreRefused() {
        let many = (0..<49).map { _ in "01:00-02:00" }.joined(separator: ",")
        #expect(parsed(many) == nil)
        let enough = (0..<48).map { _ in "01:00-02:00" }.joined(separator: ",")
        #expect(parsed(enough)?.clauses[0].ranges.count == 48)
    }

    /// Random bytes and mangled schedules never crash or hang the parser, and whatever it accepts
    /// writes back to text that reads as the same schedule.
    @Test func fuzzedSchedulesNeverCrashAndRoundTrip() {
        var rng = SeededGenerator(seed: 0x5EE9)
        let alphabet = Array("0123456789:-, \t24x\u{7F}\u{0}é")
        let seeds = ["22:00-07:00", "12:00-13:30,23:00-24:00", "0:00-24:00"]
        var accepted = 0
        for i in 0..<5000 {
            var chars: [Character]
            if i % 2 == 0 {
                chars = Array(seeds[i % seeds.count])
                for _ in 0..<rng.integer(in: 1...3) where !chars.isEmpty {
                    let at = rng.integer(in: 0...(chars.count - 1))
                    switch rng.integer(in: 0...2) {
                    case 0: chars[at] = alphabet[rng.integer(in: 0...(alphabet.count - 1))]
                    case 1: chars.remove(at: at)
                    default: chars.insert(alphabet[rng.integer(in: 0...(alphabet.count - 1))], at: at)
                    }
                }
            } else {
                chars = (0..<rng.integer(in: 0...40)).map { _ in alphabet[rng.integer(in: 0...(alphabet.count - 1))] }
            }
            let text = String(chars)
            if let s = parsed(text) {
                accepted += 1
                #expect(parsed(s.description) == s, "\(text)")
                for r in s.clauses.flatMap(\.ranges) {
                    #expect((0..<1440).contains(r.start) && (0...1440).contains(r.end) && r.start != r.end)
                }
            }
        }
        // The mutations keep some schedules valid: the accepting path is exercised too.
        #expect(accepted > 100)
    }

    @Test func theConfigKeysTakeScheduleAndMinutes() {
        var builder = ConfigBuilder()
        builder.add(text: "[display]\nsleep_schedule = 22:00-07:00, 12:00-13:00\nsleep_after_idle_min = 10\n", file: "k.conf")
        let result = builder.finish()
        #expect(result.diagnostics == [])
        #expect(result.settings.display.sleepSchedule.description == "22:00-07:00,12:00-13:00")
        builder = ConfigBuilder()
        builder.add(text: "[display]\nsleep_schedule = Mon-Fri 22:00-07:00; Sat,Sun 18:00-10:00; Tue closed; 2026-12-25 closed\n",
                    file: "k.conf")
        let weekly = builder.finish()
        #expect(weekly.diagnostics == [])
        #expect(weekly.settings.display.sleepSchedule.clauses.count == 4)
        #expect(result.settings.display.sleepAfterIdle == .seconds(10 * 60))
    }

    /// A bad value is one line naming the file, line and what is wrong, quoting the part
    /// (shortened); the kiosk goes on with no schedule.
    @Test func aBadScheduleIsOneLineAndNoSleep() {
        var builder = ConfigBuilder()
        let long = String(repeating: "9", count: 500)
        builder.add(text: "[display]\nsleep_schedule = Mon-Fri 22:00-07:00; Sat,Sun 18:00-10:00; Tue clsed\n", file: "t.conf")
        builder.add(text: "[display]\nsleep_schedule = 22:00-31:00\n", file: "k.conf")
        builder.add(text: "[display]\nsleep_schedule = \(long)\nsleep_after_idle_min = -3\n", file: "d.conf")
        let result = builder.finish()
        #expect(result.diagnostics.count == 4)
        #expect(result.diagnostics[0].description == "t.conf:2: sleep_schedule: clause 3: 'Tue clsed': not HH:MM-HH:MM or closed")
        let first = result.diagnostics[1].description
        #expect(first.hasPrefix("k.conf:2: sleep_schedule: "), "\(first)")
        #expect(first.contains("'22:00-31:00'"))
        let second = result.diagnostics[2].description
        #expect(second.hasPrefix("d.conf:2: sleep_schedule: "))
        #expect(second.count < 150, "\(second)")
        #expect(result.diagnostics[3].description.hasPrefix("d.conf:3: sleep_after_idle_min: "))
        #expect(result.settings.display.sleepSchedule == .none)
        #expect(result.settings.display.sleepAfterIdle == .seconds(0 * 60))
    }

    @Test func bothKeysApplyAtOnceOnReload() throws {
        let schema = ConfigSchema.standard
        for name in ["sleep_schedule", "sleep_after_idle_min"] {
            let key = try #require(schema.key("display", name))
            #expect(ReloadPolicy.effect(of: key) == .now)
        }
        #expect(ReloadPolicy.effect(of: try #require(schema.key("display", "rotation"))) == .restart)
    }
}

@Suite struct DisplaySleepPolicyTests {
    let t0 = TimeStamp(microseconds: 1_000_000)
    func at(minutes m: Double) -> TimeStamp { (t0 + .milliseconds(m * 60_000)) }

    func schedule(_ text: String) -> SleepSchedule {
        guard case .success(let s) = SleepSchedule.parse(text) else { fatalError("bad test schedule \(text)") }
        return s
    }

    func facts(_ screen: KioskGame.Screen = .start, since: TimeStamp? = nil, touch: TimeStamp? = nil,
               wake: TimeStamp? = nil, touching: Bool = false) -> DisplaySleepPolicy.Facts {
        DisplaySleepPolicy.Facts(screen: screen, screenSince: since ?? t0, lastTouch: touch, lastWake: wake ?? t0,
                                 touching: touching)
    }

    @Test func nothingConfiguredNeverSleepsAndNeedsNoTimer() {
        let policy = DisplaySleepPolicy(Settings())
        #expect(policy.isOff)
        let clock = VirtualWallClock(showing: 23, 0, at: t0)
        let d = policy.decide(facts(), at: at(minutes: 600), clock: clock)
        #expect(d.asleep == nil && d.recheck == nil)
    }

    @Test func theScheduleSleepsInsideItsRangeAndWakesAtItsEnd() throws {
        let policy = DisplaySleepPolicy(idleAfter: .seconds(0 * 60), schedule: schedule("22:00-07:00"), demoWanted: true)
        let clock = VirtualWallClock(showing: 21, 0, at: t0)
        // 21:00: awake; look again at 22:00.
        var d = policy.decide(facts(), at: t0, clock: clock)
        #expect(d.asleep == nil)
        #expect(d.recheck == at(minutes: 60))
        // 22:00: asleep until 07:00, looked at hourly meanwhile (a wall clock set later).
        d = policy.decide(facts(.playing(demo: true)), at: at(minutes: 60), clock: clock)
        #expect(d.asleep == .schedule(schedule("22:00-07:00").clauses[0]))
        #expect(d.recheck == at(minutes: 120))
        d = policy.decide(facts(), at: at(minutes: 9 * 60 + 30), clock: clock)  // 06:30
        #expect(d.asleep != nil)
        #expect(d.recheck == at(minutes: 10 * 60))  // 07:00
        // 07:00: awake; next look at 22:00, capped at an hour.
        d = policy.decide(facts(), at: at(minutes: 600), clock: clock)
        #expect(d.asleep == nil)
        #expect(d.recheck == at(minutes: 660))
    }

    @Test func peoplePlayingAreNeverPutToSleep() {
        let policy = DisplaySleepPolicy(idleAfter: .seconds(1 * 60), schedule: schedule("00:00-24:00"), demoWanted: false)
        let clock = VirtualWallClock(showing: 3, 0, at: t0)
        for screen in [KioskGame.Screen.playing(demo: false), .roundOver] {
            #expect(policy.decide(facts(screen), at: at(minutes: 30), clock: clock).asleep == nil)
        }
        #expect(policy.decide(facts(touching: true), at: at(minutes: 30), clock: clock).asleep == nil)
        #expect(policy.decide(facts(), at: at(minutes: 30), clock: clock).asleep != nil)
    }

    @Test func aTouchInsideTheRangeKeepsTheScreenOnForAMinute() {
        let policy = DisplaySleepPolicy(idleAfter: .seconds(0 * 60), schedule: schedule("22:00-07:00"), demoWanted: true)
        let clock = VirtualWallClock(showing: 23, 0, at: t0)
        let touched = at(minutes: 10)
        var d = policy.decide(facts(touch: touched, wake: touched), at: at(minutes: 10.5), clock: clock)
        #expect(d.asleep == nil)
        #expect(d.recheck == at(minutes: 11))
        d = policy.decide(facts(.playing(demo: true), touch: touched, wake: touched), at: at(minutes: 11), clock: clock)
        #expect(d.asleep != nil)
    }

    @Test func idleSleepOnlyWithoutTheDemo() {
        let clock = VirtualWallClock(showing: 12, 0, at: t0)
        let withDemo = DisplaySleepPolicy(idleAfter: .seconds(5 * 60), schedule: .none, demoWanted: true)
        #expect(withDemo.isOff)
        #expect(withDemo.decide(facts(), at: at(minutes: 60), clock: clock).asleep == nil)
        let policy = DisplaySleepPolicy(idleAfter: .seconds(5 * 60), schedule: .none, demoWanted: false)
        // Counted from the latest of: the screen's change, the latest touch, the latest wake.
        let f = facts(since: at(minutes: 1), touch: at(minutes: 2), wake: at(minutes: 0))
        var d = policy.decide(f, at: at(minutes: 4), clock: clock)
        #expect(d.asleep == nil)
        #expect(d.recheck == at(minutes: 7))
        d = policy.decide(f, at: at(minutes: 7), clock: clock)
        #expect(d.asleep == .idle)
        #expect(d.recheck == nil)  // only a touch wakes it
        // A wake (the schedule's end) restarts the count.
        let woken = facts(since: at(minutes: 1), touch: at(minutes: 2), wake: at(minutes: 6))
        #expect(policy.decide(woken, at: at(minutes: 7), clock: clock).asleep == nil)
        // Not on other screens.
        #expect(policy.decide(facts(.roundOver), at: at(minutes: 60), clock: clock).asleep == nil)
    }

    @Test func idleAndScheduleTogether() {
        let policy = DisplaySleepPolicy(idleAfter: .seconds(10 * 60), schedule: schedule("22:00-07:00"), demoWanted: false)
        let clock = VirtualWallClock(showing: 21, 0, at: t0)
        // 21:15 idle since 21:00: asleep (idle), looked at again when the schedule begins.
        var d = policy.decide(facts(), at: at(minutes: 15), clock: clock)
        #expect(d.asleep == .idle)
        #expect(d.recheck == at(minutes: 60))
        // 22:00: the reason is the schedule, until 07:00.
        d = policy.decide(facts(), at: at(minutes: 60), clock: clock)
        #expect(d.asleep == .schedule(schedule("22:00-07:00").clauses[0]))
        // 07:00 the schedule ends and the display woke: idle counts from that wake.
        d = policy.decide(facts(wake: at(minutes: 600)), at: at(minutes: 600), clock: clock)
        #expect(d.asleep == nil)
        #expect(d.recheck == at(minutes: 610))
    }

    /// A wall clock that jumps back gives a later boundary, never one in the past: the next look
    /// is at least a second away, so nothing spins.
    @Test func aClockJumpNeverSpins() {
        let policy = DisplaySleepPolicy(idleAfter: .seconds(0 * 60), schedule: schedule("22:00-07:00"), demoWanted: true)
        let clock = VirtualWallClock(showing: 6, 59, at: t0)
        var now = t0
        var looks = 0
        var d = policy.decide(facts(), at: now, clock: clock)
        #expect(d.recheck == at(minutes: 1))
        // At the boundary the clock is found set back by two hours (05:00): still asleep.
        now = d.recheck!
        clock.midnight = (clock.midnight + .milliseconds(2 * 3_600_000))
        while looks < 100 {
            looks += 1
            d = policy.decide(facts(), at: now, clock: clock)
            guard d.asleep != nil, let next = d.recheck else { break }
            #expect((next - now).inMilliseconds >= 1000)
            now = next
        }
        #expect(d.asleep == nil)
        #expect(looks == 3, "at 05:00 (to 06:00), 06:00 (to 07:00), then awake")
        #expect(clock.secondsSinceMidnight(at: now) == 7 * 3600)
    }

    @Test func theVirtualWallClockCountsDays() {
        let clock = VirtualWallClock(showing: 23, 30, at: t0)
        #expect(clock.secondsSinceMidnight(at: t0) == 23 * 3600 + 1800)
        #expect(clock.secondsSinceMidnight(at: at(minutes: 45)) == 15 * 60)
        let today = clock.local(at: t0).day
        #expect(today.number == 20_788 && today.date == "2026-12-01")
        let w = clock.wallTime(at: t0)
        #expect(clock.wallTime(localDay: today.number, minute: 23 * 60 + 30) == w)
        #expect(clock.wallTime(localDay: today.number, minute: 1440) == w + .seconds(30 * 60))
        #expect(clock.wallTime(localDay: today.number + 1, minute: 0) == w + .seconds(30 * 60))
        #expect(clock.wallTime(localDay: today.number - 1, minute: 60) == w - .seconds(46 * 3600 + 30 * 60))
        #expect(clock.local(clock.wallTime(localDay: 20_794, minute: 7 * 60)).stamp == "2026-12-07 07:00:00 CET")
    }
}
