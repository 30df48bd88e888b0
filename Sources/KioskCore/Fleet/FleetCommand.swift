/// A command from one of the node's `PREFIX/.../set` topics, validated: what Home Assistant's
/// light, number, switch and buttons send.
public enum FleetCommand: Equatable, Sendable {
    /// Wake (`ON`) or sleep (`OFF`) the display.
    case display(on: Bool)
    /// 0-255.
    case brightness(Int)
    /// 0-100.
    case volume(Int)
    case touchTest(on: Bool)
    case reload
    /// The operator reset.
    case restart
    case screenshot

    /// The command topics, after `PREFIX/`.
    public enum Topic: String, Sendable, CaseIterable {
        case display = "display/set"
        case brightness = "brightness/set"
        case volume = "volume/set"
        case touchTest = "touch_test/set"
        case reload = "reload/set"
        case restart = "restart/set"
        case screenshot = "screenshot/set"
    }

    /// Payloads longer than this are refused unread: every valid one is a few bytes.
    public static let maximumPayloadBytes = 64

    /// The line for a retained message on a command topic, which is never carried out: the
    /// broker hands it to every new connection, so a retained `restart` would restart the kiosk
    /// at every start. Says how to clear it.
    public static func retainedRefusal(topic: String) -> String {
        let shown = echoed(topic, limit: 200)
        return "\(shown): a retained message, not carried out (commands are never retained: the broker would repeat it "
            + "at every connection); clear it with: mosquitto_pub -r -n -t '\(shown)'"
    }

    /// The line for a message too large for any command, dropped unread.
    public static func oversizedRefusal(topic: String, bytes: Int) -> String {
        "\(echoed(topic, limit: 200)): a message of \(bytes) bytes dropped unread (no command is longer than \(maximumPayloadBytes) bytes)"
    }

    /// Why a message was not taken; `description` is the log line's text.
    public struct Refusal: Error, Equatable, Sendable, CustomStringConvertible {
        public enum Reason: Equatable, Sendable {
            case unknownTopic
            /// An empty message: how a retained one is cleared, never a command.
            case empty
            case tooLong(bytes: Int)
            case notOnOff
            case notAWholeNumber
            case outOfRange(ClosedRange<Int>)
        }

        /// The topic as received, shortened and escaped.
        public let topic: String
        public let reason: Reason
        /// The payload, shortened and escaped (no control characters), for the log line.
        public let payload: String

        public var description: String {
            let why: String
            switch reason {
            case .unknownTopic: why = "no such command"
            case .empty: return "\(topic): ignored an empty message (how a retained one is cleared; a button takes PRESS)"
            case .tooLong(let bytes): why = "\(bytes) bytes, at most \(FleetCommand.maximumPayloadBytes)"
            case .notOnOff: why = "not ON or OFF"
            case .notAWholeNumber: why = "not a whole number"
            case .outOfRange(let r): why = "not from \(r.lowerBound) to \(r.upperBound)"
            }
            return "\(topic): ignored '\(payload)': \(why)"
        }
    }

    /// The command for a message on `PREFIX/<suffix>`. Payloads are trimmed; ON and OFF in any
    /// case; numbers are decimal digits only; the buttons take any payload but an empty one (Home
    /// Assistant sends `PRESS`; an empty message is what clears a retained one, which must not
    /// restart the kiosk).
    public static func parse(topic suffix: String, payload: [UInt8]) -> Result<FleetCommand, Refusal> {
        func refuse(_ reason: Refusal.Reason) -> Result<FleetCommand, Refusal> {
            .failure(Refusal(topic: echoed(suffix, limit: 40), reason: reason, payload: echo(payload)))
        }
        guard let topic = Topic(rawValue: suffix) else { return refuse(.unknownTopic) }
        guard !payload.isEmpty else { return refuse(.empty) }
        guard payload.count <= maximumPayloadBytes else { return refuse(.tooLong(bytes: payload.count)) }
        let text = trimmed(payload)
        func onOff(_ make: (Bool) -> FleetCommand) -> Result<FleetCommand, Refusal> {
            switch lowercasedASCII(text) {
            case Array("on".utf8): return .success(make(true))
            case Array("off".utf8): return .success(make(false))
            default: return refuse(.notOnOff)
            }
        }
        func number(_ range: ClosedRange<Int>, _ make: (Int) -> FleetCommand) -> Result<FleetCommand, Refusal> {
            guard let n = wholeNumber(text) else { return refuse(.notAWholeNumber) }
            guard let value = n, range.contains(value) else { return refuse(.outOfRange(range)) }
            return .success(make(value))
        }
        switch topic {
        case .display: return onOff { .display(on: $0) }
        case .touchTest: return onOff { .touchTest(on: $0) }
        case .brightness: return number(0...255) { .brightness($0) }
        case .volume: return number(0...100) { .volume($0) }
        case .reload: return .success(.reload)
        case .restart: return .success(.restart)
        case .screenshot: return .success(.screenshot)
        }
    }

