import Testing
@testable import KioskCore

/// The value kinds later sections brought: booleans, fixed choices and number lists.
@Suite struct ConfigKindTests {
    func load(_ text: String) -> ConfigResult {
        var b = ConfigBuilder()
        b.add(text: text, file: "k.conf")
        return b.finish()
    }

    @Test func booleansAcceptTheUsualSpellings() {
        for (text, value) in [("true", true), ("Yes", true), ("on", true), ("1", true),
                              ("false", false), ("no", false), ("OFF", false), ("0", false)] {
            let r = load("[attract]\ndemo = \(text)\n")
            #expect(!r.hasErrors && r.settings.attract.demo == value, "\(text)")
        }
        let bad = load("[attract]\ndemo = sometimes\n")
        #expect(bad.diagnostics.map(\.description) == ["k.conf:2: demo: expected true or false, got 'sometimes'"])
        #expect(bad.settings.attract.demo == true, "the default stays")
    }

    @Test func rotationIsOneOfFourAngles() {
        #expect(load("[display]\nrotation = 270\n").settings.display.rotation == 270)
        let bad = load("[display]\nrotation = 45\n")
        #expect(bad.diagnostics.map(\.description) == ["k.conf:2: rotation: expected one of 0, 90, 180, 270, got '45'"])
        #expect(bad.settings.display.rotation == 0)
    }

    @Test func calibrationMatrixTakesSixNumbers() {
        let good = load("[input]\ncalibration_matrix = 0 -1 1  1 0 0\n")
        #expect(!good.hasErrors)
        #expect(good.settings.input.calibration == [0, -1, 1, 1, 0, 0])
        let huge = "1" + String(repeating: "0", count: 400)  // overflows to infinity
        for bad in ["1 0 0 0 1", "1 0 0 0 1 0 0", "1 0 x 0 1 0", "", "1 0 \(huge) 0 1 0"] {
            let r = load("[input]\ncalibration_matrix = \(bad)\n")
            #expect(r.hasErrors, "'\(bad)'")
            #expect(r.settings.input.calibration == [1, 0, 0, 0, 1, 0])
        }
    }

    @Test func effectiveSettingsReadBackUnchanged() {
        let text = "[display]\nrotation = 90\n[input]\ngrab = true\ncalibration_matrix = 1 0 0.05 0 1 -0.02\n[attract]\ndemo = false\n"
        let first = load(text).settings
        let again = load(ConfigSchema.standard.render(first)).settings
        #expect(again == first)
        #expect(again.input.grab && again.display.rotation == 90 && !again.attract.demo)
    }
}
