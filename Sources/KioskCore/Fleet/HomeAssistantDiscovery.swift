/// One Home Assistant discovery message: the caller publishes `payload.text` to `topic`, retained.
public struct DiscoveryConfig: Equatable, Sendable {
    public let topic: String
    public let payload: JSON

    public init(topic: String, payload: JSON) {
        self.topic = topic
        self.payload = payload
    }
}

/// The Home Assistant discovery configs that make one kiosk appear as a device with entities.
/// Full key names rather than abbreviations: the payloads are read by people debugging a broker.
public struct HomeAssistantDiscovery: Sendable {
    public let names: FleetNames
    /// Empty means discovery is off and `configs` is empty.
    public let discoveryPrefix: String
    public let softwareVersion: String
    public let model: String
    /// The kiosk drives a backlight: only then does the display's light offer brightness, which
    /// would do nothing otherwise.
    public var hasBacklight: Bool

    public static let manufacturer = "bubble-kiosk"

    public init(names: FleetNames, discoveryPrefix: String, softwareVersion: String, model: String, hasBacklight: Bool = false) {
        self.names = names
        self.discoveryPrefix = discoveryPrefix
        self.softwareVersion = softwareVersion
        self.model = model
        self.hasBacklight = hasBacklight
    }

    /// Where Home Assistant announces itself (`online`): all configs are sent again then, since
    /// a restarted Home Assistant may have lost what it had not stored.
    public var statusTopic: String? { discoveryPrefix.isEmpty ? nil : discoveryPrefix + "/status" }

    /// Whether a message on `statusTopic` says Home Assistant came online (`online`, spaces
    /// and line ends around it allowed); `offline` and anything else ask for nothing.
    public static func saysOnline(_ payload: [UInt8]) -> Bool {
        FleetCommand.trimmed(payload).elementsEqual("online".utf8)
    }

    /// `DISCOVERY/COMPONENT/NODE_ID/OBJECT_ID/config`.
    public func topic(component: String, objectID: String) -> String {
        discoveryPrefix + "/" + component + "/" + names.nodeID + "/" + objectID + "/config"
    }

    /// The same block in every config, so Home Assistant groups the entities under one device.
    public var device: JSON {
        .object([
            ("identifiers", .array([.string(HomeAssistantDiscovery.manufacturer + "_" + names.nodeID)])),
            ("name", .string(names.nodeID)),
            ("model", .string(model)),
            ("manufacturer", .string(HomeAssistantDiscovery.manufacturer)),
            ("sw_version", .string(softwareVersion)),
        ])
    }

    /// Every config, in a fixed order; empty when discovery is off.
    public var configs: [DiscoveryConfig] {
        if discoveryPrefix.isEmpty { return [] }
        return [
            display, volume,
            button("reload", "Reload config", .reload),
            button("restart", "Restart", .restart),
            button("take_screenshot", "Take screenshot", .screenshot),
            touchTest,
            sensor("screen", "Screen", field: "screen"),
            sensor("score", "Score", field: "score"),
            // A count that starts again at midnight: a fall to 0 is a new cycle, not a loss.
            sensor("rounds_today", "Rounds today", field: "rounds_today", extra: [("state_class", .string("total_increasing"))]),
            sensor("high_score", "High score", field: "high_score"),
            lastTouch,
            touchscreen, screenshot,
        ]
    }

    // MARK: - Entities