    /// The topic this command comes on.
    public var topic: Topic {
        switch self {
        case .display: .display
        case .brightness: .brightness
        case .volume: .volume
        case .touchTest: .touchTest
        case .reload: .reload
        case .restart: .restart
        case .screenshot: .screenshot
        }
    }

    /// Spaces, tabs and line ends around the payload (a `mosquitto_pub -l` or `echo` adds them).
    static func trimmed(_ bytes: [UInt8]) -> ArraySlice<UInt8> {
        let space: (UInt8) -> Bool = { $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }
        guard let first = bytes.firstIndex(where: { !space($0) }),
              let last = bytes.lastIndex(where: { !space($0) }) else { return [] }
        return bytes[first...last]
    }

    static func lowercasedASCII(_ bytes: ArraySlice<UInt8>) -> [UInt8] {
        bytes.map { (0x41...0x5A).contains($0) ? $0 | 0x20 : $0 }
    }

    /// Decimal digits with an optional sign: nil when it is not that; `.some(nil)` when it is,
    /// but too large for an Int (so it is out of range, not garbage).
    static func wholeNumber(_ bytes: ArraySlice<UInt8>) -> Int?? {
        var digits = bytes[...]
        var negative = false
        if let sign = digits.first, sign == UInt8(ascii: "-") || sign == UInt8(ascii: "+") {
            negative = sign == UInt8(ascii: "-")
            digits = digits.dropFirst()
        }
        guard !digits.isEmpty, digits.allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
        var value = 0
        for d in digits {
            let (times10, o1) = value.multipliedReportingOverflow(by: 10)
            let (sum, o2) = times10.addingReportingOverflow(Int(d - 0x30))
            if o1 || o2 { return .some(nil) }
            value = sum
        }
        return .some(negative ? -value : value)
    }

    /// The payload for a log line: at most a few dozen characters, invalid UTF-8 shown as U+FFFD
    /// and control characters escaped by `echoed`.
    static func echo(_ payload: [UInt8]) -> String {
        echoed(String(decoding: payload.prefix(maximumPayloadBytes), as: UTF8.self), limit: 32)
    }
}

/// Whether a command message may be handled now: at most `perSecond` a second on each topic
/// (any unknown topic counting as one more; reload, restart and screenshot once a second), so a flood from a broken client or a retained
/// loop costs a count, not a frame. A message over the limit is dropped, not queued; the log
/// is told once per spell of drops (a spell ends when a message is taken again).
public struct FleetCommandLimiter: Sendable {
    /// 10 a second: far more than a person on a dashboard, little work for the loop.
    public static let defaultPerSecond = 10
    public static let window = Duration.seconds(1)

    public let perSecond: Int
    /// Nil stands for every topic that is no command's, so garbage topics need no memory each.
    private var taken = WindowedCounts<FleetCommand.Topic?>(window: FleetCommandLimiter.window)
    private var spells: [FleetCommand.Topic?: RateLimitedLog] = [:]
    private var dropped: [FleetCommand.Topic?: Int] = [:]

    /// Commands that end the process or cost real work on the loop (reading the config, taking
    /// a screen's picture): one a second is all a person can mean.
    public static let oncePerSecond: Set<FleetCommand.Topic> = [.reload, .restart, .screenshot]

    public init(perSecond: Int = defaultPerSecond) { self.perSecond = max(perSecond, 1) }

    /// Messages a second taken on `topic`.
    public func limit(for topic: FleetCommand.Topic?) -> Int {
        if let topic, Self.oncePerSecond.contains(topic) { return 1 }
        return perSecond
    }

    /// Decides on a message on `topic` (nil: no command topic) at `time`. `log` is true for
    /// the first drop of a spell.
    public mutating func admit(_ topic: FleetCommand.Topic?, at time: TimeStamp) -> (admitted: Bool, log: Bool) {
        if taken.count(topic, at: time) >= limit(for: topic) {
            dropped[topic, default: 0] += 1
            return (false, spells[topic, default: RateLimitedLog()].noteFirst())
        }
        taken.note(topic, at: time)
        spells[topic]?.reset()
        return (true, false)
    }

    /// Messages on `topic` dropped since the start.
    public func droppedCount(_ topic: FleetCommand.Topic?) -> Int { dropped[topic] ?? 0 }
}
