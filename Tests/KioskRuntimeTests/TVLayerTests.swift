import Glibc
import KioskCore
import KioskLayers
import KioskPlatform
import KioskRuntime
import KioskTestSupport
import Testing

/// A CEC bus with a TV on it, played in memory: frames the kiosk sends are acknowledged (or not)
/// and change the TV's power; the TV answers questions, can press its own standby and drop its
/// hotplug in standby. A pipe wakes the loop as the adapter's descriptor would.
final class FakeCECBus: CECPort {
    let path = "/dev/cec-test"
    let name = "fake bus"
    var physical = PhysicalAddress(0x1000)
    var logical: UInt8?
    var tvPower = CECPowerStatus.on
    /// False: a TV that never acknowledges anything (unplugged, off at the wall).
    var tvAnswers = true
    var dropsHotplugInStandby = false
    /// Set: the next call fails as a removed adapter does.
    var removed = false
    /// An adapter that leaves its physical address to software (a USB adapter).
    var needsPhysicalAddress = false
    private(set) var sent: [CECMessage] = []
    private var queue: [CECAdapter.Incoming] = []
    private var events: [CECAdapter.Event] = []
    private var sequence: UInt32 = 0
    private let wakeRead: FileDescriptor
    private let wakeWrite: FileDescriptor

    init() {
        var fds: [Int32] = [0, 0]
        _ = pipe(&fds)
        for fd in fds { _ = fcntl(fd, F_SETFL, O_NONBLOCK) }
        wakeRead = FileDescriptor(adopting: fds[0])
        wakeWrite = FileDescriptor(adopting: fds[1])
    }

    private func wake() { _ = write(wakeWrite.rawValue, "x", 1) }

    private func gone() throws { if removed { throw SystemError("CEC_RECEIVE", path, errno: ENODEV) } }

    func physicalAddress() throws -> PhysicalAddress { try gone(); return physical }
    func setPhysicalAddress(_ address: PhysicalAddress) throws { try gone(); physical = address }
    func claimed() throws -> (addresses: [UInt8], osdName: String) { try gone(); return (logical.map { [$0] } ?? [], "bubble-kiosk") }

    func claimPlayback(osdName: String) throws {
        try gone()
        logical = physical.isValid ? 4 : nil
        events.append(.state(physical: physical, logicalMask: logical == nil ? 0 : 1 << 4))
        wake()
    }

    func transmit(_ m: CECMessage) throws -> UInt32 {
        try gone()
        sent.append(m)
        sequence += 1
        let toTV = m.destination == CECMessage.tv
        queue.append(.sent(sequence: sequence, toTV && !tvAnswers ? .notAcknowledged : .acknowledged))
        if toTV && tvAnswers {
            switch m.opcode {
            case CECOpcode.standby?:
                tvPower = .standby
                if dropsHotplugInStandby { setHotplug(false) }
            case CECOpcode.imageViewOn?:
                tvPower = .on
                if !physical.isValid { setHotplug(true) }
            case CECOpcode.giveDevicePowerStatus?:
                queue.append(.frame(.reportPowerStatus(from: 0, to: m.initiator, tvPower)))
            default: break
            }
        }
        wake()
        return sequence
    }

    func setHotplug(_ up: Bool) {
        physical = up ? PhysicalAddress(0x1000) : .invalid
        logical = up ? 4 : nil
        events.append(.state(physical: physical, logicalMask: up ? 1 << 4 : 0))
        wake()
    }

    /// Someone pressed the TV remote's power button: the TV broadcasts Standby.
    func tvRemoteStandby() {
        tvPower = .standby
        queue.append(.frame(CECMessage(from: 0, to: 15, CECOpcode.standby)))
        wake()
    }

    func receive() throws -> CECAdapter.Incoming? {
        try gone()
        guard !queue.isEmpty else {
            var b = [UInt8](repeating: 0, count: 64)
            while read(wakeRead.rawValue, &b, 64) > 0 {}
            return nil
        }
        return queue.removeFirst()
    }

