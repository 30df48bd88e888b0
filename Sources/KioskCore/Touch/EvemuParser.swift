/// The line-by-line state machine behind `EvemuReader` and `EvemuRecording.parse`.
struct EvemuParser {
    /// Where in the file we are; header sections must come in this order, as evemu reads them.
    enum Stage: Int, Comparable {
        case name, id, properties, bits, axes, leds, switches, events

        static func < (a: Stage, b: Stage) -> Bool { a.rawValue < b.rawValue }
    }

    static let eventSyntax = "'E: <sec.usec> <type> <code> <value>'"
    /// evemu's `EV_CNT` and `ABS_CNT`: the largest event type and axis code plus one.
    static let eventTypeCount = 0x20
    static let axisCount = 0x40
    /// Event times beyond this many seconds are no kernel's: epoch times are about 1.8e9 now,
    /// and the bound keeps all time arithmetic far from overflowing.
    static let maximumSeconds = 9_999_999_999
    /// Axes whose values are positions: without a range they map every touch to one spot.
    static let positionAxes: Set<UInt16> = [EventCode.ABS_X, EventCode.ABS_Y,
                                            EventCode.ABS_MT_POSITION_X, EventCode.ABS_MT_POSITION_Y]

    let file: String
    var lineNumber = 0
    var stage = Stage.name
    var sawFirstLine = false

    var version = EvemuRecording.FormatVersion(major: 1, minor: 0)
    var name = ""
    var id = InputDeviceID(bus: 0, vendor: 0, product: 0, version: 0)
    var properties = Set<Int>()
    var propertyBytes = 0
    /// Bytes of mask read so far per event type: repeated `B:` lines continue where the last ended.
    var maskBytes: [Int: Int] = [:]
    var eventCodes: [UInt16: Set<UInt16>] = [:]
    var axes: [UInt16: AxisInfo] = [:]
    var axisLines: [UInt16: Int] = [:]

    init(file: String) { self.file = file }

    /// Checks that the header is complete at the end of the file (line `lastLine`).
    mutating func finish(lastLine: Int) throws(RecordingError) {
        // An error at the end of the file names its last line (or line 1 when it is empty).
        lineNumber = max(lastLine, 1)
        switch stage {
        case .name: throw failure("expected 'N: <device name>', got end of file")
        case .id: throw failure("expected 'I: <bus> <vendor> <product> <version>', got end of file")
        default: break
        }
    }

    /// The recording as far as read, without events.
    var header: EvemuRecording {
        let keys = eventCodes[EventCode.EV_KEY] ?? []
        let device = TouchDeviceInfo(name: name, axes: axes, keys: keys, properties: properties)
        return EvemuRecording(formatVersion: version, id: id, device: device, eventCodes: eventCodes, events: [])
    }

    /// Parses line `number`; returns the event when it is an event line.
    mutating func parseLine(_ raw: String, number: Int) throws(RecordingError) -> InputEvent? {
        lineNumber = number
        let line = Self.trimmed(raw)
        if line.isEmpty { return nil }
        let isFirst = !sawFirstLine
        sawFirstLine = true
        if line.hasPrefix("#") {
            if isFirst { try parseVersion(line) }
            return nil
        }
        // Tags are ASCII; looking at bytes keeps long recordings fast (lines are mostly events).
        let bytes = line.utf8
        let tag: Character? = bytes.count >= 2 && bytes[bytes.index(after: bytes.startIndex)] == UInt8(ascii: ":")
            && bytes[bytes.startIndex] < 0x80 ? Character(Unicode.Scalar(bytes[bytes.startIndex])) : nil
        let fields = tag == nil ? [] : Self.fields(afterTag: line)
        switch (stage, tag) {
        case (.name, "N"):
            try parseName(line)
        case (.name, _):
            throw failure("expected 'N: <device name>', got '\(Self.quoted(line))'")
        case (.id, "I"):
            try parseID(line, fields)
        case (.id, _):
            throw failure("expected 'I: <bus> <vendor> <product> <version>' after the name, got '\(Self.quoted(line))'")
        case (.events, "E"):
            return try parseEvent(line, fields)
        case (.events, _):
            throw failure("expected an event line \(Self.eventSyntax), got '\(Self.quoted(line))'")
        case (_, "P"):
            try enter(.properties, line)
            try parseProperties(line, fields)
        case (_, "B"):
            try enter(.bits, line)
            try parseBits(line, fields)
        case (_, "A"):
            try enter(.axes, line)
            try parseAxis(line, fields)
        case (_, "L"), (_, "S"):
            try enter(tag == "L" ? .leds : .switches, line)
            try parseState(line, fields)
        case (_, "E"):
            stage = .events
            return try parseEvent(line, fields)
        default:
            throw failure("expected a 'P:', 'B:', 'A:', 'L:', 'S:' or 'E:' line, got '\(Self.quoted(line))'")
        }
        return nil
    }

