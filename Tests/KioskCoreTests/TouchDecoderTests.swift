@testable import KioskCore
import Testing
import KioskTestSupport

private func us(_ microseconds: Int64) -> TimeStamp { TimeStamp(microseconds: microseconds) }

private func point(_ slot: Int, _ id: Int, _ x: Double, _ y: Double, _ pressure: Int? = nil) -> TouchPoint {
    TouchPoint(slot: slot, trackingID: id, position: Vector2(x, y), pressure: pressure)
}

private func frame(_ time: Int64, _ contacts: [TouchPoint], resync: Bool = false, device: Int = 0) -> TouchFrame {
    TouchFrame(time: us(time), device: device, contacts: contacts, resync: resync)
}

/// A fixture decoded on a screen of the given size.
private func decodeFixture(_ name: String, _ width: Int, _ height: Int) throws -> [TouchFrame] {
    let recording = try EvemuRecording.parse(Fixture.text(name), file: name)
    var decoder = TouchDecoder(device: recording.device, screen: PixelSize(width: width, height: height))
    return recording.events.flatMap { decoder.feed($0) }
}

/// Builds events on a running clock: `at(ms)` sets the time for the events that follow.
private struct Events {
    var list: [InputEvent] = []
    var now = TimeStamp.zero

    mutating func at(_ ms: Double) { now = TimeStamp(milliseconds: ms) }
    mutating func abs(_ code: UInt16, _ value: Int32) { list.append(InputEvent(time: now, type: 3, code: code, value: value)) }
    mutating func key(_ code: UInt16, _ value: Int32) { list.append(InputEvent(time: now, type: 1, code: code, value: value)) }
    mutating func mtReport() { list.append(InputEvent(time: now, type: 0, code: EventCode.SYN_MT_REPORT, value: 0)) }
    mutating func dropped() { list.append(InputEvent(time: now, type: 0, code: EventCode.SYN_DROPPED, value: 0)) }
    mutating func syn() { list.append(InputEvent(time: now, type: 0, code: EventCode.SYN_REPORT, value: 0)) }
}

/// 1000x1000 device units on a 1000x1000 screen: units are pixels.
private let unitAxis = AxisInfo(minimum: 0, maximum: 999)
private let screen1000 = PixelSize(width: 1000, height: 1000)
private let slotDevice = TouchDeviceInfo(
    name: "slots",
    axes: [EventCode.ABS_MT_SLOT: AxisInfo(minimum: 0, maximum: 9), EventCode.ABS_MT_POSITION_X: unitAxis,
           EventCode.ABS_MT_POSITION_Y: unitAxis, EventCode.ABS_MT_TRACKING_ID: AxisInfo(minimum: 0, maximum: 65535)],
    keys: [EventCode.BTN_TOUCH], properties: [EventCode.INPUT_PROP_DIRECT])
private let protocolADevice = TouchDeviceInfo(
    name: "protocol A", axes: [EventCode.ABS_MT_POSITION_X: unitAxis, EventCode.ABS_MT_POSITION_Y: unitAxis],
    keys: [EventCode.BTN_TOUCH])
private let singleDevice = TouchDeviceInfo(
    name: "single", axes: [EventCode.ABS_X: unitAxis, EventCode.ABS_Y: unitAxis], keys: [EventCode.BTN_TOUCH])

private func decode(_ events: Events, device: TouchDeviceInfo) -> [TouchFrame] {
    var decoder = TouchDecoder(device: device, screen: screen1000)
    return events.list.flatMap { decoder.feed($0) }
}

