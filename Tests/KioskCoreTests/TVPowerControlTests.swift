import KioskCore
import Testing

/// CEC frames as bytes, and the kiosk's side of the TV's power on virtual time.
@Suite struct CECMessageTests {
    @Test func framesEncodeAndParseAsTheBusCarriesThem() {
        #expect(CECMessage.standby(from: 4).bytes == [0x40, 0x36])
        #expect(CECMessage.imageViewOn(from: 4).bytes == [0x40, 0x04])
        #expect(CECMessage.imageViewOn(from: 15).bytes == [0xf0, 0x04])
        #expect(CECMessage.activeSource(from: 4, PhysicalAddress(0x1000)).bytes == [0x4f, 0x82, 0x10, 0x00])
        #expect(CECMessage.reportPowerStatus(from: 4, to: 0, .standby).bytes == [0x40, 0x90, 0x01])
        #expect(CECMessage.setOSDName(from: 4, to: 0, "bubble-kiosk-and-more").bytes.count == 16)
        #expect(CECMessage.featureAbort(from: 4, to: 0, opcode: 0x9a).bytes == [0x40, 0x00, 0x9a, 0x00])
        let parsed = CECMessage(bytes: [0x0f, 0x86, 0x10, 0x00])
        #expect(parsed == CECMessage(from: 0, to: 15, CECOpcode.setStreamPath, [0x10, 0x00]))
        #expect(parsed?.isBroadcast == true && parsed?.addressOperand == PhysicalAddress(0x1000))
        #expect(CECMessage(bytes: [0x40]) == CECMessage(from: 4, to: 0, nil), "a poll: header only")
        #expect(CECMessage(bytes: []) == nil)
        #expect(CECMessage(bytes: [UInt8](repeating: 0, count: 17)) == nil, "longer than a frame")
        #expect(CECMessage(bytes: [0x04, 0x36])?.description == "Standby 0->4")
        #expect(CECMessage(bytes: [0x4f, 0x82, 0x10, 0x00])?.description == "Active Source 4->15 [10 00]")
        #expect(CECMessage(bytes: [0x40, 0xa7])?.description == "opcode 0xa7 4->0")
    }

    @Test func everyFrameRoundTrips() {
        var g = SeededGenerator(seed: 29)
        for _ in 0..<2000 {
            let n = Int.random(in: 1...16, using: &g)
            let bytes = (0..<n).map { _ in UInt8.random(in: 0...255, using: &g) }
            let m = CECMessage(bytes: bytes)
            #expect(m?.bytes == bytes)
            _ = m?.description
        }
    }

    @Test func physicalAddressesReadAsTheTVsMenusWriteThem() {
        #expect(PhysicalAddress(0x1000).description == "1.0.0.0")
        #expect(PhysicalAddress(0x2130).description == "2.1.3.0")
        #expect(PhysicalAddress.invalid.description == "f.f.f.f" && !PhysicalAddress.invalid.isValid)
    }

    @Test func theConfigWordsAreCheckedAndTheAdapterChosen() {
        #expect(CECChoice("auto") == .auto && CECChoice("off") == .off && CECChoice("/dev/cec1") == .device("/dev/cec1"))
        #expect(CECChoice("cec1") == nil && CECChoice("/dev/") == nil && CECChoice("/dev/cec 1") == nil)
        #expect(CECChoice.problem("yes") == CECChoice.expectation)
        #expect(CECName.problem("bubble-kiosk") == nil && CECName.problem("") != nil)
        #expect(CECName.problem("fifteen-letters") != nil && CECName.problem("Café") != nil)
        let screen = DRMConnectorRef(card: 0, connectorID: 33)
        let vc4 = [CECChoice.Candidate(path: "/dev/cec0", connector: DRMConnectorRef(card: 0, connectorID: 32)),
                   CECChoice.Candidate(path: "/dev/cec1", connector: screen)]
        #expect(CECChoice.pickAutomatically(vc4, screen: screen).path == "/dev/cec1", "the screen's own port")
        #expect(CECChoice.pickAutomatically(vc4, screen: nil).path == nil, "two ports and no screen: none")
        #expect(CECChoice.pickAutomatically(vc4, screen: nil).why.contains("set [display] cec"))
        let usb = [CECChoice.Candidate(path: "/dev/cec0", connector: nil)]
        #expect(CECChoice.pickAutomatically(usb, screen: screen).path == "/dev/cec0", "the only adapter")
        #expect(CECChoice.pickAutomatically([], screen: screen).path == nil)
    }
}