    /// The display as a light: on/off is wake/sleep, brightness the backlight (0-255) where the
    /// kiosk drives one.
    private var display: DiscoveryConfig {
        let onOff: [(String, JSON)] = [
            ("command_topic", .string(names.commandTopic(.display))),
            ("state_topic", .string(names.stateTopic)),
            ("state_value_template", .string("{{ 'ON' if value_json.display == 'on' else 'OFF' }}")),
            ("payload_on", .string("ON")),
            ("payload_off", .string("OFF")),
        ]
        guard hasBacklight else { return entity("light", "display", "Display", onOff) }
        return entity("light", "display", "Display", onOff + [
            ("brightness_command_topic", .string(names.commandTopic(.brightness))),
            ("brightness_state_topic", .string(names.stateTopic)),
            // brightness turns null when the backlight fails later; an empty value is ignored, "None" is not
            ("brightness_value_template", .string(
                "{{ value_json.brightness if value_json.brightness is not none else '' }}")),
            ("brightness_scale", .int(255)),
        ])
    }

    /// The latest touch from its own topic: Home Assistant's timestamp sensors warn about a
    /// null (2024.3 to 2024.9 at least), and the topic says nothing until there was a touch.
    private var lastTouch: DiscoveryConfig {
        entity("sensor", "last_touch", "Last touch", [
            ("state_topic", .string(names.lastTouchTopic)),
            ("device_class", .string("timestamp")),
        ])
    }

    private var volume: DiscoveryConfig {
        entity("number", "volume", "Volume", [
            ("command_topic", .string(names.commandTopic(.volume))),
            ("state_topic", .string(names.stateTopic)),
            ("value_template", .string(HomeAssistantDiscovery.template("volume"))),
            ("min", .int(0)),
            ("max", .int(100)),
            ("step", .int(1)),
            ("unit_of_measurement", .string("%")),
        ])
    }

    private func button(_ objectID: String, _ name: String, _ command: FleetCommand.Topic) -> DiscoveryConfig {
        entity("button", objectID, name, [("command_topic", .string(names.commandTopic(command)))])
    }

    private var touchTest: DiscoveryConfig {
        entity("switch", "touch_test", "Touch test", [
            ("command_topic", .string(names.commandTopic(.touchTest))),
            ("state_topic", .string(names.stateTopic)),
            ("value_template", .string("{{ 'ON' if value_json.screen == 'touch_test' else 'OFF' }}")),
            ("payload_on", .string("ON")),
            ("payload_off", .string("OFF")),
        ])
    }

    private func sensor(_ objectID: String, _ name: String, field: String,
                        extra: [(String, JSON)] = []) -> DiscoveryConfig {
        entity("sensor", objectID, name, [
            ("state_topic", .string(names.stateTopic)),
            ("value_template", .string(HomeAssistantDiscovery.template(field))),
        ] + extra)
    }

    private var touchscreen: DiscoveryConfig {
        entity("binary_sensor", "touchscreen", "Touchscreen", [
            ("state_topic", .string(names.stateTopic)),
            ("value_template", .string("{{ 'ON' if value_json.touchscreens > 0 else 'OFF' }}")),
            ("payload_on", .string("ON")),
            ("payload_off", .string("OFF")),
            ("device_class", .string("connectivity")),
        ])
    }

    /// The camera shows the last PNG published (retained) on the screenshot topic.
    private var screenshot: DiscoveryConfig {
        entity("camera", "screenshot", "Screenshot", [("topic", .string(names.screenshotTopic))])
    }

    // MARK: - Shared parts

    /// `{{ value_json.FIELD }}`: a field of the JSON state object.
    public static func template(_ field: String) -> String { "{{ value_json." + field + " }}" }

    /// The keys every entity shares, first, then the component's own.
    private func entity(_ component: String, _ objectID: String, _ name: String,
                        _ keys: [(String, JSON)]) -> DiscoveryConfig {
        let common: [(String, JSON)] = [
            ("name", .string(name)),
            ("unique_id", .string(names.nodeID + "_" + objectID)),
            ("availability_topic", .string(names.availabilityTopic)),
            ("payload_available", .string(FleetNames.payloadOnline)),
            ("payload_not_available", .string(FleetNames.payloadOffline)),
            ("device", device),
        ]
        return DiscoveryConfig(topic: topic(component: component, objectID: objectID),
                               payload: .object(common + keys))
    }
}
