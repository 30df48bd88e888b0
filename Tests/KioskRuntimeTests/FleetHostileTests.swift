import Glibc
import KioskCore
import KioskLayers
import KioskPlatform
import KioskRuntime
import KioskTestSupport
import Testing

/// Fleet control against what a careless automation or a hostile network sends: retained
/// commands, oversized messages, floods of Home Assistant's `online` and of valid commands, a
/// password file with Windows line ends; and what Home Assistant is shown (the last touch on a
/// topic of its own, rounds today seeded from the store, brightness only with a backlight).
@Suite struct FleetHostileTests {
    let h: RuntimeHarness
    let link = RecordingFleetLink()
    let sound = SoundLayer()
    let layer: FleetLayer
    let prefix = "bubble-kiosk/hall"
    static let unixTime = 1_780_000_000.0

    init(settings: (inout Settings) -> Void = { _ in }, backlight: BacklightLayer? = nil) throws {
        var s = RuntimeHarness.quietSettings
        s.mqtt.broker = "mqtt://broker.test"
        s.mqtt.nodeID = "hall"
        settings(&s)
        h = try RuntimeHarness(settings: s)
        h.runtime.wallClock = StoppedWallClock(unixSeconds: Self.unixTime, showing: 12, 0)
        let link = link
        layer = FleetLayer(connect: { endpoint, _, deliver in
            link.endpoint = endpoint
            link.deliver = deliver
            return link
        })
        h.runtime.attach([sound] + (backlight.map { [$0] } ?? []) + [layer])
        try h.run(ms: 100)
        link.deliver([.connected])
    }

    init() throws { try self.init(settings: { _ in }) }

    func send(_ name: String, _ payload: String, retained: Bool = false) {
        link.deliver([.message(topic: prefix + "/" + name, payload: Array(payload.utf8), retained: retained)])
    }

    var discoveryCount: Int { link.published.filter { $0.topic.hasPrefix("homeassistant/") }.count }