@Suite struct TouchDecoderTests {
    @Test func protocolBTwoFingers() throws {
        let frames = try decodeFixture("protocol-b-two-fingers.evemu", 1920, 1200)
        let t0: Int64 = 1_700_000_000_100_000
        // 1280x800 device units on 1920x1200 pixels: 1.5 px a unit.
        #expect(frames == [
            frame(t0, [point(0, 210, 600, 450, 50)]),
            frame(t0 + 12_000, [point(0, 210, 615, 450, 50), point(1, 211, 1200, 900, 60)]),
            frame(t0 + 24_000, [point(1, 211, 1200, 915, 60)]),
            frame(t0 + 36_000, []),
            // Slot 1 is still current and keeps its coordinates and pressure for the next contact.
            frame(t0 + 100_000, [point(1, 212, 1200, 915, 60)]),
            frame(t0 + 150_000, []),
        ])
    }

    @Test func onlyEverySynReportMakesAFrame() throws {
        let recording = try EvemuRecording.parse(Fixture.text("protocol-b-two-fingers.evemu"), file: "f")
        var decoder = TouchDecoder(device: recording.device, screen: PixelSize(width: 1280, height: 800))
        var counts: [Int] = []
        for event in recording.events {
            counts.append(decoder.feed(event).count)
        }
        let isReport = recording.events.map { $0.type == EventCode.EV_SYN && $0.code == EventCode.SYN_REPORT }
        #expect(counts == isReport.map { $0 ? 1 : 0 })
    }

    @Test func format11SingleTouch() throws {
        #expect(try decodeFixture("format-1.1.evemu", 800, 600) == [
            frame(0, [point(0, 1, 400, 150)]),
            frame(8_012, [point(0, 1, 402.34375, 150)]),
            frame(16_020, []),
        ])
    }

    @Test func protocolAKeepsContactsByTrackingID() throws {
        // 4096 units on 1024x768: 0.25 and 0.1875 px a unit. Ids and slots are ours, from 1 and 0.
        #expect(try decodeFixture("protocol-a-tracking-ids.evemu", 1024, 768) == [
            frame(10_000, [point(0, 1, 256, 192)]),
            frame(20_000, [point(0, 1, 260, 193.125), point(1, 2, 300, 193.125)]),
            // Crossed fingers keep their identities.
            frame(30_000, [point(0, 1, 295, 193.125), point(1, 2, 265, 193.125)]),
            frame(40_000, [point(1, 2, 260, 193.125)]),
            frame(50_000, [point(0, 3, 125, 93.75), point(1, 2, 255, 193.125)]),
            frame(60_000, []),
        ])
    }

    @Test func protocolAWithoutIDsEndsOnBtnTouch() throws {
        let f2 = [point(0, 1, 105, 120.1171875), point(1, 2, 800, 292.96875)]
        let frames = try decodeFixture("protocol-a-btn-touch-release.evemu", 1024, 600)
        #expect(frames == [
            frame(10_000, [point(0, 1, 100, 117.1875)]),
            // Reported in the other order: matched by nearest position.
            frame(20_000, f2),
            // No multi-touch data while BTN_TOUCH is down: nothing changed.
            frame(30_000, f2),
            frame(40_000, [point(0, 1, 110, 123.046875)]),
            // Only BTN_TOUCH 0: no stuck touch.
            frame(50_000, []),
            frame(200_000, [point(0, 3, 500, 292.96875)]),
            // Last position and the lift in one report: both are seen.
            frame(210_000, [point(0, 3, 505, 292.96875)]),
            frame(210_000, []),
        ])
    }

    @Test func protocolAEmptyMTReportEndsContactsWithoutButton() {
        var e = Events()
        e.abs(EventCode.ABS_MT_POSITION_X, 10); e.abs(EventCode.ABS_MT_POSITION_Y, 20); e.mtReport(); e.syn()
        e.at(10)
        e.syn()  // nothing at all: still down (this device has no button to say otherwise)
        e.at(20)
        e.mtReport(); e.syn()
        let device = TouchDeviceInfo(name: "A, no keys", axes: protocolADevice.axes)
        #expect(decode(e, device: device) == [
            frame(0, [point(0, 1, 10, 20)]),
            frame(10_000, [point(0, 1, 10, 20)]),
            frame(20_000, []),
        ])
    }

    @Test func protocolAFarJumpIsANewContact() {
        var e = Events()
        e.key(EventCode.BTN_TOUCH, 1)
        e.abs(EventCode.ABS_MT_POSITION_X, 100); e.abs(EventCode.ABS_MT_POSITION_Y, 100); e.mtReport(); e.syn()
        e.at(10)
        // 50 px away: the same finger.
        e.abs(EventCode.ABS_MT_POSITION_X, 130); e.abs(EventCode.ABS_MT_POSITION_Y, 140); e.mtReport(); e.syn()
        e.at(20)
        // Over a quarter of the screen away: one finger lifted, another landed.
        e.abs(EventCode.ABS_MT_POSITION_X, 900); e.abs(EventCode.ABS_MT_POSITION_Y, 900); e.mtReport(); e.syn()
        #expect(decode(e, device: protocolADevice) == [
            frame(0, [point(0, 1, 100, 100)]),
            frame(10_000, [point(0, 1, 130, 140)]),
            frame(20_000, [point(0, 2, 900, 900)]),
        ])
    }

    @Test func protocolAPressAndReleaseInOneReport() {
        var e = Events()
        e.key(EventCode.BTN_TOUCH, 1)
        e.abs(EventCode.ABS_MT_POSITION_X, 70); e.abs(EventCode.ABS_MT_POSITION_Y, 80); e.mtReport()
        e.key(EventCode.BTN_TOUCH, 0)
        e.syn()
        e.at(10)
        e.syn()
        #expect(decode(e, device: protocolADevice) == [
            frame(0, [point(0, 1, 70, 80)]),
            frame(0, []),
            frame(10_000, []),
        ])
    }

    @Test func protocolADropGivesFreshIDs() {
        var e = Events()
        e.key(EventCode.BTN_TOUCH, 1)
        e.abs(EventCode.ABS_MT_POSITION_X, 100); e.abs(EventCode.ABS_MT_POSITION_Y, 100); e.mtReport(); e.syn()
        e.at(10)
        e.abs(EventCode.ABS_MT_POSITION_X, 110); e.dropped()
        e.abs(EventCode.ABS_MT_POSITION_Y, 110); e.mtReport(); e.syn()
        e.at(20)
        e.abs(EventCode.ABS_MT_POSITION_X, 120); e.abs(EventCode.ABS_MT_POSITION_Y, 120); e.mtReport(); e.syn()
        e.at(30)
        e.abs(EventCode.ABS_MT_POSITION_X, 130); e.mtReport(); e.syn()
        #expect(decode(e, device: protocolADevice) == [
            frame(0, [point(0, 1, 100, 100)]),
            frame(20_000, [point(0, 2, 120, 120)], resync: true),
            frame(30_000, [point(0, 2, 130, 120)]),
        ])
    }

    @Test func singleTouchPanel() throws {
        // ABS_X 96...4095 and ABS_Y 160...3999 on 800x480: 0.2 and 0.125 px a unit, from the minimum.
        #expect(try decodeFixture("single-touch.evemu", 800, 480) == [
            frame(100_000, [point(0, 1, 200, 200, 120)]),
            frame(110_000, [point(0, 1, 300, 200, 130)]),
            frame(120_000, []),
            frame(300_000, [point(0, 2, 300, 200, 110)]),
            frame(310_000, [point(0, 2, 300, 240, 110)]),
            frame(320_000, []),
        ])
    }

    @Test func singleTouchPressAndReleaseInOneReport() throws {
        #expect(try decodeFixture("single-touch-press-release-one-frame.evemu", 800, 480) == [
            frame(50_000, [point(0, 1, 400, 240, 90)]),
            frame(50_000, []),
            frame(500_000, [point(0, 2, 200, 240, 100)]),
            frame(510_000, []),
        ])
    }

    @Test func singleTouchReleaseAndPressInOneReport() {
        var e = Events()
        e.key(EventCode.BTN_TOUCH, 1); e.abs(EventCode.ABS_X, 5); e.abs(EventCode.ABS_Y, 6); e.syn()
        e.at(10)
        e.key(EventCode.BTN_TOUCH, 0); e.key(EventCode.BTN_TOUCH, 1); e.abs(EventCode.ABS_X, 50); e.syn()
        e.at(20)
        e.key(EventCode.BTN_TOUCH, 1)  // a repeat, not a new press
        e.syn()
        #expect(decode(e, device: singleDevice) == [
            frame(0, [point(0, 1, 5, 6)]),
            frame(10_000, [point(0, 2, 50, 6)]),
            frame(20_000, [point(0, 2, 50, 6)]),
        ])
    }

    @Test func absolutePointerWithLeftButton() throws {
        let recording = try EvemuRecording.parse(Fixture.text("qemu-usb-tablet.evemu"), file: "q")
        #expect(recording.device.isSingleTouch && !recording.device.keys.contains(EventCode.BTN_TOUCH))
        // 32768 units on 1280x800.
        #expect(try decodeFixture("qemu-usb-tablet.evemu", 1280, 800) == [
            frame(10_000, []),
            frame(20_000, [point(0, 1, 640, 200)]),
            frame(30_000, [point(0, 1, 640.625, 200)]),
            frame(40_000, []),
            frame(50_000, []),
        ])
    }

    @Test func protocolBSynDropped() throws {
        #expect(try decodeFixture("protocol-b-syn-dropped.evemu", 1024, 768) == [
            frame(10_000, [point(0, 40, 100, 100)]),
            frame(20_000, [point(0, 40, 110, 100)]),
            // The damaged report makes no frame; the next one says resync, and the finger held
            // through the drop is no longer reported.
            frame(40_000, [point(1, 41, 500, 500)], resync: true),
            frame(50_000, [point(1, 41, 510, 500)]),
            frame(60_000, [point(0, 42, 200, 200), point(1, 41, 510, 500)]),
            frame(70_000, []),
        ])
    }

    @Test func protocolBPressAndReleaseInOneReport() {
        var e = Events()
        e.abs(EventCode.ABS_MT_SLOT, 1); e.abs(EventCode.ABS_MT_TRACKING_ID, 7)
        e.abs(EventCode.ABS_MT_POSITION_X, 500); e.abs(EventCode.ABS_MT_POSITION_Y, 500); e.syn()
        e.at(10)
        e.abs(EventCode.ABS_MT_SLOT, 0); e.abs(EventCode.ABS_MT_TRACKING_ID, 5)
        e.abs(EventCode.ABS_MT_POSITION_X, 10); e.abs(EventCode.ABS_MT_POSITION_Y, 20)
        e.abs(EventCode.ABS_MT_TRACKING_ID, -1); e.syn()
        e.at(20)
        // Two short contacts in a row in one slot and report: the last one is shown.
        e.abs(EventCode.ABS_MT_TRACKING_ID, 8); e.abs(EventCode.ABS_MT_TRACKING_ID, 9)
        e.abs(EventCode.ABS_MT_POSITION_X, 30); e.abs(EventCode.ABS_MT_TRACKING_ID, -1); e.syn()
        #expect(decode(e, device: slotDevice) == [
            frame(0, [point(1, 7, 500, 500)]),
            frame(10_000, [point(0, 5, 10, 20), point(1, 7, 500, 500)]),
            frame(10_000, [point(1, 7, 500, 500)]),
            frame(20_000, [point(0, 9, 30, 20), point(1, 7, 500, 500)]),
            frame(20_000, [point(1, 7, 500, 500)]),
        ])
    }

    @Test func protocolBNewIDReplacesTheContact() {
        var e = Events()
        e.abs(EventCode.ABS_MT_TRACKING_ID, 5); e.abs(EventCode.ABS_MT_POSITION_X, 10)
        e.abs(EventCode.ABS_MT_POSITION_Y, 10); e.syn()
        e.at(10)
        e.abs(EventCode.ABS_MT_TRACKING_ID, 6); e.abs(EventCode.ABS_MT_POSITION_X, 20); e.syn()
        e.at(20)
        e.abs(EventCode.ABS_MT_TRACKING_ID, 6)  // the same id again changes nothing
        e.syn()
        #expect(decode(e, device: slotDevice) == [
            frame(0, [point(0, 5, 10, 10)]),
            frame(10_000, [point(0, 6, 20, 10)]),
            frame(20_000, [point(0, 6, 20, 10)]),
        ])
    }

    @Test func protocolBOutOfRangeSlotIsIgnored() {
        var e = Events()
        e.abs(EventCode.ABS_MT_SLOT, 12); e.abs(EventCode.ABS_MT_TRACKING_ID, 3)
        e.abs(EventCode.ABS_MT_POSITION_X, 1); e.syn()
        e.at(10)
        e.abs(EventCode.ABS_MT_SLOT, 9); e.abs(EventCode.ABS_MT_TRACKING_ID, 4)
        e.abs(EventCode.ABS_MT_POSITION_X, 2); e.abs(EventCode.ABS_MT_POSITION_Y, 3); e.syn()
        #expect(decode(e, device: slotDevice) == [
            frame(0, []),
            frame(10_000, [point(9, 4, 2, 3)]),
        ])
    }

    @Test func singleTouchHeldThroughADropIsNotStuck() {
        var e = Events()
        e.key(EventCode.BTN_TOUCH, 1); e.abs(EventCode.ABS_X, 5); e.abs(EventCode.ABS_Y, 6); e.syn()
        e.at(10)
        e.dropped(); e.abs(EventCode.ABS_X, 7); e.syn()
        e.at(20)
        e.abs(EventCode.ABS_X, 8); e.syn()
        e.at(30)
        e.key(EventCode.BTN_TOUCH, 0); e.syn()
        e.at(40)
        e.key(EventCode.BTN_TOUCH, 1); e.syn()
        #expect(decode(e, device: singleDevice) == [
            frame(0, [point(0, 1, 5, 6)]),
            frame(20_000, [], resync: true),
            frame(30_000, []),
            frame(40_000, [point(0, 2, 8, 6)]),
        ])
    }

    @Test func deviceRemovedCancelsWhatWasDown() {
        var decoder = TouchDecoder(device: slotDevice, screen: screen1000, deviceIndex: 3)
        #expect(decoder.deviceRemoved(at: us(1)) == nil)

        var e = Events()
        e.abs(EventCode.ABS_MT_SLOT, 2); e.abs(EventCode.ABS_MT_TRACKING_ID, 11)
        e.abs(EventCode.ABS_MT_POSITION_X, 40); e.abs(EventCode.ABS_MT_POSITION_Y, 50); e.syn()
        #expect(e.list.flatMap { decoder.feed($0) } == [frame(0, [point(2, 11, 40, 50)], device: 3)])
        #expect(decoder.deviceRemoved(at: us(5_000)) == frame(5_000, [], resync: true, device: 3))
        #expect(decoder.deviceRemoved(at: us(6_000)) == nil)

        // Cleared: the old contact and slot are gone; a fresh device starts in slot 0.
        var again = Events()
        again.at(10)
        again.syn()
        again.abs(EventCode.ABS_MT_TRACKING_ID, 1); again.syn()
        #expect(again.list.flatMap { decoder.feed($0) } == [
            frame(10_000, [], device: 3),
            frame(10_000, [point(0, 1, 0, 0)], device: 3),
        ])
    }

    @Test func deviceRemovedDuringADrop() {
        var decoder = TouchDecoder(device: singleDevice, screen: screen1000)
        var e = Events()
        e.key(EventCode.BTN_TOUCH, 1); e.syn(); e.dropped()
        _ = e.list.flatMap { decoder.feed($0) }
        // Consumers still believe the finger is down: they must hear it is gone.
        #expect(decoder.deviceRemoved(at: us(9)) == frame(9, [], resync: true))
    }

    @Test func deviceWithoutAxesGivesEmptyFrames() {
        var decoder = TouchDecoder(device: TouchDeviceInfo(name: "keys", axes: [:], keys: [EventCode.BTN_TOUCH]),
                                   screen: screen1000)
        var e = Events()
        e.key(EventCode.BTN_TOUCH, 1); e.syn()
        #expect(e.list.flatMap { decoder.feed($0) } == [frame(0, [])])
    }
}
