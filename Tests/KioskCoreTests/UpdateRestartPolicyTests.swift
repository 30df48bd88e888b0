import KioskCore
import Testing

/// `UpdateRestartPolicy` on virtual time: when a kiosk whose program file was replaced restarts
/// into the new one, and when it looks again meanwhile.
@Suite struct UpdateRestartPolicyTests {
    let t0 = TimeStamp(microseconds: 1_000_000)
    func at(seconds s: Double) -> TimeStamp { t0 + .milliseconds(s * 1000) }

    /// Ten minutes, the default.
    let policy = UpdateRestartPolicy(Settings())
    /// The new file came at 0 s and stayed.
    var arrival: UpdateRestartPolicy.Arrival { .init(first: t0, latest: t0) }

    func facts(_ screen: KioskGame.Screen, since: Double = -600, quiet: Double = -600, asleep: Bool = false,
               touchTest: Bool = false, touching: Bool = false) -> UpdateRestartPolicy.Facts {
        UpdateRestartPolicy.Facts(screen: screen, screenSince: at(seconds: since), asleep: asleep, touchTest: touchTest,
                                  touching: touching, quietSince: at(seconds: quiet))
    }

    @Test func theDefaultWaitsAtMostTenMinutes() {
        #expect(Settings().kiosk.updateRestartMax == .seconds(600))
        #expect(policy.deadline(arrival) == at(seconds: 600))
        #expect(policy.announcement(path: "/usr/bin/bubble-kiosk")
            == "a new bubble-kiosk binary is installed (/usr/bin/bubble-kiosk): restarting into it at the start screen (at the latest in 10 min)")
        #expect(UpdateRestartPolicy(maxWait: .seconds(90 * 60)).announcement(path: "/b").hasSuffix("(at the latest in 1 h 30 min)"))
        #expect(UpdateRestartPolicy(maxWait: .seconds(24 * 3600)).announcement(path: "/b").hasSuffix("(at the latest in 24 h)"))
    }

    @Test func aStartScreenLeftAloneRestartsOnceTheFileSettled() {
        // Nothing before the file stayed as it is for 10 s (an install writes it in steps).
        #expect(policy.decide(arrival, facts(.start), at: at(seconds: 0)) == .wait(recheck: at(seconds: 10)))
        #expect(policy.decide(arrival, facts(.start), at: at(seconds: 9.9)) == .wait(recheck: at(seconds: 10)))
        #expect(policy.decide(arrival, facts(.start), at: at(seconds: 10)) == .restart(.startScreen))
        // Written again at 4 s (strip after install): 10 s from then.
        let twice = UpdateRestartPolicy.Arrival(first: t0, latest: at(seconds: 4))
        #expect(policy.decide(twice, facts(.start), at: at(seconds: 12)) == .wait(recheck: at(seconds: 14)))
        #expect(policy.decide(twice, facts(.start), at: at(seconds: 14)) == .restart(.startScreen))
    }

    @Test func theDemoAndASleepingDisplayAreMomentsToo() {
        #expect(policy.decide(arrival, facts(.playing(demo: true)), at: at(seconds: 30)) == .restart(.demo))
        // Asleep: whatever the game shows behind the dark screen.
        for screen in [KioskGame.Screen.start, .playing(demo: false), .roundOver] {
            #expect(policy.decide(arrival, facts(screen, asleep: true), at: at(seconds: 30)) == .restart(.asleep))
        }
        #expect(UpdateRestartPolicy.Moment.asleep.text == "display asleep")
        #expect(UpdateRestartPolicy.Moment.startScreen.text == "start screen")
    }

    @Test func aRoundInPlayWaitsForTheStartScreen() {
        var now = at(seconds: 30)
        #expect(policy.decide(arrival, facts(.playing(demo: false)), at: now) == .wait(recheck: at(seconds: 600)))
        // The round ends: its score stays on screen, then the start screen comes at 90 s.
        now = at(seconds: 80)
        #expect(policy.decide(arrival, facts(.roundOver, since: 80, quiet: 79), at: now) == .wait(recheck: at(seconds: 600)))
        now = at(seconds: 90)
        // Whoever played may tap Start again: 5 s of a start screen nobody touches first.
        #expect(policy.decide(arrival, facts(.start, since: 90, quiet: 79), at: now) == .wait(recheck: at(seconds: 95)))
        #expect(policy.decide(arrival, facts(.start, since: 90, quiet: 79), at: at(seconds: 94.9)) == .wait(recheck: at(seconds: 95)))
        #expect(policy.decide(arrival, facts(.start, since: 90, quiet: 79), at: at(seconds: 95)) == .restart(.startScreen))
        // They did, at 93 s: the next round waits again.
        #expect(policy.decide(arrival, facts(.start, since: 90, quiet: 93), at: at(seconds: 95)) == .wait(recheck: at(seconds: 98)))
        #expect(policy.decide(arrival, facts(.playing(demo: false), since: 93.1, quiet: 93), at: at(seconds: 95))
            == .wait(recheck: at(seconds: 600)))
    }

    @Test func aFingerDownOrTheTouchTestWaits() {
        #expect(policy.decide(arrival, facts(.start, touching: true), at: at(seconds: 30)) == .wait(recheck: at(seconds: 600)))
        #expect(policy.decide(arrival, facts(.playing(demo: true), touching: true), at: at(seconds: 30)) == .wait(recheck: at(seconds: 600)))
        #expect(policy.decide(arrival, facts(.start, touchTest: true), at: at(seconds: 30)) == .wait(recheck: at(seconds: 600)))
        // The finger lifts: the start screen still rests 5 s after its last touch.
        #expect(policy.decide(arrival, facts(.start, quiet: 31), at: at(seconds: 32)) == .wait(recheck: at(seconds: 36)))
    }

    @Test func theDeadlineWinsEvenMidRound() {
        // Someone keeps playing: at 10 min the kiosk restarts whatever is on screen.
        for f in [facts(.playing(demo: false), touching: true), facts(.roundOver), facts(.start, touchTest: true),
                  facts(.start, since: 598, quiet: 599)] {
            #expect(policy.decide(arrival, f, at: at(seconds: 599.9)) == .wait(recheck: at(seconds: 600)))
            #expect(policy.decide(arrival, f, at: at(seconds: 600)) == .restart(.deadline))
            if case .wait = policy.decide(arrival, f, at: at(seconds: 7200)) { Issue.record("waits past its deadline: \(f)") }
        }
        // A file written again late still gets its 10 s, deadline or not.
        let late = UpdateRestartPolicy.Arrival(first: t0, latest: at(seconds: 595))
        #expect(policy.deadline(late) == at(seconds: 605))
        #expect(policy.decide(late, facts(.roundOver), at: at(seconds: 600)) == .wait(recheck: at(seconds: 605)))
        #expect(policy.decide(late, facts(.roundOver), at: at(seconds: 605)) == .restart(.deadline))
    }

    @Test func zeroRestartsAsSoonAsTheFileSettledWhateverIsOnScreen() {
        let atOnce = UpdateRestartPolicy(maxWait: .zero)
        #expect(atOnce.decide(arrival, facts(.playing(demo: false), touching: true), at: at(seconds: 5))
            == .wait(recheck: at(seconds: 10)))
        #expect(atOnce.decide(arrival, facts(.playing(demo: false), touching: true), at: at(seconds: 10)) == .restart(.deadline))
        // A moment nobody plays is still named as such.
        #expect(atOnce.decide(arrival, facts(.start), at: at(seconds: 10)) == .restart(.startScreen))
        #expect(atOnce.announcement(path: "/usr/bin/bubble-kiosk")
            == "a new bubble-kiosk binary is installed (/usr/bin/bubble-kiosk): restarting into it at once, whatever is on screen ([kiosk] update_restart_max_min = 0)")
    }

    /// Sweeps every screen and fact on a grid of times: the answer is a restart exactly when the
    /// file settled and either nobody plays or the deadline passed, and a wait never asks to
    /// look again in the past or after the deadline.
    @Test func restartsExactlyWhenNobodyPlaysOrTheDeadlinePassed() {
        let screens: [KioskGame.Screen] = [.start, .playing(demo: true), .playing(demo: false), .roundOver]
        for maxWait in [0.0, 60, 600] {
            let p = UpdateRestartPolicy(maxWait: .seconds(maxWait))
            let deadline = at(seconds: max(maxWait, 10))
            for screen in screens {
                for (asleep, touchTest, touching) in [(false, false, false), (true, false, false), (false, true, false),
                                                      (false, false, true), (true, false, true)] {
                    for s in stride(from: 0.0, through: 700, by: 2.5) {
                        let now = at(seconds: s)
                        let f = facts(screen, since: 3, quiet: 7, asleep: asleep, touchTest: touchTest, touching: touching)
                        let resting = screen == .start || screen == .playing(demo: true)
                        let free = !touching && !touchTest && (asleep || (resting && s >= 12))
                        let expected = s >= 10 && (free || now >= deadline)
                        switch p.decide(arrival, f, at: now) {
                        case .restart:
                            #expect(expected, "\(maxWait) \(screen) \(asleep) \(touchTest) \(touching) at \(s) s")
                        case .wait(let recheck):
                            #expect(!expected, "\(maxWait) \(screen) \(asleep) \(touchTest) \(touching) at \(s) s")
                            #expect(recheck > now && recheck <= deadline)
                        }
                    }
                }
            }
        }
    }

    @Test func theKeyTakesWholeMinutesUpToADayAndAppliesOnReload() throws {
        var builder = ConfigBuilder()
        builder.add(text: "[kiosk]\nupdate_restart_max_min = 30\n", file: "k.conf")
        let result = builder.finish()
        #expect(result.diagnostics == [])
        #expect(result.settings.kiosk.updateRestartMax == .seconds(1800))
        for value in ["0", "1440"] {
            var b = ConfigBuilder()
            b.add(text: "[kiosk]\nupdate_restart_max_min = \(value)\n", file: "k.conf")
            let r = b.finish()
            #expect(r.diagnostics == [], "\(value)")
            #expect(r.settings.kiosk.updateRestartMax == .seconds(Double(value)! * 60))
        }
        for value in ["-1", "1441", "2.5", "10min", ""] {
            var b = ConfigBuilder()
            b.add(text: "[kiosk]\nupdate_restart_max_min = \(value)\n", file: "k.conf")
            let r = b.finish()
            #expect(r.diagnostics.map(\.description)
                == ["k.conf:2: update_restart_max_min: expected a whole number from 0 to 1440, got '\(value)'"])
            #expect(r.settings.kiosk.updateRestartMax == .seconds(600))
        }
        let key = try #require(ConfigSchema.standard.key("kiosk", "update_restart_max_min"))
        #expect(ReloadPolicy.effect(of: key) == .now)
        #expect(ReloadPolicy.effect(of: try #require(ConfigSchema.standard.key("kiosk", "allow_vt_switch"))) == .restart)
    }
}
