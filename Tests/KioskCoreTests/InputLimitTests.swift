import KioskCore
import Testing
import KioskTestSupport

/// A recording header (6 lines) whose MT position axes are given.
private func header(x: String = "0 99", y: String = "0 99") -> String {
    """
    # EVEMU 1.3
    N: Test Panel
    I: 0003 0001 0002 0003
    B: 03 00 00 00 00 00 00 60 00
    A: 35 \(x) 0 0 0
    A: 36 \(y) 0 0 0

    """
}

private func recordingError(_ text: String) -> RecordingError? {
    do {
        _ = try EvemuRecording.parse(text, file: "t.evemu")
        return nil
    } catch {
        return error
    }
}

@Suite struct EchoTests {
    @Test func controlCharactersAreEscaped() {
        #expect(echoed("a\u{1B}[2Jb") == "a\\e[2Jb")
        #expect(echoed("tab\there\nnext\r") == "tab\\there\\nnext\\r")
        #expect(echoed("\u{0}\u{7}\u{7F}") == "\\x00\\x07\\x7f")
        #expect(echoed("\u{9B}2J") == "\\u{009b}2J")
        #expect(echoed("abc\u{202E}cba") == "abc\\u{202e}cba")
        #expect(echoed("plain café 1.5") == "plain café 1.5")
    }

    @Test func longTextIsCutToTheLimitWithAnEllipsis() {
        #expect(echoed(String(repeating: "x", count: 80)) == String(repeating: "x", count: 80))
        #expect(echoed(String(repeating: "x", count: 81)) == String(repeating: "x", count: 77) + "...")
        #expect(echoed(String(repeating: "y", count: 1_000_000), limit: 10) == "yyyyyyy...")
        #expect(echoed("abcdef", limit: 6) == "abcdef")
    }
}

@Suite struct SaturatingTimeTests {
    @Test func millisecondsNeverTrap() {
        #expect(TimeStamp(milliseconds: .nan).microseconds == 0)
        #expect(TimeStamp(milliseconds: .infinity).microseconds == .max)
        #expect(TimeStamp(milliseconds: -.infinity).microseconds == .min)
        #expect(TimeStamp(milliseconds: 1e308).microseconds == .max)
        #expect(TimeStamp(milliseconds: -1e308).microseconds == .min)
        #expect(TimeStamp(milliseconds: 1.5).microseconds == 1500)
        #expect(TimeStamp(milliseconds: -2.25).microseconds == -2250)
    }

    @Test func addingSaturatesAtTheEnds() {
        let late = TimeStamp(microseconds: .max - 10)
        #expect((late + .milliseconds(1)).microseconds == .max)
        #expect((late + .seconds(Int64.max)).microseconds == .max)
        #expect(late.adding(microseconds: 5).microseconds == .max - 5)
        #expect(late.adding(microseconds: 11).microseconds == .max)
        let early = TimeStamp(microseconds: .min + 10)
        #expect((early + .milliseconds(-1)).microseconds == .min)
        #expect(early.adding(microseconds: -.max).microseconds == .min)
        #expect((TimeStamp.zero + .seconds(Int64.min)).microseconds == .min)
        #expect((TimeStamp(microseconds: 1000) + .milliseconds(2.5)).microseconds == 3500)
    }

    @Test func millisecondsSinceCannotOverflow() {
        let a = TimeStamp(microseconds: .max), b = TimeStamp(microseconds: .min)
        #expect((a - b).inMilliseconds > 1.8e16)
        #expect((b - a).inMilliseconds < -1.8e16)
        #expect((TimeStamp(microseconds: 3500) - TimeStamp(microseconds: 1000)).inMilliseconds == 2.5)
    }

    @Test func secondsAndMicrosecondsSaturate() {
        #expect(TimeStamp(seconds: .max, microseconds: 0).microseconds == .max)
        #expect(TimeStamp(seconds: .min, microseconds: 0).microseconds == .min)
        #expect(TimeStamp(seconds: 9_223_372_036_854, microseconds: 999_999).microseconds == .max)
        #expect(TimeStamp(seconds: 2, microseconds: 5).microseconds == 2_000_005)
    }
}