@Suite struct TVPowerControlTests {
    let t0 = TimeStamp(seconds: 100, microseconds: 0)
    let address = PhysicalAddress(0x1000)

    /// Claimed as Playback Device 1 at 1.0.0.0, the first frame shown and the start's switch-on done.
    func claimed(awake: Bool = true) -> TVPowerControl {
        var c = TVPowerControl(name: "bubble-kiosk")
        _ = c.adapterChanged(physical: address, logical: 4, at: t0)
        c.started(awake: awake, at: t0)
        return c
    }

    @Test func theStartSwitchesTheTVOnOnlyIfTheDisplayStaysAwake() {
        var c = claimed()
        #expect(c.nextDeadline == t0 + .seconds(1))
        #expect(c.due(at: t0 + .milliseconds(500)).send.isEmpty)
        let out = c.due(at: t0 + .seconds(1))
        #expect(out.send == [.imageViewOn(from: 4), .activeSource(from: 4, address)])
        #expect(c.isActiveSource)
        // A kiosk that starts in its closed hours falls asleep at once: Standby, never the TV on first.
        var closed = claimed()
        let sleep = closed.displayChanged(awake: false, at: t0 + .milliseconds(20))
        #expect(sleep.send == [.standby(from: 4)])
        #expect(!closed.due(at: t0 + .seconds(2)).send.contains(.imageViewOn(from: 4)))
    }

    @Test func aSleepBeforeTheClaimFinishedSendsStandbyOnceItHas() {
        var c = TVPowerControl(name: "bubble-kiosk")
        c.started(awake: true, at: t0)
        #expect(c.displayChanged(awake: false, at: t0).send.isEmpty)
        #expect(c.adapterChanged(physical: address, logical: 4, at: t0 + .milliseconds(300)).send == [.standby(from: 4)])
        #expect(c.adapterChanged(physical: address, logical: 4, at: t0 + .milliseconds(400)).send.isEmpty)
        // Woken before the claim: nothing pending for standby any more.
        var d = TVPowerControl(name: "bubble-kiosk")
        _ = d.displayChanged(awake: false, at: t0)
        _ = d.displayChanged(awake: true, at: t0 + .milliseconds(100))
        #expect(d.adapterChanged(physical: address, logical: 4, at: t0 + .milliseconds(300)).send == [.activeSource(from: 4, address)])
    }

    @Test func sleepSendsStandbyAndWakeImageViewOnThenActiveSource() {
        var c = claimed()
        _ = c.due(at: t0 + .seconds(1))
        let off = c.displayChanged(awake: false, at: t0 + .seconds(10))
        #expect(off.send == [.standby(from: 4)])
        #expect(off.lines.map(\.1) == ["cec: the TV to standby"])
        #expect(!c.isActiveSource)
        // The TV is asked how it is a few seconds later.
        #expect(c.nextDeadline == t0 + .seconds(15))
        #expect(c.due(at: t0 + .seconds(15)).send == [.giveDevicePowerStatus(from: 4)])
        _ = c.received(.reportPowerStatus(from: 0, to: 4, .standby), at: t0 + .seconds(15))
        #expect(c.status.tvPower == .standby && c.status.stateWord == "standby")
        let on = c.displayChanged(awake: true, at: t0 + .seconds(60))
        #expect(on.send == [.imageViewOn(from: 4), .activeSource(from: 4, address)])
        #expect(c.isActiveSource)
        // Our own switch-on reported back is no reason to wake anything.
        let report = c.received(.reportPowerStatus(from: 0, to: 4, .on), at: t0 + .seconds(65))
        #expect(report.requests == [.wakeForTV], "the runtime wakes only a display asleep for the TV")
        #expect(c.status.stateWord == "on")
    }

