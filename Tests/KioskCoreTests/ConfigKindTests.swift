import Testing
@testable import KioskCore
import KioskTestSupport

/// The value kinds later sections brought: booleans, fixed choices and number lists.
@Suite struct ConfigKindTests {
    @Test func booleansAcceptTheUsualSpellings() {
        for (text, value) in [("true", true), ("Yes", true), ("on", true), ("1", true),
                              ("false", false), ("no", false), ("OFF", false), ("0", false)] {
            let r = loadConfig("[attract]\ndemo = \(text)\n")
            #expect(!r.hasErrors && r.settings.attract.demo == value, "\(text)")
        }
        let bad = loadConfig("[attract]\ndemo = sometimes\n")
        #expect(bad.diagnostics.map(\.description) == ["k.conf:2: demo: expected true or false, got 'sometimes'"])
        #expect(bad.settings.attract.demo == true, "the default stays")
    }

    @Test func rotationIsOneOfFourAngles() {
        #expect(loadConfig("[display]\nrotation = 270\n").settings.display.rotation == 270)
        let bad = loadConfig("[display]\nrotation = 45\n")
        #expect(bad.diagnostics.map(\.description) == ["k.conf:2: rotation: expected one of 0, 90, 180, 270, got '45'"])
        #expect(bad.settings.display.rotation == 0)
    }

    @Test func operatorGesturesAreOneOfTheirWords() {
        let good = loadConfig("[operator]\ntouch_test_gesture = both\nreset_gesture = off\n")
        #expect(!good.hasErrors)
        #expect(good.settings.operator.touchTest == .both && good.settings.operator.reset == .off)
        let bad = loadConfig("[operator]\ntouch_test_gesture = Both\nreset_gesture = four corners\n")
        #expect(bad.diagnostics.map(\.description) == [
            "k.conf:2: touch_test_gesture: expected one of five-finger-hold, opposite-corners, both, off, got 'Both'",
            "k.conf:3: reset_gesture: expected one of four-corners, off, got 'four corners'",
        ])
        #expect(bad.settings.operator.touchTest == .fiveFingerHold && bad.settings.operator.reset == .fourCorners,
                "safe defaults stay")
        let stuck = loadConfig("[input]\nstuck_after_s = -1\nstuck_radius_mm = 0\n")
        #expect(stuck.diagnostics.count == 2)
        #expect(stuck.settings.input.stuckAfter == .seconds(20) && stuck.settings.input.stuckRadiusMM == 4)
    }

    @Test func calibrationMatrixTakesSixNumbers() {
        let good = loadConfig("[input]\ncalibration_matrix = 0 -1 1  1 0 0\n")
        #expect(!good.hasErrors)
        #expect(good.settings.input.calibration == [0, -1, 1, 1, 0, 0])
        let huge = "1" + String(repeating: "0", count: 400)  // overflows to infinity
        for bad in ["1 0 0 0 1", "1 0 0 0 1 0 0", "1 0 x 0 1 0", "", "1 0 \(huge) 0 1 0"] {
            let r = loadConfig("[input]\ncalibration_matrix = \(bad)\n")
            #expect(r.hasErrors, "'\(bad)'")
            #expect(r.settings.input.calibration == [1, 0, 0, 0, 1, 0])
        }
    }

    @Test func effectiveSettingsReadBackUnchanged() {
        let text = "[display]\nrotation = 90\n[input]\ngrab = true\ncalibration_matrix = 1 0 0.05 0 1 -0.02\n[attract]\ndemo = false\n"
        let first = loadConfig(text).settings
        let again = loadConfig(ConfigSchema.standard.render(first)).settings
        #expect(again == first)
        #expect(again.input.grab && again.display.rotation == 90 && !again.attract.demo)
    }
}
