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

    public var description: String { "\(file):\(line): \(message)" }
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
        var parser = EvemuParser(file: file)
        return try parser.parse(text)
    }
}