    @Test func aTVThatDropsItsHotplugInStandbyGetsActiveSourceOnceTheAddressIsBack() {
        var c = claimed(awake: false)
        _ = c.displayChanged(awake: false, at: t0)
        // In standby the TV drops hotplug: the adapter loses its addresses.
        _ = c.adapterChanged(physical: .invalid, logical: nil, at: t0 + .seconds(2))
        let on = c.displayChanged(awake: true, at: t0 + .seconds(30))
        #expect(on.send == [.imageViewOn(from: 15)], "Image View On anyway, from unregistered")
        #expect(on.lines.first?.1.contains("once the physical address is known") == true)
        // Asleep again with no address: nothing can be said yet; Standby goes once there is one.
        var dark = c
        let off = dark.displayChanged(awake: false, at: t0 + .seconds(31))
        #expect(off.send.isEmpty && off.lines.first?.1.contains("Standby once there is one") == true)
        #expect(dark.adapterChanged(physical: address, logical: 4, at: t0 + .seconds(40)).send == [.standby(from: 4)])
        // The TV comes on, hotplug returns, the kernel claims again: Active Source now.
        let back = c.adapterChanged(physical: address, logical: 4, at: t0 + .seconds(33))
        #expect(back.send == [.activeSource(from: 4, address)])
        #expect(c.isActiveSource)
        // Only once.
        #expect(c.adapterChanged(physical: address, logical: 4, at: t0 + .seconds(34)).send.isEmpty)
    }