    /// Moves to a later header section; going back is an error, because evemu stops reading
    /// the header at the first out-of-order line and would silently lose the rest.
    mutating func enter(_ section: Stage, _ line: String) throws(RecordingError) {
        if section < stage {
            throw failure("expected header lines in the order N, I, P, B, A, L, S, got '\(Self.quoted(line))' after \(Self.sectionName(stage)) lines")
        }
        stage = section
    }

    static func sectionName(_ stage: Stage) -> String {
        switch stage {
        case .name: return "'N:'"
        case .id: return "'I:'"
        case .properties: return "'P:'"
        case .bits: return "'B:'"
        case .axes: return "'A:'"
        case .leds: return "'L:'"
        case .switches: return "'S:'"
        case .events: return "'E:'"
        }
    }

    // MARK: Header lines

    mutating func parseVersion(_ line: String) throws(RecordingError) {
        let words = line.dropFirst().split(whereSeparator: Self.isSpace)
        guard words.first == "EVEMU" else { return }  // an ordinary comment: format 1.0
        let numbers = words.count == 2 ? words[1].split(separator: ".", omittingEmptySubsequences: false) : []
        guard numbers.count == 2, let major = Self.decimal(numbers[0]), let minor = Self.decimal(numbers[1]),
              major >= 0, minor >= 0 else {
            throw failure("expected '# EVEMU <major>.<minor>', got '\(Self.quoted(line))'")
        }
        version = EvemuRecording.FormatVersion(major: major, minor: minor)
    }

    mutating func parseName(_ line: String) throws(RecordingError) {
        let value = line.dropFirst(2).drop(while: { Self.isSpace($0) })
        guard !value.isEmpty else { throw failure("expected 'N: <device name>', got '\(Self.quoted(line))'") }
        name = String(value)
        stage = .id
    }

    mutating func parseID(_ line: String, _ fields: [Substring]) throws(RecordingError) {
        let numbers = fields.compactMap { Self.hex($0, maxDigits: 4) }
        guard fields.count == 4, numbers.count == 4 else {
            throw failure("expected 'I: <bus> <vendor> <product> <version>' (4 hex numbers), got '\(Self.quoted(line))'")
        }
        id = InputDeviceID(bus: UInt16(numbers[0]), vendor: UInt16(numbers[1]),
                                     product: UInt16(numbers[2]), version: UInt16(numbers[3]))
        stage = .properties
    }

    mutating func parseProperties(_ line: String, _ fields: [Substring]) throws(RecordingError) {
        let bytes = fields.compactMap { Self.hex($0, maxDigits: 2) }
        guard fields.count == 8, bytes.count == 8 else {
            throw failure("expected 'P:' and 8 hex bytes, got '\(Self.quoted(line))'")
        }
        for bit in Self.setBits(bytes) { properties.insert(propertyBytes * 8 + bit) }
        propertyBytes += 8
    }

    mutating func parseBits(_ line: String, _ fields: [Substring]) throws(RecordingError) {
        let numbers = fields.compactMap { Self.hex($0, maxDigits: 2) }
        guard fields.count == 9, numbers.count == 9 else {
            throw failure("expected 'B: <type>' and 8 hex bytes, got '\(Self.quoted(line))'")
        }
        let type = numbers[0]
        guard type < Self.eventTypeCount else {
            throw failure("expected an event type below 0x20 in 'B:' line, got 0x\(String(type, radix: 16)) in '\(Self.quoted(line))'")
        }
        let offset = maskBytes[type, default: 0]
        var codes = eventCodes[UInt16(type), default: []]
        for bit in Self.setBits(Array(numbers.dropFirst())) {
            let code = offset * 8 + bit
            guard code <= Int(UInt16.max) else {
                throw failure("expected event codes up to 0xffff, got bit \(code) in '\(Self.quoted(line))'")
            }
            codes.insert(UInt16(code))
        }
        eventCodes[UInt16(type)] = codes
        maskBytes[type] = offset + 8
    }

