import Glibc
import KioskCore
import KioskLayers
import KioskPlatform
import KioskRuntime
import KioskTestSupport
import Testing

/// A backlight's files as a broken driver (or a hostile mount) might write them, read by the
/// backlight layer with fleet control connected: never a crash, the level fleet control shows
/// always 0-255, and fleet commands still safe. `brightness` far above `max_brightness` once
/// crashed the kiosk in `level255` as soon as MQTT connected: a crash loop under systemd.
@Suite struct BacklightFuzzTests {
    static let numbers = ["0", "1", "-1", "255", "256", "1000", "2147483647", "2147483648", "4294967295", "4294967296",
                          "9223372036854775807", "9223372036854775808", "-9223372036854775808", "99999999999999999999999"]
    static let garbage = ["", "\n", "x", " 12", "12 ", "0x10", "1e3", "12abc", "\u{0}", "\u{FFFD}", "٣", "+5", "007"]

    static func value(_ random: inout SeededGenerator) -> String {
        let pool = random.integer(in: 0...3) == 0 ? garbage : numbers
        let text = pool[random.integer(in: 0...(pool.count - 1))]
        return random.integer(in: 0...1) == 0 ? text + "\n" : text
    }

    @Test func absurdFilesNeverCrashAndTheLevelStaysInRange() throws {
        var random = SeededGenerator(seed: 26)
        var usable = 0
        for _ in 0..<120 {
            let dir = TemporaryDirectory("backlight-fuzz")
            let path = dir.path + "/panel"
            mkdir(path, 0o755)
            writeFile(path + "/max_brightness", Self.value(&random))
            writeFile(path + "/brightness", Self.value(&random))
            if random.integer(in: 0...2) > 0 { writeFile(path + "/bl_power", Self.value(&random)) }
            var s = RuntimeHarness.quietSettings
            s.display.backlight = path
            s.display.brightness = random.integer(in: 0...1) == 0 ? nil : Double(random.integer(in: 0...100))
            s.mqtt.broker = "mqtt://broker.test"
            s.mqtt.nodeID = "fuzz"
            let h = try RuntimeHarness(settings: s)
            let link = RecordingFleetLink()
            let backlight = BacklightLayer()
            h.runtime.wallClock = StoppedWallClock(unixSeconds: 1_780_000_000)
            let fleet = FleetLayer(connect: { _, _, deliver in
                link.deliver = deliver
                return link
            })
            h.runtime.attach([backlight, fleet])
            try h.run(ms: 50)
            link.deliver([.connected])
            if let level = backlight.level255 {
                usable += 1
                #expect((0...255).contains(level), "\(level)")
                let maximum = try #require(backlight.backlight?.maximum)
                #expect((1...Backlight.largestLevel).contains(maximum))
            }
            link.deliver([.message(topic: "bubble-kiosk/fuzz/brightness/set", payload: Array("\(random.integer(in: 0...255))".utf8), retained: false)])
            h.advance(ms: 300)
            if let level = backlight.level255 { #expect((0...255).contains(level)) }
            let state = link.on("bubble-kiosk/fuzz/state").last ?? ""
            #expect(state.contains(#""brightness":"#), "\(state)")
            h.runtime.finish()
        }
        #expect(usable > 10, "the fuzz reaches usable devices too")
    }

    /// The case that crashed: a level far above the maximum is taken as the maximum, said once.
    @Test func aLevelAboveTheMaximumIsTakenAsTheMaximum() throws {
        let dir = TemporaryDirectory("backlight-fuzz")
        let path = dir.path + "/panel"
        mkdir(path, 0o755)
        writeFile(path + "/max_brightness", "255\n")
        writeFile(path + "/brightness", "4294967295\n")
        var s = RuntimeHarness.quietSettings
        s.display.backlight = path
        let h = try RuntimeHarness(settings: s)
        let backlight = BacklightLayer()
        h.runtime.attach(backlight)
        try h.run(ms: 50)
        #expect(backlight.found == 255 && backlight.level255 == 255)
        #expect(h.logLines.contains("backlight \(path): brightness 4294967295 is above max_brightness 255 (a driver fault?); taken as 255"),
                "\(h.logLines)")
    }
}
