/// A malformed recording: which file, which line (1-based) and what was wrong there.
///
/// Prints as `FILE:LINE: message`, the form editors and CI logs turn into links.
public struct RecordingError: Error, Equatable, Sendable, CustomStringConvertible {
    public var file: String
    public var line: Int
    /// What was expected and what was found.
    public var message: String

    /// An error at `line` of `file`.
    public init(file: String, line: Int, message: String) {
        self.file = file
        self.line = line
        self.message = message
    }

    // The file name comes from a command line: shown escaped and short, as every quoted value.
    public var description: String { "\(echoed(file, limit: 200)):\(line): \(message)" }
}

/// A device description and its events, read from the text `evemu-record` writes.
///
/// The layout is that of evemu's `src/evemu.c`: an optional `# EVEMU major.minor` first line,
/// then `N:` (name), `I:` (bus, vendor, product, version), and any number of `P:` (property
/// bits), `B:` (event code bits), `A:` (axis ranges), `L:` and `S:` (LED and switch states)
/// lines, in that order; then `E:` event lines. `#` comments and blank lines may appear anywhere.
public struct EvemuRecording: Equatable, Sendable {
    /// File format version from the `# EVEMU major.minor` line (1.0 when the file has none).
    public struct FormatVersion: Comparable, Hashable, Sendable, CustomStringConvertible {
        public var major: Int
        public var minor: Int

        public init(major: Int, minor: Int) {
            self.major = major
            self.minor = minor
        }

        public static func < (a: FormatVersion, b: FormatVersion) -> Bool {
            (a.major, a.minor) < (b.major, b.minor)
        }

        public var description: String { "\(major).\(minor)" }
    }

    /// The `# EVEMU` version the file declares.
    public var formatVersion: FormatVersion
    /// Bus, vendor, product and version from the `I:` line.
    /// The `I:` line.
    public var id: InputDeviceID
    /// Name, axes (`A:` lines), keys (`EV_KEY` bits of the `B:` lines) and properties (`P:` bits).
    public var device: TouchDeviceInfo
    /// Every event code the `B:` lines enable, by event type.
    public var eventCodes: [UInt16: Set<UInt16>]
    /// The events in file order, with the times as written (relative or absolute).
    public var events: [InputEvent]

    /// A recording from its parts (tests and generated recordings).
    public init(formatVersion: FormatVersion, id: InputDeviceID, device: TouchDeviceInfo,
                eventCodes: [UInt16: Set<UInt16>] = [:], events: [InputEvent]) {
        self.formatVersion = formatVersion
        self.id = id
        self.device = device
        self.eventCodes = eventCodes
        self.events = events
    }

    /// The events shifted in time so that the first one happens at `start`.
    ///
    /// Recordings hold either times relative to the recording's start or kernel epoch times;
    /// replays want one time base.
    public func eventsRebased(to start: TimeStamp = .zero) -> [InputEvent] {
        guard let first = events.first else { return [] }
        let shift = start.microseconds - first.time.microseconds
        return events.map { event in
            var moved = event
            moved.time = TimeStamp(microseconds: event.time.microseconds + shift)
            return moved
        }
    }

    /// Parses recording text; `file` only names the source in errors.
    public static func parse(_ text: String, file: String) throws(RecordingError) -> EvemuRecording {
        var reader = try EvemuReader(text: text, file: file)
        var recording = reader.header
        while let event = try reader.next() { recording.events.append(event) }
        return recording
    }
}

/// Reads a recording as it is used: the header up front, then one event at a time, so a
/// recording of any length takes constant memory.
///
/// Lines come from `nextLine` (without their line end); `nil` means the end of the file.
public struct EvemuReader {
    /// Where lines come from; throws for a read error or a line over `maximumLineBytes`.
    public typealias NextLine = () throws(RecordingError) -> String?

    /// evemu's own lines are at most a few hundred bytes; a longer one is not a recording,
    /// and refusing it keeps a file without line ends from being read into memory whole.
    public static let maximumLineBytes = 4096

    /// The device description and format version; `events` is empty.
    public let header: EvemuRecording
    /// The first event's time, read with the header (nil for a recording without events).
    public let firstEventTime: TimeStamp?
    /// The last event handed out by `next`.
    public private(set) var lastEventTime: TimeStamp?

    private var parser: EvemuParser
    private let nextLine: NextLine
    private var lineNumber = 0
    private var pending: InputEvent?
    private var finished = false

    /// Reads the header and the first event; throws the first malformed line.
    public init(file: String, nextLine: @escaping NextLine) throws(RecordingError) {
        self.parser = EvemuParser(file: file)
        self.nextLine = nextLine
        var first: InputEvent?
        while first == nil, let line = try nextLine() {
            lineNumber += 1
            first = try parser.parseLine(line, number: lineNumber)
        }
        if first == nil {
            try parser.finish(lastLine: lineNumber)
            finished = true
        }
        header = parser.header
        pending = first
        firstEventTime = first?.time
    }

    /// A reader over text already in memory (tests, generated recordings).
    public init(text: String, file: String) throws(RecordingError) {
        var lines = EvemuLineSplitter(text: text, file: file)
        try self.init(file: file) { () throws(RecordingError) -> String? in try lines.next() }
    }

    /// The next event, or nil at the end of the file; throws at a malformed line.
    public mutating func next() throws(RecordingError) -> InputEvent? {
        if let event = pending {
            pending = nil
            lastEventTime = event.time
            return event
        }
        while !finished {
            guard let line = try nextLine() else {
                finished = true
                try parser.finish(lastLine: lineNumber)
                return nil
            }
            lineNumber += 1
            if let event = try parser.parseLine(line, number: lineNumber) {
                lastEventTime = event.time
                return event
            }
        }
        return nil
    }
}

/// Cuts bytes into lines the way recordings are read: on LF, dropping a CR before it (Swift
/// treats CR LF as one `Character`, so splitting a `String` would miss Windows line ends),
/// and refusing lines longer than `EvemuReader.maximumLineBytes`.
public struct EvemuLineSplitter {
    private let bytes: [UInt8]
    private var position = 0
    private var lineNumber = 0
    private let file: String

    /// Splits `text`; `file` names it in errors.
    public init(text: String, file: String) {
        self.bytes = Array(text.utf8)
        self.file = file
    }

    /// The next line, nil at the end.
    public mutating func next() throws(RecordingError) -> String? {
        guard position < bytes.count else { return nil }
        lineNumber += 1
        let start = position
        var end = start
        while end < bytes.count && bytes[end] != 0x0A { end += 1 }
        position = end + 1
        return try Self.line(bytes[start..<end], number: lineNumber, file: file)
    }

    /// One line's bytes as text: the CR before its LF dropped, the length checked.
    public static func line(_ raw: ArraySlice<UInt8>, number: Int, file: String) throws(RecordingError) -> String {
        var content = raw
        if content.last == 0x0D { content = content.dropLast() }
        guard content.count <= EvemuReader.maximumLineBytes else { throw tooLong(number: number, file: file) }
        return String(decoding: content, as: UTF8.self)
    }

    /// The error for a line over the limit.
    public static func tooLong(number: Int, file: String) -> RecordingError {
        RecordingError(file: file, line: number,
                       message: "expected a line of at most \(EvemuReader.maximumLineBytes) bytes, got a longer one")
    }
}
