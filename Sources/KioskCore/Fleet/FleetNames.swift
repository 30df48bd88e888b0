/// The MQTT names of one kiosk: its node id, its topic prefix and the topics under it.
/// These topic names are a contract with operators' brokers and automations: change none lightly.
public struct FleetNames: Equatable, Sendable {
    /// The node id used when the host name leaves nothing usable.
    public static let fallbackNodeID = "bubble-kiosk"
    /// Long enough for any sane host name, short enough to keep topics and entity ids readable.
    public static let maxNodeIDLength = 64
    /// Home Assistant's own default; an empty discovery prefix turns discovery off.
    public static let defaultDiscoveryPrefix = "homeassistant"
    /// Bytes; leaves room for the longest suffix within any broker's topic limit.
    public static let maxPrefixLength = 200
    /// Payloads of the availability topic (`online` retained, `offline` as the last will).
    public static let payloadOnline = "online"
    public static let payloadOffline = "offline"

    public let nodeID: String
    public let topicPrefix: String

    /// `topicPrefix` nil means the default `bubble-kiosk/NODE_ID`.
    /// Each command topic, whole: a message's topic is looked up once, not rebuilt per message.
    private let commandsByTopic: [String: FleetCommand.Topic]

    public init(nodeID: String, topicPrefix: String? = nil) {
        self.nodeID = nodeID
        let prefix = topicPrefix ?? FleetNames.defaultTopicPrefix(nodeID: nodeID)
        self.topicPrefix = prefix
        commandsByTopic = Dictionary(uniqueKeysWithValues: FleetCommand.Topic.allCases.map { (prefix + "/" + $0.rawValue, $0) })
    }

    /// The node id from a host name: ASCII letters lowercased, digits, `_` and `-` kept,
    /// anything else one `_` per Unicode scalar, so the same host always gives the same id and
    /// Home Assistant (which accepts `[a-zA-Z0-9_-]` there) takes it as is.
    public static func nodeID(fromHostName host: String) -> String {
        var id = ""
        for scalar in host.unicodeScalars.prefix(maxNodeIDLength) {
            switch scalar {
            case "a"..."z", "0"..."9", "_", "-": id.unicodeScalars.append(scalar)
            case "A"..."Z": id.unicodeScalars.append(Unicode.Scalar(scalar.value + 32)!)
            default: id += "_"
            }
        }
        return id.isEmpty ? fallbackNodeID : id
    }

    public static func defaultTopicPrefix(nodeID: String) -> String {
        "bubble-kiosk/" + nodeID
    }

    public var availabilityTopic: String { topicPrefix + "/availability" }
    /// The retained JSON state object.
    public var stateTopic: String { topicPrefix + "/state" }
    /// One JSON object per game event, not retained.
    public var eventTopic: String { topicPrefix + "/event" }
    /// The PNG of the screen, retained.
    public var screenshotTopic: String { topicPrefix + "/screenshot" }
    /// The latest touch as an ISO 8601 UTC time, retained, sent once there was one: Home
    /// Assistant's timestamp sensor reads it, which warns about the state's `null`.
    public var lastTouchTopic: String { topicPrefix + "/last_touch" }

    /// `PREFIX/NAME/set` for one of the command topics (`FleetCommand.Topic`).
    public func commandTopic(_ command: FleetCommand.Topic) -> String {
        topicPrefix + "/" + command.rawValue
    }

    /// Every command topic, in declaration order: what the connection subscribes to.
    public var commandTopics: [String] { FleetCommand.Topic.allCases.map(commandTopic) }

    /// Which command a received topic is; nil for anything that is not exactly one of ours,
    /// so a message on a neighbour's topic is never taken as a command.
    public func command(forTopic topic: String) -> FleetCommand.Topic? {
        commandsByTopic[topic]
    }

    /// What is wrong with a configured topic prefix, or nil when it can be used.
    /// Wildcards would make our publishes invalid and our subscriptions too wide; `$` topics are
    /// the broker's own; empty levels are legal MQTT but always a typo in a config.
    public static func topicPrefixProblem(_ prefix: String) -> String? {
        if prefix.isEmpty { return "is empty" }
        if prefix.utf8.count > maxPrefixLength {
            return "is longer than \(maxPrefixLength) bytes"
        }
        if prefix.hasPrefix("$") { return "starts with $ (topics reserved for the broker)" }
        for scalar in prefix.unicodeScalars {
            switch scalar {
            case "+", "#": return "contains the wildcard \(scalar)"
            case "\u{0}": return "contains a NUL character"
            default:
                if scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) {
                    return "contains a control character"
                }
            }
        }
        if prefix.split(separator: "/", omittingEmptySubsequences: false).contains(where: \.isEmpty) {
            return "has an empty level (a leading, trailing or double /)"
        }
        return nil
    }

    /// As `topicPrefixProblem`, except that empty is fine: it turns discovery off.
    public static func discoveryPrefixProblem(_ prefix: String) -> String? {
        prefix.isEmpty ? nil : topicPrefixProblem(prefix)
    }
}
