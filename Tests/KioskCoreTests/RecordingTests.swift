@testable import KioskCore
import Testing
import KioskTestSupport

/// Parses a fixture, naming it by its file name in errors.
private func fixtureRecording(_ name: String) throws -> EvemuRecording {
    try EvemuRecording.parse(Fixture.text(name), file: name)
}

/// The error parsing `text` throws, or nil when it parses.
private func parseError(_ text: String, file: String = "test.evemu") -> RecordingError? {
    do {
        _ = try EvemuRecording.parse(text, file: file)
        return nil
    } catch {
        return error
    }
}

private func us(_ microseconds: Int64) -> TimeStamp { TimeStamp(microseconds: microseconds) }

/// A valid header (6 lines) for inline tests: MT positions 0...99.
private let smallHeader = """
    # EVEMU 1.3
    N: Test Panel
    I: 0003 0001 0002 0003
    B: 03 00 00 00 00 00 00 60 00
    A: 35 0 99 0 0 0
    A: 36 0 99 0 0 0

    """

@Suite struct RecordingTests {
    @Test func protocolBFixtureHeader() throws {
        let r = try fixtureRecording("protocol-b-two-fingers.evemu")
        #expect(r.formatVersion == EvemuRecording.FormatVersion(major: 1, minor: 3))
        #expect(r.device.name == "Goodix Capacitive TouchScreen")
        #expect(r.id == InputDeviceID(bus: 0x18, vendor: 0x416, product: 0x38f, version: 0x1060))
        #expect(r.device.properties == [EventCode.INPUT_PROP_DIRECT])
        // KEY_LEFTMETA on the second B: 01 line, BTN_TOUCH on the sixth.
        #expect(r.device.keys == [125, EventCode.BTN_TOUCH])
        #expect(r.eventCodes[EventCode.EV_SYN] == [0, 1, 3])
        #expect(r.eventCodes[EventCode.EV_ABS] == [0x00, 0x01, 0x2f, 0x30, 0x35, 0x36, 0x39, 0x3a])
        #expect(r.eventCodes[EventCode.EV_MSC] == [5])
        #expect(r.eventCodes[0x05] == [0])
        #expect(r.eventCodes[0x11] == [0])
        #expect(r.eventCodes[0x15] == [])
        #expect(r.device.axes.count == 8)
        #expect(r.device.axes[EventCode.ABS_MT_SLOT] == AxisInfo(minimum: 0, maximum: 9))
        #expect(r.device.axes[EventCode.ABS_MT_POSITION_X] == AxisInfo(minimum: 0, maximum: 1279))
        #expect(r.device.axes[EventCode.ABS_MT_POSITION_Y] == AxisInfo(minimum: 0, maximum: 799))
        #expect(r.device.axes[EventCode.ABS_MT_TRACKING_ID] == AxisInfo(minimum: 0, maximum: 65535))
        #expect(r.device.axes[EventCode.ABS_MT_PRESSURE] == AxisInfo(minimum: 0, maximum: 255))
        #expect(r.device.hasSlots && r.device.isMultiTouch && r.device.isDirect)
    }

