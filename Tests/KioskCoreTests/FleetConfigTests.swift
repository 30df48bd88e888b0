import Testing
import KioskCore
import KioskTestSupport

/// `[mqtt]`: the broker's address, the keys' checks, the refused inline password, and the
/// rounds-today count.
@Suite struct FleetConfigTests {
    @Test func brokerAddresses() throws {
        #expect(try MQTTBroker.parse("mqtt://broker.lan").get() == MQTTBroker(host: "broker.lan", port: 1883, tls: false))
        #expect(try MQTTBroker.parse("mqtts://broker.lan").get() == MQTTBroker(host: "broker.lan", port: 8883, tls: true))
        #expect(try MQTTBroker.parse("mqtt://10.0.0.5:1884").get() == MQTTBroker(host: "10.0.0.5", port: 1884, tls: false))
        #expect(try MQTTBroker.parse("mqtts://[::1]:8884").get() == MQTTBroker(host: "::1", port: 8884, tls: true))
        #expect(try MQTTBroker.parse("mqtt://[fe80::1]").get().port == 1883)
        #expect(MQTTBroker(host: "::1", port: 8884, tls: true).description == "mqtts://[::1]:8884")
        #expect(MQTTBroker(host: "b", port: 1883, tls: false).description == "mqtt://b:1883")
    }

    @Test func badBrokerAddresses() {
        for text in ["", "broker.lan", "tcp://broker.lan", "http://b", "mqtt://", "mqtt://:1883", "mqtt://b:", "mqtt://b:0",
                     "mqtt://b:65536", "mqtt://b:99999999999999999999", "mqtt://b:-1", "mqtt://b:1883/x", "mqtt://u:p@b",
                     "mqtt://b?x=1", "mqtt://[::1", "mqtt://[::1]x", "mqtt://[zz]", "mqtt://b c", "mqtt://bröker",
                     "MQTT://b", "mqtt://b:1e3", "mqtt://" + String(repeating: "a", count: 254)] {
            if case .success(let b) = MQTTBroker.parse(text) { Issue.record("'\(text)' gave \(b)") }
        }
    }

    /// Hosts no resolver takes are refused when the config is read, not at every connection.
    @Test func hostsNoResolverTakes() {
        for host in ["[:::]", "[1:2:3:4:5:6:7:8:9]", "[1::2::3]", "[12345::1]", "[::1.2.3.256]", "[1.2.3.4::]", "[:1::2]",
                     "999.999.999.999", "1.2.3", "1.2.3.4.5", "01.2.3.4", "1..2", ".broker", "broker..lan", "-broker",
                     "broker-.lan", "a." + String(repeating: "b", count: 64)] {
            if case .success(let b) = MQTTBroker.parse("mqtt://" + host) { Issue.record("'\(host)' gave \(b)") }
        }
        for host in ["[::]", "[::1]", "[1::]", "[fe80::1:2]", "[1:2:3:4:5:6:7:8]", "[::ffff:10.0.0.5]", "[2001:db8::8:800:200c:417a]",
                     "0.0.0.0", "255.255.255.255", "10.0.0.5", "broker", "broker.lan.", "mqtt_1.example", "4chan.example", "x1-2.y"] {
            if case .failure(let why) = MQTTBroker.parse("mqtt://" + host + ":1883") { Issue.record("'\(host)': \(why)") }
        }
        #expect(MQTTBroker.problem("mqtt://999.999.999.999")?.contains("not an IPv4 address") == true)
    }