@Suite struct SizeLimitTests {
    @Test func sidesUpToWhatDRMAllows() {
        #expect(PixelSize(parsing: "8192x8192") == PixelSize(width: 8192, height: 8192))
        #expect(PixelSize(parsing: "8193x600") == nil)
        #expect(PixelSize(parsing: "800x16384") == nil)
        #expect(PixelSize(parsing: "99999999999999999999x1") == nil)
        #expect(PixelSize(parsing: "0x10") == nil)
        #expect(PixelSize(parsing: "-5x10") == nil)
    }
}

@Suite struct ConfigRangeTests {
    private func problem(_ section: String, _ key: String, _ value: String) -> String? {
        var settings = Settings()
        return ConfigSchema.standard.key(section, key)!.apply(value, to: &settings)
    }

    @Test(arguments: ["10000000000000000 0 0 0 1 0", "1 0 0 0 11 0", "1 0 -10.5 0 1 0", "1 0 0 0 1 nan", "1 0 0 0 1 inf"])
    func calibrationEntriesOutOfRangeAreRejected(_ value: String) {
        #expect(problem("input", "calibration_matrix", value)?.hasPrefix("expected 6 numbers from -10 to 10") == true)
    }

    @Test(arguments: ["0 0 0 0 0 0", "1 1 0 1 1 0", "0.001 0 0 0 0.001 0.5", "1 2 0 2 4 0"])
    func singularCalibrationIsRejected(_ value: String) {
        #expect(problem("input", "calibration_matrix", value)?.contains("onto a line or a point") == true)
    }

    @Test(arguments: ["1 0 5 0 1 0", "1 0 0 0 1 -1.5", "-1 0 -0.5 0 1 0", "0 1 0 1 0 2", "1 0 1 0 1 0", "1 1 -2 0 1 0"])
    func calibrationMovingTheScreenAwayIsRejected(_ value: String) {
        #expect(problem("input", "calibration_matrix", value)?.contains("off the screen") == true)
    }

    @Test(arguments: ["1 0 0 0 1 0", "1 0 0.02 0 1 -0.01", "-1 0 1 0 1 0", "0 1 0 1 0 0", "1 0 0.9 0 1 0", "2 0 -0.5 0 2 -0.5"])
    func usableCalibrationsAreAccepted(_ value: String) {
        #expect(problem("input", "calibration_matrix", value) == nil)
        #expect(TouchTransform.calibrationProblem(value.split(separator: " ").map { Double($0)! }) == nil)
    }

    /// `check-config` prints settings as config text, so tiny numbers must not come out as `1e-07`.
    @Test(arguments: ["0.0000001", "0.00012345", "0.5", "0.000000000000000000001"])
    func tinyValuesRenderAsPlainDecimalsThatReadBack(_ value: String) throws {
        let key = try #require(ConfigSchema.standard.key("game", "swipe_share"))
        var settings = Settings()
        #expect(key.apply(value, to: &settings) == nil)
        #expect(key.render(settings) == value)
        let matrix = try #require(ConfigSchema.standard.key("input", "calibration_matrix"))
        #expect(matrix.apply("1 0 -\(value) 0 1 0", to: &settings) == nil)
        #expect(matrix.render(settings) == "1 0 -\(value) 0 1 0")
    }

    @Test func transformFallsBackToIdentityForAnUnusableMatrix() {
        let t = TouchTransform(native: PixelSize(width: 100, height: 100), calibration: [0, 0, 0, 0, 0, 0])
        #expect(t.calibration == TouchTransform.identityMatrix)
    }

    /// Every numeric key refuses the values that could overflow or trap downstream.
    @Test func everyNumericKeyRefusesExtremes() {
        for key in ConfigSchema.standard.keys {
            switch key.kind {
            case .int, .double, .optionalDouble, .duration, .choice, .numbers: break
            case .bool, .keyword, .path, .text, .commandLine, .schedule, .refused: continue
            }
            for value in ["1e308", "-1e308", "nan", "inf", "-inf", "99999999999999999999", "9223372036854775807",
                          "-9223372036854775808", "1000000000", "-1000000000", ""] {
                var settings = Settings()
                #expect(key.apply(value, to: &settings) != nil, "\(key.id) = \(value)")
                #expect(settings == Settings(), "\(key.id) = \(value) changed the settings")
            }
        }
    }

