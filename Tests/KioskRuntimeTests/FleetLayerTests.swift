import Glibc
import KioskCore
import KioskLayers
import KioskPlatform
import KioskRuntime
import KioskTestSupport
import Testing

/// Records what fleet control publishes, and lets a test speak for the broker.
final class RecordingFleetLink: FleetLink {
    var published: [MQTTMessage] = []
    var farewell: MQTTMessage??
    var endpoint: MQTTEndpoint?
    var deliver: ([MQTTNotice]) -> Void = { _ in }

    func publish(_ message: MQTTMessage) -> Bool {
        published.append(message)
        return true
    }

    func stop(farewell: MQTTMessage?) { self.farewell = .some(farewell) }

    func on(_ topic: String) -> [String] {
        published.filter { $0.topic == topic }.map { String(decoding: $0.payload, as: UTF8.self) }
    }
}

/// The fleet layer on the live kiosk (virtual time, virtual display), with a recording link in
/// place of the broker; `Tests/fleet/mqtt-test.sh` runs the same through a real mosquitto.
@Suite struct FleetLayerTests {
    let h: RuntimeHarness
    let link = RecordingFleetLink()
    let layer: FleetLayer
    let sound = SoundLayer()
    /// The node id from the host name "Kiosk.7".
    let prefix = "bubble-kiosk/kiosk_7"

    init() throws {
        var s = RuntimeHarness.quietSettings
        s.mqtt.broker = "mqtt://broker.test:1884"
        h = try RuntimeHarness(settings: s)
        h.runtime.wallClock = StoppedWallClock(unixSeconds: 1_780_000_000, showing: 12, 0)
        let link = link
        layer = FleetLayer(hostName: { "Kiosk.7" }) { endpoint, _, deliver in
            link.endpoint = endpoint
            link.deliver = deliver
            return link
        }
        h.runtime.attach([sound, layer])
        try h.run(ms: 100)
    }

    func command(_ name: String, _ payload: String) {
        link.deliver([.message(topic: prefix + "/" + name, payload: Array(payload.utf8), retained: false)])
    }

    var lastState: String? { link.on(prefix + "/state").last }

    @Test func connectsWithTheWillAndTheCommandTopics() throws {
        let endpoint = try #require(link.endpoint)
        #expect(endpoint.host == "broker.test" && endpoint.port == 1884 && !endpoint.tls)
        #expect(endpoint.clientID == "bubble-kiosk-kiosk_7")
        #expect(endpoint.will == MQTTMessage(topic: prefix + "/availability", payload: Array("offline".utf8), retain: true))
        #expect(endpoint.subscriptions.contains(prefix + "/display/set"))
        #expect(endpoint.subscriptions.contains("homeassistant/status"))
        #expect(endpoint.subscriptions.count == FleetCommand.Topic.allCases.count + 1)
        #expect(link.published.isEmpty, "nothing before the broker took us")
        #expect(h.logLines.contains("mqtt: connecting to mqtt://broker.test:1884 as kiosk_7, topics under bubble-kiosk/kiosk_7/"))
    }

    @Test func onlineThenDiscoveryThenState() {
        link.deliver([.connected])
        let mine = prefix
        #expect(link.published.first == MQTTMessage(topic: mine + "/availability", payload: Array("online".utf8), retain: true))
        let configs = link.published.filter { $0.topic.hasPrefix("homeassistant/") }
        #expect(configs.count == 13 && configs.allSatisfy(\.retain))
        let state = link.on(mine + "/state")
        #expect(state.count == 1)
        #expect(state.first?.hasPrefix(#"{"screen":"start","mode":"classic","score":0,"display":"on","brightness":null,"volume":80,"#) == true,
                "\(state)")
        #expect(h.logLines.contains("mqtt: connected to mqtt://broker.test:1884"))
        // Home Assistant restarted: the configs again; anything else on its topic asks nothing.
        link.deliver([.message(topic: "homeassistant/status", payload: Array("offline".utf8), retained: false)])
        #expect(link.published.filter { $0.topic.hasPrefix("homeassistant/") }.count == 13)
        link.deliver([.message(topic: "homeassistant/status", payload: Array("online\n".utf8), retained: false)])
        // The connection sent them just now: once 10 s have passed since.
        #expect(link.published.filter { $0.topic.hasPrefix("homeassistant/") }.count == 13)
        h.advance(ms: 10_000)
        #expect(link.published.filter { $0.topic.hasPrefix("homeassistant/") }.count == 26)
    }
}

/// The same with the default topic prefix, which the commands below use.
@Suite struct FleetCommandRuntimeTests {
    let h: RuntimeHarness
    let link = RecordingFleetLink()
    let sound = SoundLayer()
    let prefix = "bubble-kiosk/hall"

    init() throws {
        var s = RuntimeHarness.quietSettings
        s.mqtt.broker = "mqtt://broker.test"
        s.mqtt.nodeID = "hall"
        h = try RuntimeHarness(settings: s)
        h.runtime.wallClock = StoppedWallClock(unixSeconds: 1_780_000_000, showing: 12, 0)
        let link = link
        let layer = FleetLayer(connect: { endpoint, _, deliver in
            link.endpoint = endpoint
            link.deliver = deliver
            return link
        })
        h.runtime.attach([sound, layer])
        try h.run(ms: 100)
        link.deliver([.connected])
    }

    func command(_ name: String, _ payload: String) {
        link.deliver([.message(topic: prefix + "/" + name, payload: Array(payload.utf8), retained: false)])
    }

    var states: [String] { link.on(prefix + "/state") }

