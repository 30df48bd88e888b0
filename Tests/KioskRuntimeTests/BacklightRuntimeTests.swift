import Glibc
import KioskCore
import KioskLayers
import KioskPlatform
import KioskRuntime
import Testing
import KioskTestSupport

/// The backlight layer in the live loop, on virtual time, with a temporary directory holding a
/// backlight device's files (`[display] backlight = /that/dir`).
@Suite struct BacklightRuntimeTests {
    /// A device with `max_brightness` 255 found at 200 and powered on, in its own class directory.
    final class Device {
        let classDirectory = TemporaryDirectory("backlight-runtime")
        var path: String { classDirectory.path + "/rpi_backlight" }

        init(maximum: String? = "255\n") {
            mkdir(path, 0o755)
            if let maximum { writeFile(path + "/max_brightness", maximum, mode: 0o444) }
            writeFile(path + "/brightness", "200\n")
            writeFile(path + "/bl_power", "0\n")
        }

        var brightness: String { (try? FileSystem.readText(path + "/brightness")) ?? "?" }
        var power: String { (try? FileSystem.readText(path + "/bl_power")) ?? "?" }
    }

    static func settings(_ device: Device?, brightness: Double? = 80, dimMin: Double = 1, sleepMin: Double = 2) -> Settings {
        var s = RuntimeHarness.quietSettings
        s.display.backlight = device?.path ?? "auto"
        s.display.brightness = brightness
        s.display.dimAfterIdle = .seconds(dimMin * 60)
        s.display.sleepAfterIdle = .seconds(sleepMin * 60)
        return s
    }

    func minutes(_ m: Double) -> Double { m * 60_000 }

    /// Bright at start, dim after a minute, off (bl_power 4) with the display asleep, bright and
    /// on at the waking touch, and as found at exit.
    @Test func dimsSleepsWakesAndPutsThePanelBack() throws {
        let device = Device()
        let h = try RuntimeHarness(settings: Self.settings(device))
        let layer = BacklightLayer()
        h.runtime.attach(layer)
        #expect(device.brightness == "204\n" && device.power == "0\n", "80% of 255 at once")
        try h.run(ms: 100)
        #expect(h.loop.armedTimers.map(\.name).contains("backlight"))
        h.advance(ms: minutes(1) - 1000)
        #expect(device.brightness == "204\n")
        h.advance(ms: 2000)
        #expect(device.brightness == "51\n", "dimmed to 20%")
        #expect(!h.loop.armedTimers.map(\.name).contains("backlight"), "dim: nothing more to wait for")
        #expect(h.logLines.contains("backlight dimmed to 51 of 255 after 1 min without a touch"), "\(h.logLines)")
        h.advance(ms: minutes(1) + 1000)
        #expect(h.runtime.isAsleep)
        #expect(device.power == "4\n", "powered down with the display")
        // Asleep: no timer at all, so no wake-ups for the backlight.
        #expect(h.loop.armedTimers.isEmpty)
        let writes = layer.writes
        h.advance(ms: minutes(30))
        #expect(layer.writes == writes)
        h.input.push(TouchFrame(time: h.now, contacts: [TouchPoint(slot: 0, trackingID: 1, position: Vector2(10, 390))]))
        h.advance(ms: 30)
        #expect(!h.runtime.isAsleep)
        #expect(device.power == "0\n" && device.brightness == "204\n", "the waking touch lights it fully")
        h.input.push(TouchFrame(time: h.now, contacts: []))
        h.advance(ms: 100)
        h.runtime.finish()
        #expect(device.brightness == "200\n" && device.power == "0\n", "as found")
    }

    @Test func aTouchUndimsAndPostponesTheDim() throws {
        let device = Device()
        let h = try RuntimeHarness(settings: Self.settings(device, sleepMin: 0))
        let layer = BacklightLayer()
        h.runtime.attach(layer)
        try h.run(ms: 100)
        h.advance(ms: minutes(1.5))
        #expect(device.brightness == "51\n")
        h.tap(Vector2(10, 390))
        #expect(device.brightness == "204\n")
        #expect(h.logLines.last == "backlight back to 204 of 255")
        h.advance(ms: minutes(0.9))
        #expect(device.brightness == "204\n", "a minute from the touch, not from the start")
        h.advance(ms: minutes(0.2))
        #expect(device.brightness == "51\n")
        h.tap(Vector2(10, 390))
        // Played on: touches while bright write nothing.
        let writes = layer.writes
        for _ in 0..<5 { h.tap(Vector2(10, 390)) }
        #expect(layer.writes == writes && device.brightness == "204\n")
    }

    /// The touch-test screen's touches reach no layer, so while it is open the panel never dims;
    /// from its closing the dim waits its full time again.
    @Test func theTouchTestScreenKeepsThePanelBright() throws {
        let device = Device()
        let h = try RuntimeHarness(settings: Self.settings(device, sleepMin: 0))
        h.runtime.attach(BacklightLayer())
        try h.run(ms: 100)
        h.runtime.openTouchTest(at: h.now)
        for _ in 0..<6 {
            // Someone keeps touching (the touch test closes after a minute without a touch).
            h.tap(Vector2(10, 390))
            h.advance(ms: minutes(0.5))
        }
        #expect(h.runtime.isTouchTestOpen)
        #expect(device.brightness == "204\n", "three minutes of touch test, never dimmed")
        h.runtime.closeTouchTest(at: h.now)
        h.advance(ms: minutes(0.9))
        #expect(device.brightness == "204\n")
        h.advance(ms: minutes(0.2))
        #expect(device.brightness == "51\n")
    }