    @Test func protocolBFixtureEvents() throws {
        let r = try fixtureRecording("protocol-b-two-fingers.evemu")
        #expect(r.events.count == 36)
        let start = TimeStamp(seconds: 1_700_000_000, microseconds: 100_000)
        #expect(r.events.first == InputEvent(time: start, type: 3, code: 0x39, value: 210))
        #expect(r.events[7] == InputEvent(time: start, type: 4, code: 5, value: 0))
        #expect(r.events.last == InputEvent(time: (start + .milliseconds(150)), type: 0, code: 0, value: 0))
        // `-001` is -1: three lifts.
        let lifts = r.events.filter { $0.code == EventCode.ABS_MT_TRACKING_ID && $0.value == -1 }
        #expect(lifts.map(\.time) == [(start + .milliseconds(24)), (start + .milliseconds(36)),
                                      (start + .milliseconds(150))])
    }

    @Test func rebasedEventsStartAtTheGivenTime() throws {
        let r = try fixtureRecording("protocol-b-two-fingers.evemu")
        let rebased = r.eventsRebased(to: us(5_000))
        #expect(rebased.count == r.events.count)
        #expect(rebased.first?.time == us(5_000))
        #expect(rebased[9].time == us(17_000))
        #expect(rebased.last?.time == us(155_000))
        #expect(rebased.last?.code == r.events.last?.code)
        #expect(EvemuRecording(formatVersion: .init(major: 1, minor: 0), id: .init(bus: 0, vendor: 0, product: 0, version: 0),
                               device: TouchDeviceInfo(name: "x", axes: [:]), events: []).eventsRebased() == [])
    }

    @Test func format11FixtureHasFiveNumberAxes() throws {
        let r = try fixtureRecording("format-1.1.evemu")
        #expect(r.formatVersion == EvemuRecording.FormatVersion(major: 1, minor: 1))
        #expect(r.device.name == "eGalax Inc. USB TouchController")
        #expect(r.device.properties.isEmpty)
        #expect(r.device.keys == [EventCode.BTN_TOUCH])
        #expect(r.device.axes == [0: AxisInfo(minimum: 0, maximum: 2047), 1: AxisInfo(minimum: 0, maximum: 2047)])
        #expect(r.events.count == 10)
        #expect(r.events[0] == InputEvent(time: .zero, type: 4, code: 4, value: 0x000d_0042))
        #expect(r.events[5] == InputEvent(time: us(8_012), type: 3, code: 0, value: 1030))
        #expect(r.events[9] == InputEvent(time: us(16_020), type: 0, code: 0, value: 0))
        #expect(r.device.isSingleTouch && !r.device.isMultiTouch)
    }

    @Test func otherFixturesParse() throws {
        let expected: [(String, String, Int)] = [
            ("protocol-a-tracking-ids.evemu", "eGalax Inc. eGalaxTouch EXC7200-7224v1.010", 48),
            ("protocol-a-btn-touch-release.evemu", "ILITEK ILITEK-TP", 39),
            ("single-touch.evemu", "ADS7846 Touchscreen", 19),
            ("single-touch-press-release-one-frame.evemu", "ADS7846 Touchscreen", 14),
            ("qemu-usb-tablet.evemu", "QEMU QEMU USB Tablet", 14),
            ("protocol-b-syn-dropped.evemu", "ELAN Touchscreen", 36),
        ]
        for (file, name, count) in expected {
            let r = try fixtureRecording(file)
            #expect(r.device.name == name, "\(file)")
            #expect(r.events.count == count, "\(file)")
        }
        let a = try fixtureRecording("protocol-a-tracking-ids.evemu")
        #expect(a.formatVersion == EvemuRecording.FormatVersion(major: 1, minor: 2))
        #expect(a.device.isMultiTouch && !a.device.hasSlots)
        let ads = try fixtureRecording("single-touch.evemu")
        #expect(ads.device.axes[EventCode.ABS_X] == AxisInfo(minimum: 96, maximum: 4095, fuzz: 4))
        #expect(ads.device.axes[EventCode.ABS_PRESSURE] == AxisInfo(minimum: 0, maximum: 255))
        let qemu = try fixtureRecording("qemu-usb-tablet.evemu")
        #expect(qemu.device.keys == [0x110, 0x111, 0x112])
        #expect(qemu.eventCodes[EventCode.EV_REL] == [8])
    }

    @Test func malformedEventFixture() {
        let name = "malformed-event.evemu"
        let error = parseError(Fixture.text(name), file: name)
        #expect(error?.description
            == "malformed-event.evemu:25: expected 'E: <sec.usec> <type> <code> <value>', got 'E: 0.1 0003'")
        #expect(error?.line == 25)
        #expect(error?.file == name)
    }

    @Test func malformedAxisCountFixture() {
        let name = "malformed-abs-count.evemu"
        #expect(parseError(Fixture.text(name), file: name)?.description
            == "malformed-abs-count.evemu:15: expected 'A: <code> <min> <max> <fuzz> <flat> [<resolution>]'"
            + " (5 or 6 numbers), got 4 numbers in 'A: 36 0 4095 0'")
    }

    @Test func missingNameFixture() {
        let name = "malformed-missing-name.evemu"
        #expect(parseError(Fixture.text(name), file: name)?.description
            == "malformed-missing-name.evemu:3: expected 'N: <device name>', got 'I: 0003 1234 5678 0001'")
    }

    @Test func noVersionLineMeansFormat10() throws {
        let plain = try EvemuRecording.parse("N: Old\nI: 0003 0001 0002 0003\n", file: "old.evemu")
        #expect(plain.formatVersion == EvemuRecording.FormatVersion(major: 1, minor: 0))
        #expect(plain.device == TouchDeviceInfo(name: "Old", axes: [:]))
        #expect(plain.events.isEmpty)
        // Only the first line is a version line; a comment there is just a comment.
        let commented = try EvemuRecording.parse("# recorded on a bench\n# EVEMU 1.3\nN: Old\nI: 0 0 0 0\n", file: "c.evemu")
        #expect(commented.formatVersion == EvemuRecording.FormatVersion(major: 1, minor: 0))
        let newer = try EvemuRecording.parse("\n# EVEMU 2.14\nN: New\nI: 0 0 0 0\n", file: "n.evemu")
        #expect(newer.formatVersion == EvemuRecording.FormatVersion(major: 2, minor: 14))
    }

    @Test func axisLinesWithFiveOrSixNumbersInAnyVersion() throws {
        for version in ["1.1", "1.3"] {
            let text = "# EVEMU \(version)\nN: T\nI: 0003 0001 0002 0003\nB: 03 03 00 00 00 00 00 00 00\n"
                + "A: 00 -5 99 1 2\nA: 01 0 199 0 0 12\n"
            let r = try EvemuRecording.parse(text, file: "v.evemu")
            #expect(r.device.axes[0] == AxisInfo(minimum: -5, maximum: 99, fuzz: 1, flat: 2, resolution: 0))
            #expect(r.device.axes[1] == AxisInfo(minimum: 0, maximum: 199, resolution: 12))
        }
    }

    @Test func repeatedMaskLinesContinueAt64Bits() throws {
        let text = """
            N: Masks
            I: 0003 0001 0002 0003
            P: 00 00 00 00 00 00 00 00
            P: 01 00 00 00 00 00 00 80
            B: 01 01 00 00 00 00 00 00 00
            B: 03 00 00 00 00 00 00 00 00
            B: 01 00 00 00 00 00 00 00 80
            B: 01 00 00 00 00 00 00 00 00
            B: 03 02 00 00 00 00 00 00 00

            """
        let r = try EvemuRecording.parse(text, file: "m.evemu")
        #expect(r.device.properties == [64, 127])
        // Each type keeps its own count of lines, even when interleaved.
        #expect(r.device.keys == [0, 127])
        #expect(r.eventCodes[EventCode.EV_ABS] == [65])
    }

    @Test func toleratesWhatEvemuWritesAndReads() throws {
        let text = smallHeader.split(separator: "\n").joined(separator: "\r\n") + "\r\n"
            + "################################\r\n"
            + "E: 1700000123.000001 0003 0035 -001\t# EV_ABS / ABS_MT_POSITION_X -1\r\n"
            + "\r\n"
            + "   \t\r\n"
            + "# a comment between events\r\n"
            + "E:1700000123.999999 3 35 +42\r\n"
            + "  E: 0.000000 0000 0000 0000   \r\n"
            + "E: 2.500000 0003 0036 -2147483648 # no tab before the comment"
        let r = try EvemuRecording.parse(text, file: "crlf.evemu")
        #expect(r.device.axes.count == 2)
        #expect(r.events == [
            InputEvent(time: TimeStamp(seconds: 1_700_000_123, microseconds: 1), type: 3, code: 0x35, value: -1),
            InputEvent(time: TimeStamp(seconds: 1_700_000_123, microseconds: 999_999), type: 3, code: 0x35, value: 42),
            InputEvent(time: .zero, type: 0, code: 0, value: 0),
            InputEvent(time: us(2_500_000), type: 3, code: 0x36, value: Int32.min),
        ])
    }

    @Test func errorDescriptionIsFileLineMessage() {
        let e = RecordingError(file: "a/b.evemu", line: 7, message: "expected x, got y")
        #expect(e.description == "a/b.evemu:7: expected x, got y")
        #expect("\(e)" == "a/b.evemu:7: expected x, got y")
    }

    struct BadCase: Sendable, CustomTestStringConvertible {
        var text: String
        var line: Int
        var message: String
        var testDescription: String { message }
    }

    static let badCases: [BadCase] = [
        BadCase(text: "", line: 1, message: "expected 'N: <device name>', got end of file"),
        BadCase(text: "# only a comment\n\n", line: 2, message: "expected 'N: <device name>', got end of file"),
        BadCase(text: "# EVEMU 1.x\nN: T\n", line: 1, message: "expected '# EVEMU <major>.<minor>', got '# EVEMU 1.x'"),
        BadCase(text: "N:   \n", line: 1, message: "expected 'N: <device name>', got 'N:'"),
        BadCase(text: "E: 0.000001 0000 0000 0000\n", line: 1,
                message: "expected 'N: <device name>', got 'E: 0.000001 0000 0000 0000'"),
        BadCase(text: "N: T\n", line: 1,
                message: "expected 'I: <bus> <vendor> <product> <version>', got end of file"),
        BadCase(text: "N: T\nN: U\n", line: 2,
                message: "expected 'I: <bus> <vendor> <product> <version>' after the name, got 'N: U'"),
        BadCase(text: "N: T\nI: 0003 0001 0002\n", line: 2,
                message: "expected 'I: <bus> <vendor> <product> <version>' (4 hex numbers), got 'I: 0003 0001 0002'"),
        BadCase(text: "N: T\nI: 0003 0001 0002 12345\n", line: 2,
                message: "expected 'I: <bus> <vendor> <product> <version>' (4 hex numbers), got 'I: 0003 0001 0002 12345'"),
        BadCase(text: "N: T\nI: 0 0 0 0\nP: 02 00\n", line: 3, message: "expected 'P:' and 8 hex bytes, got 'P: 02 00'"),
        BadCase(text: "N: T\nI: 0 0 0 0\nP: 02 00 00 00 00 00 00 100\n", line: 3,
                message: "expected 'P:' and 8 hex bytes, got 'P: 02 00 00 00 00 00 00 100'"),
        BadCase(text: "N: T\nI: 0 0 0 0\nB: 03 00 00 00 00 00 00 60\n", line: 3,
                message: "expected 'B: <type>' and 8 hex bytes, got 'B: 03 00 00 00 00 00 00 60'"),
        BadCase(text: "N: T\nI: 0 0 0 0\nB: 20 00 00 00 00 00 00 00 00\n", line: 3,
                message: "expected an event type below 0x20 in 'B:' line, got 0x20 in 'B: 20 00 00 00 00 00 00 00 00'"),
        BadCase(text: smallHeader + "A: 00 0 99 0 0 0\n", line: 7,
                message: "expected axis 0x00 to be enabled by a 'B: 03' line, got an 'A:' line without it"),
        BadCase(text: smallHeader + "A: 35 0 50 0 0 0\n", line: 7,
                message: "expected one 'A:' line per axis, got a second one for axis 0x35 (first on line 5)"),
        BadCase(text: "N: T\nI: 0 0 0 0\nB: 03 00 00 00 00 00 00 20 00\nA: 35 10 5 0 0 0\n", line: 4,
                message: "expected min <= max for axis 0x35, got min 10 and max 5"),
        BadCase(text: "N: T\nI: 0 0 0 0\nB: 03 00 00 00 00 00 00 20 00\nA: 35 0 x 0 0 0\n", line: 4,
                message: "expected 'A: <code> <min> <max> <fuzz> <flat> [<resolution>]', got 'A: 35 0 x 0 0 0'"),
        BadCase(text: "N: T\nI: 0 0 0 0\nA: 40 0 1 0 0 0\n", line: 3,
                message: "expected an axis code below 0x40, got 0x40 in 'A: 40 0 1 0 0 0'"),
        BadCase(text: "N: T\nI: 0 0 0 0\nB: 03 00 00 00 00 00 00 20 00\nA: 35 0 1 0 0 0 0\n", line: 4,
                message: "expected 'A: <code> <min> <max> <fuzz> <flat> [<resolution>]' (5 or 6 numbers),"
                    + " got 7 numbers in 'A: 35 0 1 0 0 0 0'"),
        BadCase(text: smallHeader + "P: 00 00 00 00 00 00 00 00\n", line: 7,
                message: "expected header lines in the order N, I, P, B, A, L, S, got 'P: 00 00 00 00 00 00 00 00' after 'A:' lines"),
        BadCase(text: smallHeader + "S: 00 1\nL: 00 1\n", line: 8,
                message: "expected header lines in the order N, I, P, B, A, L, S, got 'L: 00 1' after 'S:' lines"),
        BadCase(text: smallHeader + "L: 00\n", line: 7, message: "expected 'L: <code> <state>', got 'L: 00'"),
        BadCase(text: smallHeader + "S: zz 1\n", line: 7, message: "expected 'S: <code> <state>', got 'S: zz 1'"),
        BadCase(text: smallHeader + "X: 1\n", line: 7,
                message: "expected a 'P:', 'B:', 'A:', 'L:', 'S:' or 'E:' line, got 'X: 1'"),
        BadCase(text: smallHeader + "E: 0.000001 0000 0000 0000\n\nA: 35 0 99 0 0 0\n", line: 9,
                message: "expected an event line 'E: <sec.usec> <type> <code> <value>', got 'A: 35 0 99 0 0 0'"),
        BadCase(text: smallHeader + "E: 0.000001 0000 0000 0000 junk\n", line: 7,
                message: "expected 'E: <sec.usec> <type> <code> <value>' and an optional '# comment',"
                    + " got 'E: 0.000001 0000 0000 0000 junk'"),
        BadCase(text: smallHeader + "E: 0.1 0003 0035 0010\n", line: 7,
                message: "expected 'E: <sec.usec> <type> <code> <value>' with a time of seconds and 6 digits"
                    + " of microseconds, got 'E: 0.1 0003 0035 0010'"),
        BadCase(text: smallHeader + "E: 99999999999999999999.000000 0003 0035 0010\n", line: 7,
                message: "expected 'E: <sec.usec> <type> <code> <value>' with a time of seconds and 6 digits"
                    + " of microseconds, got 'E: 99999999999999999999.000000 0003 0035 0010'"),
        BadCase(text: smallHeader + "E: 0.000001 00g3 0035 1\n", line: 7,
                message: "expected 'E: <sec.usec> <type> <code> <value>' with hex type and code, got 'E: 0.000001 00g3 0035 1'"),
        BadCase(text: smallHeader + "E: 0.000001 0003 10035 1\n", line: 7,
                message: "expected 'E: <sec.usec> <type> <code> <value>' with hex type and code, got 'E: 0.000001 0003 10035 1'"),
        BadCase(text: smallHeader + "E: 0.000001 0003 0035 2147483648\n", line: 7,
                message: "expected 'E: <sec.usec> <type> <code> <value>' with a 32-bit decimal value,"
                    + " got 'E: 0.000001 0003 0035 2147483648'"),
        BadCase(text: smallHeader + "E: 0.000001 0003 0035 1x\n", line: 7,
                message: "expected 'E: <sec.usec> <type> <code> <value>' with a 32-bit decimal value,"
                    + " got 'E: 0.000001 0003 0035 1x'"),
        BadCase(text: smallHeader + "E: 0.000001 0003 0035 1\nE: 0.000002 0003\n", line: 8,
                message: "expected 'E: <sec.usec> <type> <code> <value>', got 'E: 0.000002 0003'"),
    ]

    @Test(arguments: badCases)
    func malformedLinesNameTheirLine(_ c: BadCase) {
        let error = parseError(c.text, file: "bad.evemu")
        #expect(error == RecordingError(file: "bad.evemu", line: c.line, message: c.message))
    }

    @Test func longLinesAreShortenedInErrors() {
        let junk = String(repeating: "x", count: 300)
        let error = parseError(smallHeader + "E: 0.000001 0003 0035 \(junk)\n")
        #expect(error?.line == 7)
        #expect(error?.message.hasSuffix("got 'E: 0.000001 0003 0035 " + String(repeating: "x", count: 75) + "...'") == true)
    }
}