    mutating func parseAxis(_ line: String, _ fields: [Substring]) throws(RecordingError) {
        // evemu writes the resolution column only from format 1.2 on; either shape is accepted
        // in any version, so hand-edited files need not match their version line exactly.
        let syntax = "'A: <code> <min> <max> <fuzz> <flat> [<resolution>]'"
        guard fields.count == 5 || fields.count == 6 else {
            throw failure("expected \(syntax) (5 or 6 numbers), got \(fields.count) numbers in '\(Self.quoted(line))'")
        }
        let values = fields.dropFirst().compactMap { Self.int32($0) }
        guard let code = Self.hex(fields[0], maxDigits: 4), values.count == fields.count - 1 else {
            throw failure("expected \(syntax), got '\(Self.quoted(line))'")
        }
        guard code < Self.axisCount else {
            throw failure("expected an axis code below 0x40, got 0x\(String(code, radix: 16)) in '\(Self.quoted(line))'")
        }
        let axis = UInt16(code)
        let name = "0x" + NumberText.hex(code, digits: 2)
        if let first = axisLines[axis] {
            throw failure("expected one 'A:' line per axis, got a second one for axis \(name) (first on line \(first))")
        }
        // evemu-device only creates the axes the mask enables; an A: line without its bit
        // would replay differently from how it decodes here.
        guard eventCodes[EventCode.EV_ABS]?.contains(axis) == true else {
            throw failure("expected axis \(name) to be enabled by a 'B: 03' line, got an 'A:' line without it")
        }
        guard values[0] <= values[1] else {
            throw failure("expected min <= max for axis \(name), got min \(values[0]) and max \(values[1])")
        }
        guard values[0] < values[1] || !Self.positionAxes.contains(axis) else {
            throw failure("expected min < max for position axis \(name), got min and max \(values[0])")
        }
        axes[axis] = AxisInfo(minimum: values[0], maximum: values[1], fuzz: values[2], flat: values[3],
                              resolution: values.count == 5 ? values[4] : 0)
        axisLines[axis] = lineNumber
    }

    /// `L: code state` or `S: code state`: checked, then ignored (a recording replays input, not LEDs).
    mutating func parseState(_ line: String, _ fields: [Substring]) throws(RecordingError) {
        let tag = line.prefix(2)
        guard fields.count == 2, Self.hex(fields[0], maxDigits: 4) != nil, Self.int32(fields[1]) != nil else {
            throw failure("expected '\(tag) <code> <state>', got '\(Self.quoted(line))'")
        }
    }

    // MARK: Events

    mutating func parseEvent(_ line: String, _ fields: [Substring]) throws(RecordingError) -> InputEvent {
        // Anything after the four fields must be the `# EV_ABS / ...` comment evemu appends.
        if fields.count > 4, !fields[4].hasPrefix("#") {
            throw failure("expected \(Self.eventSyntax) and an optional '# comment', got '\(Self.quoted(line))'")
        }
        guard fields.count >= 4 else {
            throw failure("expected \(Self.eventSyntax), got '\(Self.quoted(line))'")
        }
        guard let time = Self.timeStamp(fields[0]) else {
            throw failure("expected \(Self.eventSyntax) with a time of seconds and 6 digits of microseconds, got '\(Self.quoted(line))'")
        }
        guard time.microseconds <= Int64(Self.maximumSeconds) * 1_000_000 + 999_999 else {
            throw failure("expected a time of at most \(Self.maximumSeconds) seconds, got '\(Self.quoted(fields[0]))'")
        }
        guard let type = Self.hex(fields[1], maxDigits: 4), let code = Self.hex(fields[2], maxDigits: 4) else {
            throw failure("expected \(Self.eventSyntax) with hex type and code, got '\(Self.quoted(line))'")
        }
        guard let value = Self.int32(fields[3]) else {
            throw failure("expected \(Self.eventSyntax) with a 32-bit decimal value, got '\(Self.quoted(line))'")
        }
        return InputEvent(time: time, type: UInt16(type), code: UInt16(code), value: value)
    }