    func nextEvent() throws -> CECAdapter.Event? {
        try gone()
        return events.isEmpty ? nil : events.removeFirst()
    }

    func poke() { wake() }

    func watch(on loop: EventLoop, _ body: @escaping () -> Void) -> LoopRegistration {
        loop.register(wakeRead, name: "fake cec", urgent: true, onReadable: body)
    }

    /// What the kiosk sent to the TV, by opcode name.
    var toTV: [String] { sent.filter { $0.destination == 0 || $0.isBroadcast }.map { "\($0)" } }
}

@Suite struct TVLayerTests {
    func harness(schedule: String, showing hour: Int, _ minute: Int, bus: FakeCECBus) throws -> RuntimeHarness {
        var s = DisplaySleepRuntimeTests.settings(schedule: schedule)
        s.display.cec = "/dev/cec-test"
        let h = try RuntimeHarness(settings: s)
        h.runtime.wallClock = VirtualWallClock(showing: hour, minute, at: h.now)
        h.runtime.attach(TVLayer(devices: { [] }, open: { _ in bus }))
        return h
    }

    func hours(_ n: Double) -> Double { n * 3_600_000 }

    @Test func theScheduleSendsTheTVToStandbyAndWakesItAtTheRightTimes() throws {
        let bus = FakeCECBus()
        let h = try harness(schedule: "22:00-07:00", showing: 21, 0, bus: bus)
        try h.run(ms: 2000)
        #expect(h.logLines.contains("cec: /dev/cec-test (fake bus): Playback Device 1 (logical address 4), physical address 1.0.0.0, OSD name \"bubble-kiosk\""))
        #expect(bus.toTV == ["Image View On 4->0", "Active Source 4->15 [10 00]"], "the start takes the TV")
        #expect(h.runtime.snapshot.tv?.activeSource == true)
        h.advance(ms: hours(1) - 1000)
        #expect(h.runtime.isAsleep && bus.tvPower == .standby)
        #expect(bus.toTV.filter { $0.hasPrefix("Standby") } == ["Standby 4->0"])
        // Asked 5 s later: the state says standby.
        h.advance(ms: 10_000)
        #expect(h.runtime.snapshot.tv?.stateWord == "standby")
        #expect(h.runtime.statusLine(h.now).hasSuffix(" tv=standby"))
        #expect(h.runtime.snapshot.liveFigures.tvPowerOn == false)
        // 07:00: the TV on with the display.
        h.advance(ms: hours(9) - 20_000)
        #expect(h.runtime.isAsleep && bus.tvPower == .standby)
        let asleep = bus.toTV.count
        h.advance(ms: 20_000)
        #expect(!h.runtime.isAsleep && bus.tvPower == .on)
        #expect(bus.toTV.dropFirst(asleep).prefix(2) == ["Image View On 4->0", "Active Source 4->15 [10 00]"])
        h.advance(ms: 10_000)
        #expect(h.runtime.snapshot.tv?.stateWord == "on" && h.runtime.snapshot.liveFigures.tvPowerOn == true)
    }