    @Test func rejectedValuesAreEchoedEscapedAndShort() {
        var builder = ConfigBuilder()
        builder.add(text: "[game]\nbubbles = \u{1B}[2J" + String(repeating: "9", count: 5000) + "\n", file: "e.conf")
        let lines = builder.finish().diagnostics.map(\.description)
        #expect(lines.count == 1)
        #expect(lines.first?.hasPrefix("e.conf:2: bubbles: expected a whole number from 1 to 200, got '\\e[2J999") == true)
        #expect(lines.first?.hasSuffix("...'") == true)
        #expect((lines.first?.count ?? 0) < 200)
        #expect(lines.first?.contains("\u{1B}") == false)
    }

    @Test func aFileOfGarbageGivesBoundedFindings() {
        var builder = ConfigBuilder()
        builder.add(text: String(repeating: "junk\n", count: 1000) + "[gamez]\n", file: "g.conf")
        let result = builder.finish()
        let limit = ConfigDiagnostic.maximumPerFile
        let parsed = ConfigParser.parse(String(repeating: "junk\n", count: 1000), file: "g.conf")
        #expect(parsed.diagnostics.count == limit && parsed.omittedErrors == 1000 - limit)
        #expect(parsed.diagnostics.last?.line == limit)
        #expect(result.diagnostics.count == limit + 1)
        #expect(result.diagnostics.last?.description == "g.conf: \(1001 - limit) more findings not shown (\(1000 - limit) errors, 1 warnings)")
        #expect(result.hasErrors)
        var warnings = ConfigBuilder()
        warnings.add(text: String(repeating: "[gamez]\n", count: limit + 2), file: "w.conf")
        #expect(warnings.finish().diagnostics.last?.description == "w.conf: warning: 2 more findings not shown (0 errors, 2 warnings)")
    }

    @Test func longKeysAndSectionsAreEchoedShort() {
        var builder = ConfigBuilder()
        let long = String(repeating: "k", count: 100_000)
        builder.add(text: "[\(long)]\n[game]\n\(long) = 1\n\(long)x y = 2\n", file: "l.conf")
        let lines = builder.finish().diagnostics.map(\.description)
        #expect(lines.count == 3)
        #expect(lines.allSatisfy { $0.count < 200 }, "\(lines.map { $0.prefix(100) })")
    }
}

@Suite struct RecordingLimitTests {
    @Test func hugeTimesAreAnErrorWithTheLine() {
        let error = recordingError(header() + "E: 0.000001 0003 0035 1\nE: 9223372036854.999999 0000 0000 0000\n")
        #expect(error?.line == 8)
        #expect(error?.message == "expected a time of at most 9999999999 seconds, got '9223372036854.999999'")
        #expect(recordingError(header() + "E: 10000000000.000000 0000 0000 0000\n")?.line == 7)
        #expect(recordingError(header() + "E: 999999999999999999.000000 0000 0000 0000\n")?.line == 7)
        #expect(recordingError(header() + "E: 9999999999.999999 0000 0000 0000\n") == nil)
    }

    @Test(arguments: ["5 5", "100 -100"])
    func positionAxesWithoutRangeAreAnError(_ range: String) {
        let error = recordingError(header(y: range) + "E: 0.000001 0003 0035 1\n")
        #expect(error?.line == 6)
        #expect(error?.message.hasPrefix("expected min ") == true)
        // The same range is fine on an axis that is no position (a single slot).
        let slot = "N: P\nI: 0 0 0 0\nB: 03 00 00 00 00 00 80 00 00\nA: 2f 0 0 0 0 0\n"
        #expect(recordingError(slot) == nil)
    }

    @Test func overlongLinesAreRefusedWithTheirLine() {
        let error = recordingError(header() + "# " + String(repeating: "z", count: 5000) + "\nE: 0.000001 0003 0035 1\n")
        #expect(error?.line == 7)
        #expect(error?.message.contains("at most 4096 bytes") == true)
    }

