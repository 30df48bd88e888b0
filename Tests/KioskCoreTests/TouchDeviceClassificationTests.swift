import Testing
@testable import KioskCore
import KioskTestSupport

/// `TouchDeviceInfo.touchProtocol`: the one answer to "what kind of touch device is this",
/// which the device probe reports and the decoder goes by.
@Suite struct TouchDeviceClassificationTests {
    static func device(_ kind: EvemuScript.DeviceKind) throws -> TouchDeviceInfo {
        try EvemuRecording.parse(EvemuScript(kind).text, file: "script.evemu").device
    }

    @Test func eachKindOfDeviceHasItsProtocol() throws {
        #expect(try Self.device(.slots).touchProtocol == .multiTouchB(slots: 10))
        #expect(try Self.device(.protocolA).touchProtocol == .multiTouchA)
        #expect(try Self.device(.singleTouch).touchProtocol == .singleTouch)
        let tablet = try EvemuRecording.parse(Fixture.text("qemu-usb-tablet.evemu"), file: "q").device
        #expect(tablet.touchProtocol == .absolutePointer)
        #expect(tablet.touchButton == EventCode.BTN_LEFT)
        #expect(try Self.device(.singleTouch).touchButton == EventCode.BTN_TOUCH)
    }

    @Test func multiTouchPositionsWinOverSingleTouchAxes() throws {
        // Protocol B panels send ABS_X/ABS_Y and BTN_TOUCH too, for single-touch clients.
        let d = try Self.device(.slots)
        #expect(d.isSingleTouch && d.touchProtocol == .multiTouchB(slots: 10))
    }

    @Test func axesWithoutAButtonAreNoTouchDevice() throws {
        let d = try Self.device(.axesOnly)
        #expect(d.axes[EventCode.ABS_X] != nil && d.isDirect && d.keys.isEmpty)
        #expect(d.touchProtocol == nil)
    }

    /// The decoder gives touches exactly for the devices the classification names a protocol.
    @Test(arguments: [EvemuScript.DeviceKind.slots, .protocolA, .singleTouch, .axesOnly])
    func decoderAgreesWithTheClassification(kind: EvemuScript.DeviceKind) throws {
        var s = EvemuScript(kind)
        s.stroke(EvemuScript.line(from: (300, 300), to: (600, 300), steps: 6), start: 0)
        let recording = try EvemuRecording.parse(s.text, file: "script.evemu")
        var decoder = TouchDecoder(device: recording.device, screen: EvemuScript.screen)
        let touched = recording.events.flatMap { decoder.feed($0) }.contains { !$0.contacts.isEmpty }
        #expect(touched == (recording.device.touchProtocol != nil), "\(kind)")
        #expect(try s.gestures().isEmpty == !touched)
    }

    /// A device that declares no button but sends BTN_TOUCH anyway is still no touch device:
    /// the decoder follows the classification, not the events.
    @Test func undeclaredButtonEventsMakeNoTouches() throws {
        var s = EvemuScript(.axesOnly)
        s.event(0, 3, 0x00, 500)
        s.event(0, 3, 0x01, 500)
        s.event(0, 1, 0x14a, 1)
        s.syn(0)
        s.event(80, 1, 0x14a, 0)
        s.syn(80)
        #expect(try s.gestures().isEmpty)
    }
}
