import KioskCore
import Testing

/// MQTT names and Home Assistant discovery: the topics are a contract, so they are checked exactly.
struct FleetDiscoveryTests {
    static let names = FleetNames(nodeID: "lobby-1")
    /// A kiosk with a backlight: every entity with every key.
    static let discovery = HomeAssistantDiscovery(
        names: names, discoveryPrefix: "homeassistant", softwareVersion: "1.4.0", model: "Bubble kiosk", hasBacklight: true)

    /// The fields of the retained state object (issue 18); templates may read only these.
    static let stateFields: Set<String> = [
        "screen", "mode", "score", "display", "brightness", "volume", "rounds_today", "high_score",
        "last_touch", "touchscreens", "version", "uptime_s",
    ]

    // MARK: - Node id

    @Test(arguments: [
        ("kiosk-1", "kiosk-1"),
        ("Lobby-Kiosk", "lobby-kiosk"),
        ("kiosk.example.com", "kiosk_example_com"),
        ("Küche", "k_che"),
        ("café 2", "caf__2"),
        ("kiosk_😀", "kiosk__"),
        ("", "bubble-kiosk"),
    ])
    func nodeIDFromHostName(host: String, expected: String) {
        #expect(FleetNames.nodeID(fromHostName: host) == expected)
    }