    @Test func readerStreamsTheSameEventsAsParse() throws {
        let text = Fixture.text("protocol-b-two-fingers.evemu")
        let whole = try EvemuRecording.parse(text, file: "f")
        var reader = try EvemuReader(text: text, file: "f")
        #expect(reader.header.device == whole.device)
        #expect(reader.header.events.isEmpty)
        #expect(reader.firstEventTime == whole.events.first?.time)
        var events: [InputEvent] = []
        while let e = try reader.next() { events.append(e) }
        #expect(events == whole.events)
        #expect(reader.lastEventTime == whole.events.last?.time)
        #expect(try reader.next() == nil)
    }

    @Test func streamedReplayGivesTheSameGestures() throws {
        let text = Fixture.text("protocol-b-two-fingers.evemu")
        let screen = PixelSize(width: 1280, height: 800)
        let thresholds = GestureThresholds(GestureSettings(), pxPerMM: 4)
        var whole: [Gesture] = []
        Replay.gestures(of: try EvemuRecording.parse(text, file: "f"), screen: screen, thresholds: thresholds) {
            whole.append($0)
        }
        var streamed: [Gesture] = []
        var reader = try EvemuReader(text: text, file: "f")
        let span = try Replay.gestures(reading: &reader, screen: screen, thresholds: thresholds) { streamed.append($0) }
        #expect(!whole.isEmpty)
        #expect(streamed == whole)
        #expect(span == Replay.span(of: try EvemuRecording.parse(text, file: "f")))
    }

    @Test func aLateBadLineIsThrownAfterTheEventsBeforeIt() throws {
        var reader = try EvemuReader(text: header() + "E: 0.000001 0003 0035 1\nE: x\n", file: "late.evemu")
        #expect(try reader.next()?.value == 1)
        #expect(throws: RecordingError.self) { try reader.next() }
    }
}

@Suite struct DecoderLimitTests {
    private let screen = PixelSize(width: 800, height: 480)

    private func singleTouch(x: AxisInfo, y: AxisInfo) -> TouchDeviceInfo {
        TouchDeviceInfo(name: "st", axes: [EventCode.ABS_X: x, EventCode.ABS_Y: y], keys: [EventCode.BTN_TOUCH])
    }

    private func tap(_ device: TouchDeviceInfo, x: Int32, y: Int32) -> [TouchFrame] {
        var decoder = TouchDecoder(device: device, screen: screen)
        let t = TimeStamp.zero
        var frames: [TouchFrame] = []
        for e in [InputEvent(time: t, type: EventCode.EV_KEY, code: EventCode.BTN_TOUCH, value: 1),
                  InputEvent(time: t, type: EventCode.EV_ABS, code: EventCode.ABS_X, value: x),
                  InputEvent(time: t, type: EventCode.EV_ABS, code: EventCode.ABS_Y, value: y),
                  InputEvent(time: t, type: EventCode.EV_SYN, code: EventCode.SYN_REPORT, value: 0)] {
            frames += decoder.feed(e)
        }
        return frames
    }

    @Test func aZeroRangeAxisGivesNoTouches() {
        let device = singleTouch(x: AxisInfo(minimum: 5, maximum: 5), y: AxisInfo(minimum: 0, maximum: 4095))
        #expect(device.axisProblem == "axis ABS_X has no range (min 5, max 5)")
        let frames = tap(device, x: 1948, y: 100)
        #expect(frames.allSatisfy { $0.contacts.isEmpty })
        let inverted = singleTouch(x: AxisInfo(minimum: 0, maximum: 4095), y: AxisInfo(minimum: 10, maximum: 0))
        #expect(inverted.axisProblem != nil)
        #expect(singleTouch(x: AxisInfo(minimum: 0, maximum: 1), y: AxisInfo(minimum: 0, maximum: 1)).axisProblem == nil)
    }

    @Test(arguments: [(Int32.max, Int32.min), (Int32.min, Int32.max), (5000, -3), (4095, 4095)])
    func positionsOutsideTheAxisAreClampedToTheScreen(_ x: Int32, _ y: Int32) throws {
        let device = singleTouch(x: AxisInfo(minimum: 0, maximum: 4095), y: AxisInfo(minimum: 0, maximum: 4095))
        let p = try #require(tap(device, x: x, y: y).last?.contacts.first?.position)
        #expect(p.x >= 0 && p.x <= 800 && p.y >= 0 && p.y <= 480, "\(p)")
    }