    @Test func displayOffSleepsAndTheStateSaysSo() {
        command("display/set", "OFF")
        h.advance(ms: 300)
        #expect(h.runtime.isAsleep && h.runtime.fleetScreen == .asleep)
        #expect(states.last?.contains(#""screen":"asleep","mode":"classic","score":0,"display":"off""#) == true, "\(states)")
        command("display/set", "on")
        h.advance(ms: 300)
        #expect(!h.runtime.isAsleep)
        #expect(states.last?.contains(#""screen":"start","mode":"classic","score":0,"display":"on""#) == true, "\(states)")
    }

    /// The score layer announces a high score before it shows the new board: the state has it anyway.
    @Test func anAnnouncedHighScoreReachesTheState() {
        h.advance(ms: 300)
        h.runtime.post(.highScore(HighScore(mode: .classic, score: 500, rank: 1, roundID: 1)), at: h.now)
        h.advance(ms: 300)
        #expect(states.last?.contains(#""high_score":500,"#) == true, "\(states)")
    }

    @Test func volumeGoesToTheSoundLayer() {
        command("volume/set", "40")
        h.advance(ms: 300)
        #expect(sound.volume == 0.4)
        #expect(states.last?.contains(#""volume":40,"#) == true)
    }

    @Test func aRoundIsFollowedAndEventsArePublished() {
        h.startRound()
        h.advance(ms: 300)
        #expect(states.last?.contains(#""screen":"playing""#) == true)
        #expect(states.last?.contains(#""rounds_today":1,"#) == true)
        let events = link.on(prefix + "/event")
        #expect(events.contains { $0.hasPrefix(#"{"event":"round_start","time":1780000000"#) }, "\(events)")
        #expect(link.published.filter { $0.topic == prefix + "/event" }.allSatisfy { !$0.retain })
    }

    /// The PNG is made on a thread of its own and published when the loop hears it is done.
    @Test func theScreenshotIsRetainedPNG() throws {
        command("screenshot/set", "PRESS")
        _ = h.eventually(within: .seconds(2)) { !link.on(prefix + "/screenshot").isEmpty }
        let shots = link.published.filter { $0.topic == prefix + "/screenshot" }
        #expect(shots.count == 1)
        let shot = try #require(shots.first)
        #expect(shot.retain && Array(shot.payload.prefix(4)) == [0x89, 0x50, 0x4E, 0x47])
        #expect(h.logLines.contains { $0.hasPrefix("mqtt: screenshot of ") && $0.hasSuffix(" KiB published") })
    }

    @Test func garbageIsOneLineAndChangesNothing() {
        h.advance(ms: 1000)
        let before = states.count
        command("display/set", "maybe")
        command("display/set", "sideways")
        command("volume/set", "400")
        command("nonsense/set", "1")
        h.advance(ms: 300)
        #expect(!h.runtime.isAsleep && sound.volume == 0.8)
        #expect(states.count == before, "nothing changed: no state sent")
        let lines = h.logLines.filter { $0.hasPrefix("mqtt: ") && $0.contains("ignored") }
        #expect(lines == ["mqtt: display/set: ignored 'maybe': not ON or OFF",
                          "mqtt: volume/set: ignored '400': not from 0 to 100",
                          "mqtt: nonsense/set: ignored '1': no such command"], "\(lines)")
    }

    /// A thousand commands at once: ten are taken, the rest dropped with one line, and the
    /// kiosk still draws its frames.
    @Test func aFloodIsCutToTheLimit() {
        var flood: [MQTTNotice] = []
        for i in 0..<1000 { flood.append(.message(topic: prefix + "/volume/set", payload: Array("\(i % 100)".utf8), retained: false)) }
        link.deliver(flood)
        let drops = h.logLines.filter { $0.contains("more than 10 messages a second") }
        #expect(drops.count == 1, "\(h.logLines)")
        #expect(sound.volume == 0.09, "the tenth taken, the rest dropped")
        let frames = h.runtime.frames
        h.startRound()
        #expect(h.runtime.frames > frames)
    }

    @Test func theResetAndTheTouchTest() {
        command("touch_test/set", "ON")
        h.advance(ms: 10)
        #expect(h.runtime.isTouchTestOpen)
        command("touch_test/set", "OFF")
        h.advance(ms: 10)
        #expect(!h.runtime.isTouchTestOpen)
        command("restart/set", "")
        #expect(h.runtime.exitStatus != .operatorReset, "an empty message clears a retained one: no command")
        h.advance(ms: 1100)  // (restart/set: once a second)
        command("restart/set", "PRESS")
        #expect(h.runtime.exitStatus == .operatorReset)
    }

    @Test func aBrokerAwayIsOneLineUntilTheReasonChanges() {
        link.deliver([.lost("connection refused")])
        link.deliver([.lost("connection refused"), .lost("connection refused")])
        link.deliver([.lost("no route to host")])
        let lines = h.logLines.filter { $0.hasPrefix("mqtt: c") && !$0.hasPrefix("mqtt: connecting") && !$0.hasPrefix("mqtt: connected") }
        #expect(lines == ["mqtt: connection to mqtt://broker.test:1883 lost: connection refused; trying again (the game goes on)",
                          "mqtt: cannot connect to mqtt://broker.test:1883: no route to host; trying again with growing pauses (the game goes on)"],
                "\(lines)")
        let before = states.count
        link.deliver([.connected])
        #expect(h.logLines.last == "mqtt: connected to mqtt://broker.test:1883 after 3 failed tries")
        h.advance(ms: 300)
        #expect(states.count == before + 1, "the state again, though nothing changed")
    }

    @Test func stoppingSaysOffline() throws {
        h.runtime.finish()
        let farewell = try #require(link.farewell)
        #expect(farewell == MQTTMessage(topic: prefix + "/availability", payload: Array("offline".utf8), retain: true))
    }
}