    @Test func nodeIDIsBoundedAndOnlyUsesTheAllowedCharacters() {
        let long = String(repeating: "Ab.", count: 100)
        let id = FleetNames.nodeID(fromHostName: long)
        #expect(id.count == FleetNames.maxNodeIDLength)
        #expect(id.hasPrefix("ab_ab_"))
        for host in [long, "ÄÖÜ/+#\u{0}\t", "İstanbul", "x y"] {
            let reduced = FleetNames.nodeID(fromHostName: host)
            #expect(reduced.unicodeScalars.allSatisfy { s in
                ("a"..."z").contains(s) || ("0"..."9").contains(s) || s == "_" || s == "-"
            }, "\(host) -> \(reduced)")
        }
    }

    // MARK: - Topics

    @Test func defaultTopicsUnderTheDefaultPrefix() {
        let n = Self.names
        #expect(n.topicPrefix == "bubble-kiosk/lobby-1")
        #expect(n.availabilityTopic == "bubble-kiosk/lobby-1/availability")
        #expect(n.stateTopic == "bubble-kiosk/lobby-1/state")
        #expect(n.eventTopic == "bubble-kiosk/lobby-1/event")
        #expect(n.screenshotTopic == "bubble-kiosk/lobby-1/screenshot")
        #expect(n.commandTopics == [
            "bubble-kiosk/lobby-1/display/set",
            "bubble-kiosk/lobby-1/brightness/set",
            "bubble-kiosk/lobby-1/volume/set",
            "bubble-kiosk/lobby-1/touch_test/set",
            "bubble-kiosk/lobby-1/reload/set",
            "bubble-kiosk/lobby-1/restart/set",
            "bubble-kiosk/lobby-1/screenshot/set",
        ])
    }

    @Test func aConfiguredPrefixIsUsedAsIs() {
        let n = FleetNames(nodeID: "lobby-1", topicPrefix: "site/b2/kiosks/lobby")
        #expect(n.stateTopic == "site/b2/kiosks/lobby/state")
        #expect(n.commandTopic(.touchTest) == "site/b2/kiosks/lobby/touch_test/set")
    }

    @Test func commandForTopicIsExact() {
        let n = Self.names
        for command in FleetCommand.Topic.allCases {
            #expect(n.command(forTopic: n.commandTopic(command)) == command)
        }
        #expect(n.command(forTopic: "bubble-kiosk/lobby-2/display/set") == nil)
        #expect(n.command(forTopic: "bubble-kiosk/lobby-1/display/set/") == nil)
        #expect(n.command(forTopic: "bubble-kiosk/lobby-1/display") == nil)
        #expect(n.command(forTopic: "bubble-kiosk/lobby-1/state") == nil)
    }

    // MARK: - Prefix validation

    @Test(arguments: ["bubble-kiosk/lobby-1", "a", "site/b2/kiosk", "küche/kiosk", "with space/x"])
    func goodPrefixes(prefix: String) {
        #expect(FleetNames.topicPrefixProblem(prefix) == nil)
        #expect(FleetNames.discoveryPrefixProblem(prefix) == nil)
    }

    @Test(arguments: [
        ("", "is empty"),
        ("a/+/b", "contains the wildcard +"),
        ("a/#", "contains the wildcard #"),
        ("a\u{0}b", "contains a NUL character"),
        ("a\nb", "contains a control character"),
        ("/a", "has an empty level (a leading, trailing or double /)"),
        ("a/", "has an empty level (a leading, trailing or double /)"),
        ("a//b", "has an empty level (a leading, trailing or double /)"),
        ("$SYS/x", "starts with $ (topics reserved for the broker)"),
        (String(repeating: "a", count: 201), "is longer than 200 bytes"),
    ])
    func badPrefixes(prefix: String, problem: String) {
        #expect(FleetNames.topicPrefixProblem(prefix) == problem)
    }

    @Test func anEmptyDiscoveryPrefixTurnsDiscoveryOff() {
        #expect(FleetNames.discoveryPrefixProblem("") == nil)
        #expect(FleetNames.discoveryPrefixProblem("ha/#") == "contains the wildcard #")
        let off = HomeAssistantDiscovery(names: Self.names, discoveryPrefix: "", softwareVersion: "1", model: "m")
        #expect(off.configs.isEmpty)
        #expect(off.statusTopic == nil)
        #expect(Self.discovery.statusTopic == "homeassistant/status")
    }

    @Test func aLongestPrefixStillGivesShortTopics() {
        let prefix = String(repeating: "p", count: FleetNames.maxPrefixLength)
        #expect(FleetNames.topicPrefixProblem(prefix) == nil)
        let n = FleetNames(nodeID: "x", topicPrefix: prefix)
        #expect((n.commandTopics + [n.availabilityTopic, n.screenshotTopic]).allSatisfy { $0.utf8.count < 256 })
    }

    // MARK: - Discovery

    @Test func everyDiscoveryTopicExactly() {
        #expect(Self.discovery.configs.map(\.topic) == [
            "homeassistant/light/lobby-1/display/config",
            "homeassistant/number/lobby-1/volume/config",
            "homeassistant/button/lobby-1/reload/config",
            "homeassistant/button/lobby-1/restart/config",
            "homeassistant/button/lobby-1/take_screenshot/config",
            "homeassistant/switch/lobby-1/touch_test/config",
            "homeassistant/sensor/lobby-1/screen/config",
            "homeassistant/sensor/lobby-1/score/config",
            "homeassistant/sensor/lobby-1/rounds_today/config",
            "homeassistant/sensor/lobby-1/high_score/config",
            "homeassistant/sensor/lobby-1/last_touch/config",
            "homeassistant/binary_sensor/lobby-1/touchscreen/config",
            "homeassistant/camera/lobby-1/screenshot/config",
        ])
    }

    @Test func everyConfigHasAUniqueIDAvailabilityAndTheSameDevice() throws {
        let configs = Self.discovery.configs
        var uniqueIDs: [String] = []
        for config in configs {
            let keys = try #require(Self.keys(config.payload))
            #expect(Set(keys).count == keys.count, "duplicate key in \(config.topic)")
            let objectID = config.topic.split(separator: "/")[3]
            #expect(Self.value(config.payload, "unique_id") == .string("lobby-1_\(objectID)"))
            #expect(Self.value(config.payload, "name") != nil)
            #expect(Self.value(config.payload, "availability_topic") == .string("bubble-kiosk/lobby-1/availability"))
            #expect(Self.value(config.payload, "payload_available") == .string("online"))
            #expect(Self.value(config.payload, "payload_not_available") == .string("offline"))
            #expect(Self.value(config.payload, "device") == Self.discovery.device)
            if case .string(let id) = Self.value(config.payload, "unique_id") { uniqueIDs.append(id) }
        }
        #expect(uniqueIDs.count == configs.count)
        #expect(Set(uniqueIDs).count == uniqueIDs.count)
        #expect(Self.discovery.device.text == #"{"identifiers":["bubble-kiosk_lobby-1"],"name":"lobby-1","#
            + #""model":"Bubble kiosk","manufacturer":"bubble-kiosk","sw_version":"1.4.0"}"#)
    }

    /// The keys each component needs, as Home Assistant's MQTT integration documents them.
    static let requiredKeys: [String: [String]] = [
        "light": ["command_topic", "state_topic", "state_value_template", "payload_on", "payload_off",
                  "brightness_command_topic", "brightness_state_topic", "brightness_value_template",
                  "brightness_scale"],
        "number": ["command_topic", "state_topic", "value_template", "min", "max", "step"],
        "button": ["command_topic"],
        "switch": ["command_topic", "state_topic", "value_template", "payload_on", "payload_off"],
        "sensor": ["state_topic"],
        "binary_sensor": ["state_topic", "value_template", "payload_on", "payload_off"],
        "camera": ["topic"],
    ]

    @Test func eachComponentHasItsKeys() throws {
        for config in Self.discovery.configs {
            let component = String(config.topic.split(separator: "/")[1])
            let required = try #require(Self.requiredKeys[component], "unexpected component \(component)")
            let keys = Set(try #require(Self.keys(config.payload)))
            #expect(Set(required).isSubset(of: keys), "\(config.topic) lacks \(Set(required).subtracting(keys))")
        }
    }

    @Test func commandAndStateTopicsAreTheNodesOwn() {
        let n = Self.names
        var commandTopicsUsed: Set<String> = []
        for config in Self.discovery.configs {
            guard case .object(let pairs) = config.payload else { continue }
            for (key, value) in pairs where key.hasSuffix("topic") {
                guard case .string(let topic) = value else { Issue.record("\(key) not a string"); continue }
                if key.hasSuffix("command_topic") {
                    #expect(n.commandTopics.contains(topic), "\(config.topic) \(key) = \(topic)")
                    commandTopicsUsed.insert(topic)
                } else if key.hasSuffix("state_topic") {
                    // The state object, but for the last touch, which has a topic of its own.
                    #expect(topic == (config.topic.hasSuffix("/last_touch/config") ? n.lastTouchTopic : n.stateTopic))
                }
            }
        }
        // every command the kiosk takes has an entity that sends it (brightness with a backlight)
        #expect(commandTopicsUsed == Set(n.commandTopics))
        #expect(Self.value(Self.discovery.configs.last!.payload, "topic") == .string(n.screenshotTopic))
    }

    @Test func templatesReadOnlyStateFields() {
        for config in Self.discovery.configs {
            guard case .object(let pairs) = config.payload else { continue }
            for (key, value) in pairs where key.hasSuffix("template") {
                guard case .string(let template) = value else { continue }
                let fields = Self.fieldsRead(by: template)
                #expect(!fields.isEmpty, "\(config.topic) \(key)")
                #expect(fields.isSubset(of: Self.stateFields), "\(config.topic) reads \(fields)")
            }
        }
        #expect(HomeAssistantDiscovery.template("score") == "{{ value_json.score }}")
    }

    @Test func theLightAndTheTimestampInFull() {
        let configs = Self.discovery.configs
        let device = Self.discovery.device.text
        let common = #""availability_topic":"bubble-kiosk/lobby-1/availability","#
            + #""payload_available":"online","payload_not_available":"offline","device":"# + device
        #expect(configs[0].payload.text == #"{"name":"Display","unique_id":"lobby-1_display","# + common
            + #","command_topic":"bubble-kiosk/lobby-1/display/set","state_topic":"bubble-kiosk/lobby-1/state","#
            + #""state_value_template":"{{ 'ON' if value_json.display == 'on' else 'OFF' }}","#
            + #""payload_on":"ON","payload_off":"OFF","#
            + #""brightness_command_topic":"bubble-kiosk/lobby-1/brightness/set","#
            + #""brightness_state_topic":"bubble-kiosk/lobby-1/state","#
            + #""brightness_value_template":"{{ value_json.brightness if value_json.brightness is not none else '' }}","#
            + #""brightness_scale":255}"#)
        #expect(configs[10].topic == "homeassistant/sensor/lobby-1/last_touch/config")
        #expect(Self.value(configs[10].payload, "device_class") == .string("timestamp"))
        #expect(Self.value(configs[10].payload, "state_topic") == .string("bubble-kiosk/lobby-1/last_touch"))
        #expect(Self.value(configs[10].payload, "value_template") == nil, "the topic says the time, or nothing")
        #expect(Self.value(configs[8].payload, "state_class") == .string("total_increasing"), "rounds today starts again at midnight")
        #expect(Self.value(configs[1].payload, "max") == .int(100))
    }

    /// Without a backlight the light is only on and off: a brightness slider would do nothing.
    @Test func noBrightnessWithoutABacklight() throws {
        let plain = HomeAssistantDiscovery(names: Self.names, discoveryPrefix: "homeassistant", softwareVersion: "1.4.0",
                                           model: "Bubble kiosk", hasBacklight: false)
        let light = try #require(plain.configs.first)
        let keys = Set(try #require(Self.keys(light.payload)))
        #expect(keys.isDisjoint(with: ["brightness_command_topic", "brightness_state_topic", "brightness_value_template", "brightness_scale"]))
        #expect(keys.isSuperset(of: ["command_topic", "state_topic", "state_value_template", "payload_on", "payload_off"]))
        #expect(!plain.configs.contains { $0.payload.text.contains("/brightness/set") })
        #expect(plain.configs.count == Self.discovery.configs.count)
    }

    @Test func aCustomDiscoveryPrefixAndNodeID() {
        let d = HomeAssistantDiscovery(names: FleetNames(nodeID: "k_2", topicPrefix: "b2/k"),
                                       discoveryPrefix: "ha/disc", softwareVersion: "2", model: "m")
        #expect(d.configs.first?.topic == "ha/disc/light/k_2/display/config")
        #expect(Self.value(d.configs[0].payload, "command_topic") == .string("b2/k/display/set"))
    }

    // MARK: - Helpers

    static func keys(_ json: JSON) -> [String]? {
        guard case .object(let pairs) = json else { return nil }
        return pairs.map(\.0)
    }

    static func value(_ json: JSON, _ key: String) -> JSON? {
        guard case .object(let pairs) = json else { return nil }
        return pairs.first { $0.0 == key }?.1
    }

    /// The names after each `value_json.` in a template.
    static func fieldsRead(by template: String) -> Set<String> {
        var fields: Set<String> = []
        var rest = Substring(template)
        while let range = rest.firstRange(of: "value_json.") {
            rest = rest[range.upperBound...]
            let name = rest.prefix { $0.isLetter || $0.isNumber || $0 == "_" }
            fields.insert(String(name))
        }
        return fields
    }
}