    @Test func theTVsOwnStandbyPutsTheDisplayToSleepAndItsReturnWakesIt() {
        var c = claimed()
        _ = c.due(at: t0 + .seconds(1))
        let standby = c.received(CECMessage(from: 0, to: 15, CECOpcode.standby), at: t0 + .seconds(20))
        #expect(standby.requests == [.sleepForTV])
        #expect(standby.lines.first?.1.hasPrefix("cec: the TV went to standby") == true)
        #expect(c.status.tvPower == .standby)
        // The display's sleep that follows sends nothing: the TV is off already.
        #expect(c.displayChanged(awake: false, fromTV: true, at: t0 + .seconds(20)).send.isEmpty)
        // Another Standby while asleep asks nothing more.
        #expect(c.received(.standby(from: 0, to: 4), at: t0 + .seconds(21)).requests.isEmpty)
        // The TV reports itself on again (its remote): the display may wake.
        #expect(c.received(.reportPowerStatus(from: 0, to: 4, .turningOn), at: t0 + .seconds(600)).requests == [.wakeForTV])
        // Or its input chose the kiosk.
        var d = claimed(awake: false)
        _ = d.displayChanged(awake: false, at: t0)
        #expect(d.received(CECMessage(from: 0, to: 15, CECOpcode.setStreamPath, address.bytes), at: t0).requests == [.wakeForTV])
        #expect(d.received(CECMessage(from: 0, to: 15, CECOpcode.setStreamPath, [0x20, 0x00]), at: t0).requests.isEmpty,
                "another input chosen")
    }

    @Test func questionsToTheKioskAreAnsweredAndUnknownOnesRefused() {
        var c = claimed()
        #expect(c.received(.giveDevicePowerStatus(from: 0, to: 4), at: t0).send == [.reportPowerStatus(from: 4, to: 0, .on)])
        _ = c.displayChanged(awake: false, at: t0)
        #expect(c.received(.giveDevicePowerStatus(from: 0, to: 4), at: t0).send == [.reportPowerStatus(from: 4, to: 0, .standby)])
        #expect(c.received(CECMessage(from: 0, to: 4, CECOpcode.giveOSDName), at: t0).send == [.setOSDName(from: 4, to: 0, "bubble-kiosk")])
        #expect(c.received(CECMessage(from: 0, to: 4, 0x9a), at: t0).send == [.featureAbort(from: 4, to: 0, opcode: 0x9a)])
        #expect(c.received(CECMessage(from: 0, to: 4, CECOpcode.abort), at: t0).send
                == [.featureAbort(from: 4, to: 0, opcode: CECOpcode.abort, reason: 4)])
        // Answers, broadcasts and frames for other devices are never refused.
        #expect(c.received(CECMessage(from: 0, to: 4, CECOpcode.featureAbort, [0x36, 0]), at: t0).send.isEmpty)
        #expect(c.received(CECMessage(from: 0, to: 15, 0x9a), at: t0).send.isEmpty)
        #expect(c.received(CECMessage(from: 0, to: 8, 0x9a), at: t0).send.isEmpty)
        // Active Source is broadcast only: one addressed to the kiosk means nothing.
        #expect(c.received(CECMessage(from: 0, to: 4, CECOpcode.activeSource, [0x20, 0]), at: t0).lines.isEmpty)
    }

    @Test func anotherSourceTakingTheTVIsLoggedAndRequestActiveSourceAnsweredOnlyWhileActive() {
        var c = claimed()
        _ = c.due(at: t0 + .seconds(1))
        #expect(c.received(CECMessage(from: 15, to: 15, CECOpcode.requestActiveSource), at: t0).send
                == [.activeSource(from: 4, address)])
        let other = c.received(CECMessage(from: 8, to: 15, CECOpcode.activeSource, [0x20, 0x00]), at: t0 + .seconds(2))
        #expect(other.lines.first?.1 == "cec: another source took the TV: logical address 8 at 2.0.0.0")
        #expect(!c.isActiveSource)
        #expect(c.received(CECMessage(from: 0, to: 15, CECOpcode.requestActiveSource), at: t0).send.isEmpty)
    }

    @Test func aTVThatNeverAnswersIsSaidOncePerSpellAndThePowerUnknown() {
        var c = claimed()
        var lines: [String] = []
        for i in 0..<20 {
            let now = t0 + .seconds(Double(i * 60))
            let out = c.displayChanged(awake: i % 2 == 1, at: now)
            for m in out.send { lines += c.transmitted(m, .notAcknowledged, at: now).lines.map(\.1) }
            for m in c.due(at: now + .seconds(5)).send { lines += c.transmitted(m, .notAcknowledged, at: now).lines.map(\.1) }
        }
        #expect(lines.count == 1, "\(lines)")
        #expect(lines.first?.contains("did not take Standby 4->0 (not acknowledged)") == true)
        #expect(c.status.tvPower == nil && c.status.stateWord == "unknown")
        // It answers again: one line, and the next failure is said again.
        let back = c.transmitted(.standby(from: 4), .acknowledged, at: t0 + .seconds(3600))
        #expect(back.lines.first?.1.hasPrefix("cec: the TV answers again") == true)
        #expect(c.transmitted(.standby(from: 4), .failed("timeout"), at: t0 + .seconds(3700)).lines.count == 1)
    }

    @Test func theTVIsAskedEveryTenMinutesAndNotWithoutAnAddress() {
        var c = claimed()
        _ = c.due(at: t0 + .seconds(1))
        var asked = 0
        var t = t0 + .seconds(1)
        while let next = c.nextDeadline, next < t0 + .seconds(3600) {
            t = next
            asked += c.due(at: t).send.filter { $0.opcode == CECOpcode.giveDevicePowerStatus }.count
        }
        #expect(asked == 6, "an hour: at 6 s, then every 10 minutes")
        _ = c.adapterChanged(physical: .invalid, logical: nil, at: t)
        #expect(c.nextDeadline == nil, "no address: nothing to ask with, no wake-ups")
    }

    /// Whatever the bus carries (any bytes, in any order, with power changes and adapter events
    /// between), the control never traps, answers at most one frame per frame received, never
    /// refuses a broadcast, and its clock only moves forward.
    @Test func randomFramesNeverTrapOrFloodTheBus() {
        var g = SeededGenerator(seed: 2029)
        var c = claimed()
        var now = t0
        for _ in 0..<20_000 {
            now = now + .milliseconds(Double(Int.random(in: 0...3000, using: &g)))
            switch Int.random(in: 0..<20, using: &g) {
            case 0: _ = c.displayChanged(awake: Bool.random(using: &g), fromTV: Bool.random(using: &g), at: now)
            case 1: _ = c.adapterChanged(physical: Bool.random(using: &g) ? address : .invalid,
                                         logical: Bool.random(using: &g) ? 4 : nil, at: now)
            case 2: _ = c.due(at: now)
            case 3: _ = c.transmitted(.standby(from: 4), [.acknowledged, .notAcknowledged, .failed("x")].randomElement(using: &g)!, at: now)
            default:
                let n = Int.random(in: 1...16, using: &g)
                var bytes = (0..<n).map { _ in UInt8.random(in: 0...255, using: &g) }
                if Bool.random(using: &g), bytes.count > 1 {
                    bytes[1] = [CECOpcode.standby, CECOpcode.activeSource, CECOpcode.setStreamPath, CECOpcode.reportPowerStatus,
                                CECOpcode.giveDevicePowerStatus, CECOpcode.requestActiveSource].randomElement(using: &g)!
                }
                guard let m = CECMessage(bytes: bytes) else { continue }
                let out = c.received(m, at: now)
                #expect(out.send.count <= 1, "\(m) -> \(out.send)")
                #expect(!(m.isBroadcast && out.send.contains { $0.opcode == CECOpcode.featureAbort }))
                #expect(out.send.allSatisfy { $0.bytes.count <= CECMessage.maximumLength })
            }
            if let next = c.nextDeadline { #expect(next > t0) }
        }
    }
}