    // MARK: Lexing

    func failure(_ message: String) -> RecordingError {
        RecordingError(file: file, line: lineNumber, message: message)
    }

    // The lexing below works on UTF-8 bytes, not Characters: every token is ASCII, and a
    // recording is millions of lines. Cuts fall next to ASCII bytes, so on scalar boundaries.

    static func isSpace(_ c: Character) -> Bool { c == " " || c == "\t" }
    static func isSpaceByte(_ b: UInt8) -> Bool { b == 0x20 || b == 0x09 }
    static func isDigitByte(_ b: UInt8) -> Bool { b >= 0x30 && b <= 0x39 }
    static func isHexByte(_ b: UInt8) -> Bool {
        isDigitByte(b) || (b >= 0x41 && b <= 0x46) || (b >= 0x61 && b <= 0x66)
    }

    static func trimmed(_ s: String) -> String {
        let bytes = s.utf8
        guard let first = bytes.firstIndex(where: { !isSpaceByte($0) }),
              let last = bytes.lastIndex(where: { !isSpaceByte($0) }) else { return "" }
        return String(Substring(bytes[first...last]))
    }

    /// The whitespace-separated fields after a `X:` tag (evemu's scanf also allows `X:value`);
    /// the tag must be ASCII.
    static func fields(afterTag line: String) -> [Substring] {
        line.utf8.dropFirst(2).split(whereSeparator: isSpaceByte).map { Substring($0) }
    }

    /// The line as quoted in errors: escaped and shortened (see `echoed`).
    static func quoted<S: StringProtocol>(_ line: S) -> String {
        echoed(line, limit: 100)
    }

    static func hex(_ s: Substring, maxDigits: Int) -> Int? {
        guard !s.isEmpty, s.utf8.count <= maxDigits, s.utf8.allSatisfy(isHexByte) else { return nil }
        return Int(s, radix: 16)
    }

    static func decimal(_ s: Substring) -> Int? {
        guard !s.isEmpty, s.utf8.count <= 18, s.utf8.allSatisfy(isDigitByte) else { return nil }
        return Int(s)
    }

    /// A signed decimal as `%d` reads it, `-001` included; nil when it does not fit 32 bits.
    static func int32(_ s: Substring) -> Int32? {
        var digits = s.utf8[...]
        var negative = false
        if let sign = digits.first, sign == UInt8(ascii: "-") || sign == UInt8(ascii: "+") {
            negative = sign == UInt8(ascii: "-")
            digits = digits.dropFirst()
        }
        guard !digits.isEmpty, digits.allSatisfy(isDigitByte) else { return nil }
        // Leading zeros would otherwise count against the length limit below.
        let significant = digits.drop(while: { $0 == UInt8(ascii: "0") })
        guard significant.count <= 10 else { return nil }
        let magnitude = significant.reduce(Int64(0)) { $0 * 10 + Int64($1 - 0x30) }
        let value = negative ? -magnitude : magnitude
        guard value >= Int64(Int32.min), value <= Int64(Int32.max) else { return nil }
        return Int32(value)
    }

    /// `seconds.microseconds` with exactly six microsecond digits, as evemu writes them: a
    /// shorter fraction such as `0.1` means 1 us to evemu but 100 ms to a human, so it is refused.
    static func timeStamp(_ s: Substring) -> TimeStamp? {
        let parts = s.utf8.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false).map { Substring($0) }
        guard parts.count == 2, let seconds = decimal(parts[0]), parts[1].utf8.count == 6,
              let micros = decimal(parts[1]) else { return nil }
        // Well-formed but too late: the caller's bound check names the real problem.
        guard seconds <= maximumSeconds else { return .distantFuture }
        return TimeStamp(microseconds: Int64(seconds) * 1_000_000 + Int64(micros))
    }

    /// Indices of the set bits of little-endian mask bytes (bit 0 of byte 0 first).
    static func setBits(_ bytes: [Int]) -> [Int] {
        var bits: [Int] = []
        for (index, byte) in bytes.enumerated() {
            for bit in 0..<8 where byte & (1 << bit) != 0 { bits.append(index * 8 + bit) }
        }
        return bits
    }
}