@Suite struct RecordingBuilderTests {
    /// Decodes a builder's text the way a replay does: text -> parser -> decoder.
    private func decode(_ builder: RecordingBuilder) throws -> [TouchFrame] {
        let recording = try EvemuRecording.parse(builder.text(), file: "built.evemu")
        var decoder = TouchDecoder(device: recording.device, screen: builder.screen)
        return recording.events.flatMap { decoder.feed($0) }
    }

    @Test func headerDescribesADirectProtocolBTouchscreen() throws {
        let r = try EvemuRecording.parse(RecordingBuilder.deviceHeader, file: "header.evemu")
        #expect(r.formatVersion == EvemuRecording.FormatVersion(major: 1, minor: 3))
        #expect(r.device.name == "bubble-kiosk virtual touchscreen")
        #expect(r.id == InputDeviceID(bus: 6, vendor: 0, product: 0, version: 1))
        #expect(r.device.properties == [EventCode.INPUT_PROP_DIRECT])
        #expect(r.device.keys == [EventCode.BTN_TOUCH])
        #expect(r.device.axes == [
            EventCode.ABS_X: AxisInfo(minimum: 0, maximum: 4095),
            EventCode.ABS_Y: AxisInfo(minimum: 0, maximum: 4095),
            EventCode.ABS_MT_SLOT: AxisInfo(minimum: 0, maximum: 9),
            EventCode.ABS_MT_POSITION_X: AxisInfo(minimum: 0, maximum: 4095),
            EventCode.ABS_MT_POSITION_Y: AxisInfo(minimum: 0, maximum: 4095),
            EventCode.ABS_MT_TRACKING_ID: AxisInfo(minimum: 0, maximum: 65535),
        ])
        #expect(r.events.isEmpty)
        #expect(r.device.isDirect && r.device.hasSlots && r.device.isMultiTouch && r.device.isSingleTouch)

        let custom = RecordingBuilder(screen: PixelSize(width: 800, height: 480), axisMax: 1023, slots: 5, resolution: 12)
        let c = try EvemuRecording.parse(custom.text(), file: "custom.evemu")
        #expect(c.device.axes[EventCode.ABS_MT_SLOT] == AxisInfo(minimum: 0, maximum: 4))
        #expect(c.device.axes[EventCode.ABS_MT_POSITION_Y] == AxisInfo(minimum: 0, maximum: 1023, resolution: 12))
        #expect(c.events.isEmpty)
    }

    @Test func tapDecodesBackToItsPixel() throws {
        var b = RecordingBuilder(screen: PixelSize(width: 1280, height: 800))
        b.tap(at: Vector2(123.4, 567.8), start: .milliseconds(100))
        // 123.4 px -> 395 units -> 123.4375 px; 567.8 px -> 2907 units -> 567.7734375 px.
        #expect(b.deviceUnits(Vector2(123.4, 567.8)) == (395, 2907))
        #expect(try decode(b) == [
            TouchFrame(time: us(100_000), contacts: [TouchPoint(slot: 0, trackingID: 0, position: Vector2(123.4375, 567.7734375))]),
            TouchFrame(time: us(160_000), contacts: []),
        ])
    }

    @Test func tapTextIsEvemuFormat() {
        var b = RecordingBuilder(screen: PixelSize(width: 4096, height: 4096))
        b.tap(at: Vector2(10, 20), start: .milliseconds(1500), hold: .milliseconds(40))
        let events = b.text().split(separator: "\n").filter { $0.hasPrefix("E:") }
        #expect(events == [
            "E: 1.500000 0003 002f 0000\t# EV_ABS / ABS_MT_SLOT          0",
            "E: 1.500000 0003 0039 0000\t# EV_ABS / ABS_MT_TRACKING_ID   0",
            "E: 1.500000 0003 0035 0010\t# EV_ABS / ABS_MT_POSITION_X    10",
            "E: 1.500000 0003 0036 0020\t# EV_ABS / ABS_MT_POSITION_Y    20",
            "E: 1.500000 0001 014a 0001\t# EV_KEY / BTN_TOUCH            1",
            "E: 1.500000 0003 0000 0010\t# EV_ABS / ABS_X                10",
            "E: 1.500000 0003 0001 0020\t# EV_ABS / ABS_Y                20",
            "E: 1.500000 0000 0000 0000\t# ------------ SYN_REPORT (0) ---------- +0ms",
            "E: 1.540000 0003 0039 -001\t# EV_ABS / ABS_MT_TRACKING_ID   -1",
            "E: 1.540000 0001 014a 0000\t# EV_KEY / BTN_TOUCH            0",
            "E: 1.540000 0000 0000 0000\t# ------------ SYN_REPORT (0) ---------- +40ms",
        ])
    }

    @Test func valuesArePaddedLikePrintf04d() {
        #expect(RecordingBuilder.paddedValue(0) == "0000")
        #expect(RecordingBuilder.paddedValue(42) == "0042")
        #expect(RecordingBuilder.paddedValue(65535) == "65535")
        #expect(RecordingBuilder.paddedValue(-1) == "-001")
        #expect(RecordingBuilder.paddedValue(-12345) == "-12345")
        #expect(RecordingBuilder.paddedValue(Int32.min) == "-2147483648")
    }

    @Test func swipeIsSampledEvery10msAndLiftsWhileMoving() throws {
        var b = RecordingBuilder(screen: PixelSize(width: 1024, height: 1024))
        b.swipe(from: Vector2(100, 100), to: Vector2(500, 300), start: .milliseconds(0), duration: .milliseconds(150))
        let frames = try decode(b)
        #expect(frames.map(\.time) == (0...15).map { us(Int64($0) * 10_000) })
        #expect(frames.last?.contacts == [])
        let down = frames.dropLast()
        #expect(down.allSatisfy { $0.contacts.count == 1 && $0.contacts[0].trackingID == 0 })
        // 1024 px on 4096 units: exactly 4 units a pixel, so positions come back exactly.
        #expect(down.first?.contacts.first?.position == Vector2(100, 100))
        #expect(down.last?.contacts.first?.position == Vector2(500, 300))
        // Still moving at the end: the last two samples differ by a full step.
        let xs = down.map { $0.contacts[0].position.x }
        #expect(xs[14] - xs[13] > 28 && xs[14] - xs[13] < 29)
        #expect(zip(xs, xs.dropFirst()).allSatisfy { $0 < $1 })
    }

    @Test func dragPausesBeforeTheLift() throws {
        var b = RecordingBuilder(screen: PixelSize(width: 1024, height: 1024))
        b.drag(from: Vector2(100, 100), to: Vector2(300, 100), start: .milliseconds(20), duration: .milliseconds(100), pause: .milliseconds(300))
        let frames = try decode(b)
        // Down, ten moves 10 ms apart, nothing while held still, then the lift.
        #expect(frames.map(\.time) == (0...10).map { us(20_000 + Int64($0) * 10_000) } + [us(420_000)])
        #expect(frames[10].contacts == [TouchPoint(slot: 0, trackingID: 0, position: Vector2(300, 100))])
        #expect(frames[5].contacts == [TouchPoint(slot: 0, trackingID: 0, position: Vector2(200, 100))])
        #expect(frames[11].contacts == [])
    }

    @Test func overlappingStrokesMergeInTimeOrder() throws {
        var b = RecordingBuilder(screen: PixelSize(width: 1024, height: 1024))
        b.swipe(from: Vector2(600, 600), to: Vector2(800, 600), start: .milliseconds(50), duration: .milliseconds(100), slot: 1)
        b.tap(at: Vector2(100, 200), start: .milliseconds(0), hold: .milliseconds(100), slot: 0)
        let events = b.events()
        let reports = events.filter { $0.type == EventCode.EV_SYN }.map(\.time)
        // One SYN_REPORT per time step, in order.
        #expect(reports == [0, 50, 60, 70, 80, 90, 100, 110, 120, 130, 140, 150].map { us(Int64($0) * 1000) })
        #expect(zip(events, events.dropFirst()).allSatisfy { $0.time <= $1.time })
        let touch = events.filter { $0.type == EventCode.EV_KEY }
        #expect(touch == [InputEvent(time: .zero, type: 1, code: EventCode.BTN_TOUCH, value: 1),
                          InputEvent(time: us(150_000), type: 1, code: EventCode.BTN_TOUCH, value: 0)])
        let frames = try decode(b)
        #expect(frames.count == 12)
        #expect(frames[1] == TouchFrame(time: us(50_000), contacts: [
            TouchPoint(slot: 0, trackingID: 0, position: Vector2(100, 200)),
            TouchPoint(slot: 1, trackingID: 1, position: Vector2(600, 600)),
        ]))
        #expect(frames[6].contacts.map(\.slot) == [1])
        #expect(frames[10].contacts == [TouchPoint(slot: 1, trackingID: 1, position: Vector2(800, 600))])
        // The pointer emulation follows the oldest contact (slot 0) while both are down.
        let pointerX = events.filter { $0.type == EventCode.EV_ABS && $0.code == EventCode.ABS_X }
        #expect(pointerX.map(\.value) == [400, 2844, 2933, 3022, 3111, 3200])
        #expect(pointerX.map(\.time) == [0, 100, 110, 120, 130, 140].map { us(Int64($0) * 1000) })
    }

    @Test func laterStrokeTakesOverABusySlot() throws {
        var b = RecordingBuilder(screen: PixelSize(width: 1024, height: 1024))
        b.tap(at: Vector2(10, 10), start: .milliseconds(0), hold: .milliseconds(100))
        b.tap(at: Vector2(20, 20), start: .milliseconds(50), hold: .milliseconds(100))
        #expect(try decode(b) == [
            TouchFrame(time: .zero, contacts: [TouchPoint(slot: 0, trackingID: 0, position: Vector2(10, 10))]),
            TouchFrame(time: us(50_000), contacts: [TouchPoint(slot: 0, trackingID: 1, position: Vector2(20, 20))]),
            TouchFrame(time: us(150_000), contacts: []),
        ])
    }

    @Test func zeroHoldTapIsPressAndReleaseInOneReport() throws {
        var b = RecordingBuilder(screen: PixelSize(width: 1024, height: 1024))
        b.tap(at: Vector2(64, 32), start: .milliseconds(5), hold: .milliseconds(0))
        #expect(b.events().filter { $0.type == EventCode.EV_SYN }.count == 1)
        #expect(try decode(b) == [
            TouchFrame(time: us(5_000), contacts: [TouchPoint(slot: 0, trackingID: 0, position: Vector2(64, 32))]),
            TouchFrame(time: us(5_000), contacts: []),
        ])
    }

    @Test(arguments: [
        PixelSize(width: 1920, height: 1080), PixelSize(width: 800, height: 480),
        PixelSize(width: 1280, height: 800), PixelSize(width: 3840, height: 2160), PixelSize(width: 1080, height: 1920),
    ])
    func positionsRoundTripWithinOnePixel(_ screen: PixelSize) throws {
        var b = RecordingBuilder(screen: screen)
        var expected: [Vector2] = []
        var t = 0.0
        for fx in stride(from: 0.0, through: 1.0, by: 0.0625) {
            for fy in [0.0, 0.33, 0.5, 0.77, 1.0] {
                // Right up to the last pixel centre, the largest position a screen reports.
                let p = Vector2(fx * (Double(screen.width) - 0.5), fy * (Double(screen.height) - 0.5))
                b.tap(at: p, start: .milliseconds(t), hold: .milliseconds(5))
                expected.append(p)
                t += 10
            }
        }
        let down = try decode(b).filter { !$0.contacts.isEmpty }
        #expect(down.count == expected.count)
        for (frame, p) in zip(down, expected) {
            let got = frame.contacts[0].position
            #expect(abs(got.x - p.x) <= 1 && abs(got.y - p.y) <= 1, "\(p) came back as \(got)")
        }
    }
}