    /// A retained `restart` would restart the kiosk at every start, forever under systemd; a
    /// retained `OFF` would darken every start. Neither is carried out; each topic's is one line
    /// that says how to clear it.
    @Test func retainedCommandsAreNeverCarriedOut() {
        send("restart/set", "PRESS", retained: true)
        send("display/set", "OFF", retained: true)
        h.advance(ms: 300)
        #expect(h.runtime.exitStatus != .operatorReset)
        #expect(!h.runtime.isAsleep)
        #expect(layer.commandsDone == 0 && layer.commandsRefused == 2)
        let lines = h.logLines.filter { $0.contains("a retained message") }
        #expect(lines == [
            "mqtt: bubble-kiosk/hall/restart/set: a retained message, not carried out (commands are never retained: the broker "
                + "would repeat it at every connection); clear it with: mosquitto_pub -r -n -t 'bubble-kiosk/hall/restart/set'",
            "mqtt: bubble-kiosk/hall/display/set: a retained message, not carried out (commands are never retained: the broker "
                + "would repeat it at every connection); clear it with: mosquitto_pub -r -n -t 'bubble-kiosk/hall/display/set'",
        ], "\(lines)")
        // The next connection brings it again: counted, not said again at once.
        link.deliver([.lost("connection lost"), .connected])
        send("restart/set", "PRESS", retained: true)
        #expect(h.logLines.filter { $0.contains("a retained message") }.count == 3, "the 2nd is said, with its count")
        send("restart/set", "PRESS", retained: true)
        #expect(h.logLines.filter { $0.contains("a retained message") }.count == 3, "the 3rd is not")
        #expect(h.runtime.exitStatus != .operatorReset)
        // A live command on the same topic still works.
        send("display/set", "OFF")
        h.advance(ms: 300)
        #expect(h.runtime.isAsleep)
    }

    @Test func aRetainedOnlineFromHomeAssistantAsksForNothing() {
        let before = discoveryCount
        link.deliver([.message(topic: "homeassistant/status", payload: Array("online".utf8), retained: true)])
        h.advance(ms: 20_000)
        #expect(discoveryCount == before, "the connection sent the configs already")
    }

    @Test func oversizedMessagesAreCountedAndSaidSparingly() {
        for _ in 0..<100 { link.deliver([.oversized(topic: prefix + "/volume/set", bytes: 200_000_000)]) }
        #expect(layer.commandsRefused == 100)
        let lines = h.logLines.filter { $0.contains("dropped unread") }
        // The 1st, 2nd, 4th ... 64th: seven lines for a hundred.
        #expect(lines.count == 7, "\(lines)")
        #expect(lines.first == "mqtt: bubble-kiosk/hall/volume/set: a message of 200000000 bytes dropped unread (no command is longer than 64 bytes)")
        #expect(sound.volume == 0.8)
    }

    /// Home Assistant saying `online` ten thousand times: the configs go out at most once per
    /// 10 s, each resend one log line, and the last request is still answered.
    @Test func homeAssistantsOnlineIsAnsweredOncePerTenSeconds() {
        let configs = discoveryCount
        #expect(configs == 13)
        var sent: [Int] = []
        for second in 0..<30 {
            for _ in 0..<333 {
                link.deliver([.message(topic: "homeassistant/status", payload: Array("online".utf8), retained: false)])
            }
            h.advance(ms: 1000)
            sent.append((discoveryCount - configs) / 13)
            _ = second
        }
        // The connection sent them at 0 s: a resend at 10 s, 20 s and 30 s at most.
        #expect(sent.last! <= 3 && sent.last! >= 2, "\(sent)")
        let lines = h.logLines.filter { $0.hasPrefix("mqtt: Home Assistant said online") }
        #expect(lines.count == sent.last!, "\(lines)")
        #expect(lines.first?.contains("once for ") == true, "\(lines)")
        // Quiet again: one more `online` later is answered at once.
        h.advance(ms: 20_000)
        let before = discoveryCount
        link.deliver([.message(topic: "homeassistant/status", payload: Array("online".utf8), retained: false)])
        #expect(discoveryCount == before + 13)
    }

    /// A slider dragged for a minute at the allowed rate (10 a second): the first command's line,
    /// one summary a minute while it goes on and one when it stops; the commands all carried out.
    @Test func repeatedValidCommandsAreFoldedIntoSpells() {
        for i in 0..<900 {
            send("volume/set", "\(i % 101)")
            h.advance(ms: 100)
        }
        #expect(sound.volume == Double(899 % 101) / 100)
        #expect(layer.commandsDone == 900)
        h.advance(ms: 11_000)
        let lines = h.logLines.filter { $0.contains("volume set to") }
        #expect(lines.count == 3, "\(lines)")
        #expect(lines.first == "mqtt: volume set to 0% (until the next reload)")
        #expect(lines.last?.hasPrefix("mqtt: volume set to \(899 % 101)% (until the next reload) [the last of ") == true, "\(lines)")
        #expect(lines.last?.contains("from repeated MQTT volume/set commands over ") == true, "\(lines)")
        // The held-back lines add up to every command but the first.
        let counts = lines.dropFirst().compactMap { line -> Int? in
            guard let r = line.split(separator: "[").last?.split(separator: " ").dropFirst(3).first else { return nil }
            return Int(r)
        }
        #expect(counts.reduce(0, +) == 899, "\(lines)")
        // A new spell after the quiet: its first command says so again.
        send("volume/set", "50")
        #expect(h.logLines.last == "mqtt: volume set to 50% (until the next reload)")
    }

    /// Display and touch-test toggles log through the runtime: folded all the same.
    @Test func theRuntimesOwnLinesAreFoldedToo() {
        let before = h.logLines.count
        for i in 0..<200 {
            send("display/set", i % 2 == 0 ? "OFF" : "ON")
            h.advance(ms: 100)
        }
        h.advance(ms: 11_000)
        let added = h.logLines.count - before
        #expect(added <= 6, "\(h.logLines.suffix(added))")
        #expect(h.logLines.contains("display switched off by an MQTT command"))
        #expect(!h.runtime.isAsleep, "the last command was ON")
    }

    @Test func theLastTouchHasItsOwnTopicOnceThereWasOne() throws {
        h.advance(ms: 1000)
        #expect(link.on(prefix + "/last_touch").isEmpty, "nothing before a touch")
        #expect(link.on(prefix + "/state").last?.contains(#""last_touch":null"#) == true)
        h.tap(Vector2(x: 100, y: 100))
        h.advance(ms: 500)
        let expected = try #require(ClockText.iso8601(unixSeconds: Self.unixTime))
        #expect(link.on(prefix + "/last_touch") == [expected])
        #expect(link.published.filter { $0.topic == prefix + "/last_touch" }.allSatisfy { $0.retain })
        h.tap(Vector2(x: 120, y: 100))
        h.advance(ms: 500)
        #expect(link.on(prefix + "/last_touch").count == 1, "the same second: nothing new to say")
        link.deliver([.lost("connection lost"), .connected])
        h.advance(ms: 500)
        #expect(link.on(prefix + "/last_touch").count == 2, "said again on a new connection")
    }

    /// A restart at noon does not start the day's count again: the store's count of the rounds
    /// before the start, plus this process's own.
    @Test func roundsTodayCountsEarlierRunsFromTheStore() {
        let today = h.runtime.wallClock.local(at: h.now).day.number
        h.runtime.show(ScoreBoard(roundsBeforeStart: ScoreBoard.DayCount(day: today, rounds: 17)))
        // (At a start the store answers before the broker does: the first state has it. Here,
        // the next heartbeat.)
        h.advance(ms: 61_000)
        #expect(link.on(prefix + "/state").last?.contains(#""rounds_today":17,"#) == true, "\(link.on(prefix + "/state"))")
        h.startRound()
        h.advance(ms: 300)
        #expect(link.on(prefix + "/state").last?.contains(#""rounds_today":18,"#) == true)
        // Yesterday's count is not today's.
        h.runtime.show(ScoreBoard(roundsBeforeStart: ScoreBoard.DayCount(day: today - 1, rounds: 40)))
        h.runtime.post(.highScore(HighScore(mode: .classic, score: 1, rank: 1, roundID: 1)), at: h.now)
        h.advance(ms: 300)
        #expect(link.on(prefix + "/state").last?.contains(#""rounds_today":1,"#) == true)
    }

    @Test func theLightOffersBrightnessOnlyWithABacklight() throws {
        let light = try #require(link.published.first { $0.topic == "homeassistant/light/hall/display/config" })
        #expect(!String(decoding: light.payload, as: UTF8.self).contains("brightness"))

        let device = BacklightRuntimeTests.Device()
        let lit = try FleetHostileTests(settings: { $0.display.backlight = device.path }, backlight: BacklightLayer())
        let litLight = try #require(lit.link.published.first { $0.topic == "homeassistant/light/hall/display/config" })
        #expect(String(decoding: litLight.payload, as: UTF8.self).contains(#""brightness_command_topic":"bubble-kiosk/hall/brightness/set""#))
        lit.send("brightness/set", "128")
        lit.h.advance(ms: 300)
        #expect(device.brightness == "128\n")
    }

    /// A password file written on Windows: the CR is not part of the password.
    @Test(arguments: ["s3cret\r\n", "s3cret\r", "s3cret\n", "s3cret", "s3cret\r\nsecond line\r\n"])
    func thePasswordEndsAtAnyLineEnd(_ text: String) throws {
        let dir = TemporaryDirectory("mqtt-password")
        writeFile(dir.path + "/password", text, mode: 0o600)
        let k = try FleetHostileTests(settings: {
            $0.mqtt.username = "hall"
            $0.mqtt.passwordFile = dir.path + "/password"
        })
        #expect(k.link.endpoint?.password == "s3cret")
        #expect(!k.h.logLines.contains { $0.contains("password_file") }, "\(k.h.logLines)")
    }

    @Test func anEmptyFirstLineIsAWarning() throws {
        let dir = TemporaryDirectory("mqtt-password")
        writeFile(dir.path + "/password", "\r\ns3cret\r\n", mode: 0o600)
        let k = try FleetHostileTests(settings: {
            $0.mqtt.username = "hall"
            $0.mqtt.passwordFile = dir.path + "/password"
        })
        #expect(k.link.endpoint?.password == "")
        #expect(k.h.logLines.contains("mqtt: password_file \(dir.path)/password: the first line is empty: logging in with an empty password"),
                "\(k.h.logLines)")
    }

    /// A FIFO as the password file: one line, no hang, no fleet control; the game goes on.
    @Test func aFIFOAsThePasswordFileIsRefused() throws {
        let dir = TemporaryDirectory("mqtt-password")
        mkfifo(dir.path + "/password", 0o600)
        let k = try FleetHostileTests(settings: {
            $0.mqtt.username = "hall"
            $0.mqtt.passwordFile = dir.path + "/password"
        })
        #expect(k.link.endpoint == nil, "no connection without the password")
        #expect(k.h.logLines.contains("mqtt: password_file \(dir.path)/password: not a regular file (a FIFO); the kiosk goes on without fleet control"),
                "\(k.h.logLines)")
    }

    @Test func theEndpointCarriesTheLimitsAndTheSpread() throws {
        let k = try FleetHostileTests(settings: { $0.mqtt.reconnectSpread = .seconds(60) })
        let endpoint = try #require(k.link.endpoint)
        #expect(endpoint.maximumIncomingPayload == FleetCommand.maximumPayloadBytes)
        #expect(endpoint.reconnectSpread == .seconds(60))
        #expect(endpoint.maximumPacketSize < 4096)
        #expect(endpoint.retainFlagFromStoreOnly == ["homeassistant/status"], "a live retained online is news")
    }
}