    /// Random addresses never trap, and whatever is taken reads back the same from its description.
    @Test func seededFuzzOfBrokerAddresses() {
        var random = SeededGenerator(seed: 18)
        let pieces = ["mqtt://", "mqtts://", "[", "]", ":", "::1", "1883", "65535", "65536", "0", "-", ".", "b", "broker",
                      "@", "/", "?", "#", " ", "\u{0}", "\u{1B}", "é", "99999999999999999999", "1e3", "fe80",
                      "10.0.0.5", ".lan", "hall-1"]
        var taken = 0
        for _ in 0..<20_000 {
            let count = random.integer(in: 0...8)
            let text = (0..<count).map { _ in pieces[random.integer(in: 0...(pieces.count - 1))] }.joined()
            guard case .success(let broker) = MQTTBroker.parse(text) else { continue }
            taken += 1
            #expect((1...65535).contains(broker.port) && !broker.host.isEmpty, "\(text)")
            #expect((try? MQTTBroker.parse(broker.description).get()) == broker, "\(text)")
        }
        #expect(taken > 50, "the fuzz reaches valid addresses too")
    }

    @Test func theKeysTakeWhatTheyShould() {
        let result = loadConfig("""
            [mqtt]
            broker = mqtts://broker.example:8883
            ca_file = /etc/bubble-kiosk/ca.pem
            username = kiosk
            password_file = /run/credentials/bubble-kiosk.service/mqtt-password
            node_id = hall-1
            topic_prefix = museum/hall-1
            discovery_prefix =
            keepalive_s = 15
            """)
        #expect(result.diagnostics.isEmpty, "\(result.diagnostics)")
        let mqtt = result.settings.mqtt
        #expect(mqtt.endpoint == MQTTBroker(host: "broker.example", port: 8883, tls: true))
        #expect(mqtt.caFile == "/etc/bubble-kiosk/ca.pem" && mqtt.username == "kiosk" && mqtt.nodeID == "hall-1")
        #expect(mqtt.passwordFile == "/run/credentials/bubble-kiosk.service/mqtt-password")
        #expect(mqtt.topicPrefix == "museum/hall-1" && mqtt.discoveryPrefix == "" && mqtt.keepalive == .seconds(15))
        #expect(Settings().mqtt.endpoint == nil, "off by default")
        #expect(Settings().mqtt.discoveryPrefix == "homeassistant")
    }

    @Test func badValuesAreOneLineEachAndFallBack() {
        let result = loadConfig("""
            [mqtt]
            broker = broker.example
            node_id = Hall 1
            topic_prefix = museum/+/x
            discovery_prefix = ha/
            keepalive_s = 1
            """)
        let lines = result.diagnostics.map(\.description)
        #expect(lines.count == 5, "\(lines)")
        #expect(lines.first?.contains("k.conf:2: broker: expected mqtt://HOST[:PORT] or mqtts://HOST[:PORT] (no mqtt:// or mqtts:// in front)") == true,
                "\(lines)")
        #expect(lines.contains { $0.contains("topic_prefix") && $0.contains("wildcard +") })
        #expect(lines.contains { $0.contains("discovery_prefix") && $0.contains("empty level") })
        #expect(result.settings.mqtt == MQTTSettings())
    }

    /// A password in the config is refused, and never written back into the log.
    @Test func anInlinePasswordIsRefusedUnquoted() {
        let result = loadConfig("[mqtt]\nbroker = mqtt://b\nusername = kiosk\npassword = hunter2-secret\n")
        let lines = result.diagnostics.map(\.description)
        #expect(lines.count == 1, "\(lines)")
        #expect(lines.first?.contains("k.conf:4: password:") == true && lines.first?.contains("password_file") == true, "\(lines)")
        #expect(!lines.joined().contains("hunter2"))
        #expect(result.settings.mqtt.endpoint != nil, "the rest of [mqtt] still counts")
        #expect(loadConfig("[mqtt]\npassword =\n").diagnostics.isEmpty, "nothing is no secret")
    }

    @Test func roundsTodayStartAgainEachDay() {
        var count = DailyCount()
        #expect(count.count(onDay: 100) == 0)
        count.add(onDay: 100)
        count.add(onDay: 100)
        #expect(count.count(onDay: 100) == 2)
        #expect(count.count(onDay: 101) == 0, "a day without rounds")
        count.add(onDay: 101)
        #expect(count.count(onDay: 101) == 1)
        #expect(count.count(onDay: 100) == 0, "only the latest day is kept")
    }
}