    @Test func calibratedPositionsStayOnTheScreen() {
        let t = TouchTransform(native: PixelSize(width: 1000, height: 500), rotation: 90, calibration: [2, 0, 0, 0, 2, 0])
        let p = t.apply(Vector2(900, 450))
        #expect(p == Vector2(500, 0))
        #expect(TouchTransform(native: PixelSize(width: 100, height: 100)).apply(Vector2(-5, 150)) == Vector2(0, 100))
    }
}

@Suite struct ContactFloodTests {
    private let screen = PixelSize(width: 1000, height: 1000)
    private let protocolA = TouchDeviceInfo(
        name: "A", axes: [EventCode.ABS_MT_POSITION_X: AxisInfo(minimum: 0, maximum: 999),
                          EventCode.ABS_MT_POSITION_Y: AxisInfo(minimum: 0, maximum: 999)],
        keys: [EventCode.BTN_TOUCH])

    /// One protocol A report of `count` contacts on a 60x50 grid, shifted by `shift` units.
    private func report(_ count: Int, shift: Int32) -> [InputEvent] {
        let t = TimeStamp(microseconds: Int64(shift) * 10_000)
        var events = [InputEvent(time: t, type: EventCode.EV_KEY, code: EventCode.BTN_TOUCH, value: 1)]
        for i in 0..<count {
            events.append(InputEvent(time: t, type: EventCode.EV_ABS, code: EventCode.ABS_MT_POSITION_X, value: Int32(i % 60) * 16 + shift))
            events.append(InputEvent(time: t, type: EventCode.EV_ABS, code: EventCode.ABS_MT_POSITION_Y, value: Int32(i / 60 % 60) * 16))
            events.append(InputEvent(time: t, type: EventCode.EV_SYN, code: EventCode.SYN_MT_REPORT, value: 0))
        }
        events.append(InputEvent(time: t, type: EventCode.EV_SYN, code: EventCode.SYN_REPORT, value: 0))
        return events
    }

    /// 3,000 contacts a report stalled the loop for seconds: the quadratic matching ran on all.
    @Test func aReportOfThousandsOfContactsKeepsTheCapAndStableIDs() throws {
        var decoder = TouchDecoder(device: protocolA, screen: screen)
        var notes: [String] = []
        var frames: [[TouchFrame]] = []
        for shift in 0..<5 {
            frames.append(report(3000, shift: Int32(shift)).flatMap { decoder.feed($0) })
            if let note = decoder.takeNote() { notes.append(note) }
        }
        let cap = TouchDecoder.maximumContacts
        #expect(cap == 256)
        for f in frames {
            let contacts = try #require(f.last?.contacts)
            #expect(contacts.count == cap)
            #expect(Set(contacts.map(\.slot)) == Set(0..<cap))
        }
        // Each finger moved one unit: every one keeps its id and slot.
        let first = try #require(frames.first?.last?.contacts), last = try #require(frames.last?.last?.contacts)
        #expect(first.map(\.trackingID) == last.map(\.trackingID))
        #expect(Set(last.map(\.trackingID)).count == cap)
        #expect(last.first?.position == Vector2(4, 0))
        // The 1st, 2nd and 4th overfull report are logged, each saying what was dropped.
        #expect(notes.count == 3)
        #expect(notes.first == "a report listed 3000 contacts; kept the first 256, dropped the rest (1 such report so far)")
        #expect(notes.last?.hasSuffix("(4 such reports so far)") == true)
        #expect(decoder.takeNote() == nil)
    }

    /// Between the exact matching's limit and the cap, nearest-first still follows the fingers.
    @Test func manyContactsMovingAreFollowed() throws {
        var decoder = TouchDecoder(device: protocolA, screen: screen)
        let a = try #require(report(100, shift: 0).flatMap { decoder.feed($0) }.last?.contacts)
        let b = try #require(report(100, shift: 3).flatMap { decoder.feed($0) }.last?.contacts)
        #expect(a.count == 100 && b.count == 100)
        #expect(a.map(\.trackingID) == b.map(\.trackingID))
        #expect(zip(a, b).allSatisfy { $1.position.x == $0.position.x + 3 && $1.position.y == $0.position.y })
        #expect(decoder.takeNote() == nil)
    }
}