    /// Opening hours by weekday on the emulated bus: the TV to standby each weekday night and
    /// for the weekend, on again each morning, and nothing in between (the reason changing at
    /// Saturday's and Monday's midnights sends nothing).
    @Test func openingHoursByWeekdaySwitchTheTVAtTheRightTimes() throws {
        let bus = FakeCECBus()
        var s = DisplaySleepRuntimeTests.settings(schedule: "Mon-Fri 22:00-07:00; Sat,Sun closed")
        s.display.cec = "/dev/cec-test"
        let h = try RuntimeHarness(settings: s)
        // Monday 2026-12-07 12:00.
        let clock = VirtualWallClock(midnight: h.now - .seconds(12 * 3600), day: 20_794)
        h.runtime.wallClock = clock
        h.runtime.attach(TVLayer(devices: { [] }, open: { _ in bus }))
        var power: [String] = []
        var seen = 0
        try h.run(ms: 2000)
        for _ in 0..<(7 * 24 * 4) {
            h.advance(ms: 900_000)
            for m in bus.sent.dropFirst(seen) where m.opcode == CECOpcode.standby || m.opcode == CECOpcode.imageViewOn {
                power.append("\(m.opcode == CECOpcode.standby ? "standby" : "on") \(SleepSchedule.Moment(clock.local(at: h.now)).weekdayAndTime)")
            }
            seen = bus.sent.count
        }
        // Sent within the quarter hour that ends at the time shown.
        #expect(power == ["on Mon 12:15", "standby Mon 22:00", "on Tue 07:00", "standby Tue 22:00", "on Wed 07:00",
                          "standby Wed 22:00", "on Thu 07:00", "standby Thu 22:00", "on Fri 07:00", "standby Fri 22:00",
                          "on Mon 07:00"])
        #expect(bus.tvPower == .on && !h.runtime.isAsleep)
    }

    @Test func aTouchWakesTheTVThatDroppedItsHotplug() throws {
        let bus = FakeCECBus()
        bus.dropsHotplugInStandby = true
        let h = try harness(schedule: "00:00-24:00", showing: 12, 0, bus: bus)
        try h.run(ms: 2000)
        #expect(h.runtime.isAsleep && bus.tvPower == .standby && !bus.physical.isValid)
        let before = bus.sent.count
        h.tap(h.panel(Vector2(320, 200)))
        h.advance(ms: 500)
        #expect(!h.runtime.isAsleep)
        #expect(bus.sent.dropFirst(before).map(\.description) == ["Image View On 15->0", "Active Source 4->15 [10 00]"],
                "Image View On from unregistered, Active Source once the address is back")
        #expect(h.logLines.contains("cec: the physical address is 1.0.0.0 again: Active Source"))
    }

    @Test func theTVsOwnStandbyPutsTheKioskToSleepUntilATouchWhichSwitchesItOnAgain() throws {
        let bus = FakeCECBus()
        let h = try harness(schedule: "", showing: 12, 0, bus: bus)
        try h.run(ms: 2000)
        #expect(!h.runtime.isAsleep)
        let sent = bus.sent.count
        bus.tvRemoteStandby()
        h.advance(ms: 100)
        #expect(h.runtime.isAsleep)
        #expect(h.runtime.serviceStatus == "display asleep (the TV went to standby)")
        #expect(h.logLines.contains { $0.hasPrefix("cec: the TV went to standby (its remote or menu)") })
        #expect(!bus.sent.dropFirst(sent).contains { $0.opcode == CECOpcode.standby }, "no Standby back to a TV that is off")
        // Hours later it stays asleep (no schedule ends this sleep).
        h.advance(ms: hours(5))
        #expect(h.runtime.isAsleep)
        h.tap(h.panel(Vector2(320, 200)))
        h.advance(ms: 500)
        #expect(!h.runtime.isAsleep && bus.tvPower == .on)
        // The TV switched on with its remote wakes a kiosk asleep for the TV.
        bus.tvRemoteStandby()
        h.advance(ms: 100)
        #expect(h.runtime.isAsleep)
        bus.tvPower = .on
        h.advance(ms: 700_000)
        #expect(!h.runtime.isAsleep, "the ten-minute question found the TV on again")
    }

    @Test func aTVThatNeverAnswersAndAnAdapterRemovedLeaveTheKioskPlaying() throws {
        let bus = FakeCECBus()
        bus.tvAnswers = false
        let h = try harness(schedule: "00:00-24:00", showing: 12, 0, bus: bus)
        try h.run(ms: 2000)
        for _ in 0..<5 {
            h.tap(h.panel(Vector2(320, 200)))
            h.advance(ms: 120_000)
        }
        #expect(h.runtime.isAsleep)
        #expect(h.logLines.filter { $0.contains("did not take") }.count == 1, "\(h.logLines.filter { $0.hasPrefix("cec") })")
        #expect(h.runtime.snapshot.tv?.stateWord == "unknown")
        bus.removed = true
        bus.poke()
        h.advance(ms: 100)
        #expect(h.logLines.contains { $0.hasPrefix("cec: /dev/cec-test is gone (") })
        #expect(h.runtime.snapshot.tv == nil)
        h.tap(h.panel(Vector2(320, 200)))
        h.advance(ms: 500)
        #expect(!h.runtime.isAsleep, "the kiosk plays on")
        #expect(h.loop.armedTimers.allSatisfy { $0.name != "cec" })
    }

    /// A USB adapter has no physical address of its own: it takes the one the screen's EDID
    /// gives the port, and then claims and sends as any other; without an EDID one line says how.
    @Test func anAdapterWithoutItsOwnAddressTakesTheScreensFromItsEDID() throws {
        let bus = FakeCECBus()
        bus.needsPhysicalAddress = true
        bus.physical = .invalid
        var s = DisplaySleepRuntimeTests.settings(schedule: "00:00-24:00")
        s.display.cec = "/dev/cec-test"
        var edid = Fixture.hexBytes("edid/qemu-vga-std.hex")
        // The CTA block's data blocks gain an HDMI vendor-specific one: OUI 00-0C-03, 2.0.0.0.
        let vsdb: [UInt8] = [0x65, 0x03, 0x0c, 0x00, 0x20, 0x00]
        let d = Int(edid[128 + 2])
        edid.replaceSubrange((128 + d)..<(128 + d + vsdb.count), with: vsdb)
        edid[128 + 2] = UInt8(d + vsdb.count)
        let monitor = try EDID(parsing: edid)
        #expect(monitor.hdmiPhysicalAddress == 0x2000)
        let h = try RuntimeHarness(settings: s, display: { clock in
            let d = LosableDisplay(size: PixelSize(width: 640, height: 400), clock: clock)
            d.monitor = monitor
            return d
        })
        h.runtime.wallClock = VirtualWallClock(showing: 12, 0, at: h.now)
        h.runtime.attach(TVLayer(devices: { [] }, open: { _ in bus }))
        try h.run(ms: 2000)
        #expect(h.logLines.contains("cec: /dev/cec-test takes physical address 2.0.0.0 from the screen's EDID"))
        #expect(bus.physical == PhysicalAddress(0x2000) && bus.logical == 4)
        #expect(bus.toTV.contains("Standby 4->0"))

        let bare = FakeCECBus()
        bare.needsPhysicalAddress = true
        bare.physical = .invalid
        let plain = try RuntimeHarness(settings: s)
        plain.runtime.attach(TVLayer(devices: { [] }, open: { _ in bare }))
        try plain.run(ms: 100)
        #expect(plain.logLines.contains { $0.hasPrefix("cec: /dev/cec-test needs a physical address and the screen's EDID gives none") })
    }

    @Test func offAndNoAdapterAreOneLineOrNone() throws {
        var s = RuntimeHarness.quietSettings
        s.display.cec = "off"
        let h = try RuntimeHarness(settings: s)
        var opened = 0
        h.runtime.attach(TVLayer(devices: { ["/dev/cec0"] }, open: { _ in opened += 1; return FakeCECBus() }))
        try h.run(ms: 100)
        #expect(opened == 0 && !h.logLines.contains { $0.hasPrefix("cec") })
        let none = try RuntimeHarness(settings: RuntimeHarness.quietSettings)
        none.runtime.attach(TVLayer(devices: { [] }, open: { _ in FakeCECBus() }))
        try none.run(ms: 100)
        #expect(none.logLines.filter { $0.hasPrefix("cec") } == ["cec: no CEC adapter (/dev/cec*): the TV's power is not controlled"])
        #expect(none.runtime.snapshot.tv == nil && !none.runtime.statusLine(none.now).contains("tv="))
    }
}
