import KioskCore
import Testing
import KioskTestSupport

/// `BacklightPolicy` on virtual time, the percent conversion, and the `[display]` backlight keys.
@Suite struct BacklightPolicyTests {
    let t0 = TimeStamp(microseconds: 5_000_000)
    func at(minutes m: Double) -> TimeStamp { (t0 + .milliseconds(m * 60_000)) }

    func policy(brightness: Double? = 80, dimAfter: Double = 5, dim: Double = 20) -> BacklightPolicy {
        BacklightPolicy(brightness: brightness, dimAfterIdle: .seconds(dimAfter * 60), dimBrightness: dim)
    }

    @Test func dimsAfterTheIdleMinutesAndSaysWhenOnce() {
        let p = policy()
        let before = p.decide(lastActivity: t0, asleep: false, at: at(minutes: 4.99), found: 100, maximum: 255)
        #expect(before == .init(level: 204, powerOn: true, dimmed: false, recheck: at(minutes: 5)))
        let due = p.decide(lastActivity: t0, asleep: false, at: at(minutes: 5), found: 100, maximum: 255)
        #expect(due == .init(level: 51, powerOn: true, dimmed: true, recheck: nil), "dim: no further look needed")
    }

    @Test func aTouchUndimsAndMovesTheDeadline() {
        let p = policy()
        let touched = at(minutes: 7)
        let d = p.decide(lastActivity: touched, asleep: false, at: touched, found: 100, maximum: 255)
        #expect(d.level == 204 && !d.dimmed && d.powerOn)
        #expect(d.recheck == at(minutes: 12))
    }

    /// Asleep: power off, the level as it was (not brightened), nothing due.
    @Test func asleepPowersDownAndKeepsTheLevel() {
        let p = policy()
        let dimmed = p.decide(lastActivity: t0, asleep: true, at: at(minutes: 60), found: 100, maximum: 255)
        #expect(dimmed == .init(level: 51, powerOn: false, dimmed: true, recheck: nil))
        let early = p.decide(lastActivity: t0, asleep: true, at: at(minutes: 1), found: 100, maximum: 255)
        #expect(early == .init(level: 204, powerOn: false, dimmed: false, recheck: nil))
    }

    @Test func noDimmingNeedsNoTimerAndAutoLeavesTheLevel() {
        let p = policy(brightness: nil, dimAfter: 0)
        let d = p.decide(lastActivity: t0, asleep: false, at: at(minutes: 600), found: 37, maximum: 255)
        #expect(d == .init(level: nil, powerOn: true, dimmed: false, recheck: nil))
    }

    /// Dimmed is never brighter than in use, and never black.
    @Test func theDimLevelIsAtMostTheLevelInUseAndNeverZero() {
        // brightness auto: the panel as found is the level in use.
        let dimAuto = policy(brightness: nil, dim: 50).decide(lastActivity: t0, asleep: false, at: at(minutes: 9), found: 30, maximum: 255)
        #expect(dimAuto.level == 30 && dimAuto.dimmed)
        let dimBelow = policy(brightness: 10, dim: 50).decide(lastActivity: t0, asleep: false, at: at(minutes: 9), found: 200, maximum: 255)
        #expect(dimBelow.level == 26, "10% of 255, not the brighter 50%")
        let foundBlack = policy(brightness: nil, dim: 20).decide(lastActivity: t0, asleep: false, at: at(minutes: 9), found: 0, maximum: 255)
        #expect(foundBlack.level == 1)
        let tiny = policy(brightness: 100, dim: 1).decide(lastActivity: t0, asleep: false, at: at(minutes: 9), found: 1, maximum: 1)
        #expect(tiny.level == 1)
    }

    @Test(arguments: [
        (1.0, 1, 1), (100.0, 1, 1), (50.0, 1, 1), (0.0, 1, 0),
        (1.0, 255, 3), (20.0, 255, 51), (50.0, 255, 128), (0.1, 255, 1), (100.0, 255, 255), (150.0, 255, 255),
        (1.0, 65535, 655), (20.0, 65535, 13107), (99.999, 65535, 65534), (100.0, 65535, 65535), (0.0001, 65535, 1),
        (-5.0, 255, 0), (50.0, 0, 0),
    ])
    func percentToRaw(percent: Double, maximum: Int, raw: Int) {
        #expect(BacklightPolicy.level(percent: percent, maximum: maximum) == raw, "\(percent)% of \(maximum)")
    }

    /// Every percent the config allows gives a level within 1...max, rising with the percent.
    @Test func everyConfigurablePercentIsALitLevel() {
        for maximum in [1, 7, 100, 255, 1023, 65535] {
            var previous = 0
            for tenth in 10...1000 {
                let level = BacklightPolicy.level(percent: Double(tenth) / 10, maximum: maximum)
                #expect(level >= 1 && level <= maximum && level >= previous, "\(tenth / 10)% of \(maximum): \(level)")
                previous = level
            }
            #expect(previous == maximum)
        }
    }

    @Test func theChoiceTakesAutoNoneANameOrADirectory() {
        #expect(BacklightChoice("auto") == .auto)
        #expect(BacklightChoice("none") == BacklightChoice.none)
        #expect(BacklightChoice("10-0045") == .named("10-0045"))
        #expect(BacklightChoice("/tmp/bl") == .directory("/tmp/bl"))
        for bad in ["", ".", "..", "rpi/backlight", "../x"] { #expect(BacklightChoice(bad) == nil, "\(bad)") }
    }

    @Test func theKeysLoadAndApplyAtOnceOnReload() throws {
        let result = loadConfig("[display]\nbacklight = rpi_backlight\nbrightness = 70\ndim_after_idle_min = 2.5\ndim_brightness = 10\n")
        #expect(result.diagnostics == [])
        let display = result.settings.display
        #expect(display.backlight == "rpi_backlight" && display.brightness == 70)
        #expect(display.dimAfterIdle == .seconds(2.5 * 60) && display.dimBrightness == 10)
        let defaults = DisplaySettings()
        #expect(defaults.backlight == "auto" && defaults.brightness == nil && defaults.dimAfterIdle == .seconds(0 * 60) && defaults.dimBrightness == 20)
        let schema = ConfigSchema.standard
        for name in ["brightness", "dim_after_idle_min", "dim_brightness"] {
            #expect(ReloadPolicy.effect(of: try #require(schema.key("display", name))) == .now, "\(name)")
        }
        #expect(ReloadPolicy.effect(of: try #require(schema.key("display", "backlight"))) == .restart)
    }

    /// Absurd values: one line each naming file, line, key and value; the defaults stay.
    @Test func absurdValuesAreRefusedWithOneLineEach() {
        let result = loadConfig((name: "b.conf", text: "[display]\nbrightness = 0\ndim_brightness = 250\ndim_after_idle_min = -1\nbacklight = ../../etc\n"),
                                (name: "c.conf", text: "[display]\nbrightness = lots\n"))
        let lines = result.diagnostics.map(\.description)
        #expect(lines == [
            "b.conf:2: brightness: expected a number from 1 to 100 or 'auto', got '0'",
            "b.conf:3: dim_brightness: expected a number from 1 to 100, got '250'",
            "b.conf:4: dim_after_idle_min: expected a number from 0 to 10080, got '-1'",
            "b.conf:5: backlight: expected \(BacklightChoice.expectation), got '../../etc'",
            "c.conf:2: brightness: expected a number from 1 to 100 or 'auto', got 'lots'",
        ])
        #expect(result.settings.display == DisplaySettings())
    }
}