    /// Exit while dimmed and asleep: the panel is lit again at its old level.
    @Test func theExitNeverLeavesThePanelDark() throws {
        let device = Device()
        let h = try RuntimeHarness(settings: Self.settings(device, brightness: nil, dimMin: 1, sleepMin: 2))
        h.runtime.attach(BacklightLayer())
        try h.run(ms: 100)
        #expect(device.brightness == "200\n", "brightness auto: left as found")
        h.advance(ms: minutes(2.1))
        #expect(h.runtime.isAsleep && device.power == "4\n" && device.brightness == "51\n")
        h.runtime.finish()
        #expect(device.brightness == "200\n" && device.power == "0\n")
    }

    @Test func aReloadSetsTheNewLevelAtOnce() throws {
        let device = Device()
        let h = try RuntimeHarness(settings: Self.settings(device, dimMin: 0, sleepMin: 0))
        h.runtime.attach(BacklightLayer())
        try h.run(ms: 100)
        #expect(device.brightness == "204\n")
        #expect(!h.loop.armedTimers.map(\.name).contains("backlight"), "no dimming: no timer")
        h.config = ConfigResult(settings: Self.settings(device, brightness: 50, dimMin: 0, sleepMin: 0))
        h.loop.deliver(signal: SIGHUP)
        h.advance(ms: 100)
        #expect(device.brightness == "128\n")
        h.config = ConfigResult(settings: Self.settings(device, brightness: nil, dimMin: 0, sleepMin: 0))
        h.loop.deliver(signal: SIGHUP)
        h.advance(ms: 100)
        #expect(device.brightness == "200\n", "auto again: as found")
    }

    /// No backlight with `auto`: an info line, no timer, no wake-ups beyond a kiosk without the layer.
    @Test func noBacklightIsQuietAndCostsNothing() throws {
        let empty = TemporaryDirectory("backlight-none")
        let plain = try RuntimeHarness(settings: Self.settings(nil))
        try plain.run(ms: minutes(3))
        let h = try RuntimeHarness(settings: Self.settings(nil))
        let layer = BacklightLayer(classDirectory: empty.path)
        h.runtime.attach(layer)
        try h.run(ms: minutes(3))
        #expect(layer.backlight == nil && layer.writes == 0)
        #expect(h.loop.wakeups == plain.loop.wakeups)
        #expect(h.logLines.filter { $0.contains("backlight") } == ["backlight: none in \(empty.path)"])
        h.runtime.finish()
    }

    @Test func aMissingNamedDeviceIsOneWarning() throws {
        let device = Device()
        var settings = Self.settings(nil)
        settings.display.backlight = "10-0045"
        let h = try RuntimeHarness(settings: settings)
        h.runtime.attach(BacklightLayer(classDirectory: device.classDirectory.path))
        try h.run(ms: minutes(3))
        let lines = h.logLines.filter { $0.contains("backlight") }
        #expect(lines.count == 1 && lines[0].contains("no \(device.classDirectory.path)/10-0045") && lines[0].contains("there is rpi_backlight"),
                "\(lines)")
    }

    @Test(arguments: [nil, "garbage\n", "0\n"] as [String?])
    func anUnreadableMaximumIsOneWarningAndNoControl(_ maximum: String?) throws {
        let device = Device(maximum: maximum)
        let h = try RuntimeHarness(settings: Self.settings(device))
        let layer = BacklightLayer()
        h.runtime.attach(layer)
        try h.run(ms: minutes(3))
        h.runtime.finish()
        let lines = h.logLines.filter { $0.contains("backlight") }
        #expect(lines.count == 1 && lines[0].contains(device.path + "/max_brightness") && lines[0].hasSuffix("without backlight control"),
                "\(lines)")
        #expect(device.brightness == "200\n" && device.power == "0\n" && layer.writes == 0)
    }

    /// A `brightness` the kiosk may not write: one line naming it and the fix, then the kiosk
    /// plays, sleeps and wakes without a second line.
    @Test func anUnwritableFileIsOneLineAndTheKioskGoesOn() throws {
        let device = Device()
        makeUnwritable(device.path + "/brightness")
        let h = try RuntimeHarness(settings: Self.settings(device))
        let layer = BacklightLayer()
        h.runtime.attach(layer)
        try h.run(ms: 100)
        h.advance(ms: minutes(3))
        #expect(h.runtime.isAsleep)
        h.tap(Vector2(10, 390))
        h.advance(ms: minutes(3))
        h.runtime.finish()
        let lines = h.logLines.filter { $0.contains("backlight") && !$0.contains("max_brightness 255") }
        #expect(lines.count == 1, "\(lines)")
        #expect(lines.first?.hasPrefix("backlight: cannot write \(device.path)/brightness: Permission denied (open, errno 13)") == true, "\(lines)")
        #expect(lines.first?.contains("60-bubble-kiosk-backlight.rules") == true)
        #expect(layer.backlight == nil && !h.loop.armedTimers.map(\.name).contains("backlight"))
        #expect(device.power == "0\n", "no half-done control left behind")
    }
}
