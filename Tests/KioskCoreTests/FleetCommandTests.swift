import Testing
@testable import KioskCore

/// `PREFIX/.../set`: every command, every way a payload is refused, and the flood limit.
@Suite struct FleetCommandTests {
    func parse(_ topic: String, _ payload: String) -> Result<FleetCommand, FleetCommand.Refusal> {
        FleetCommand.parse(topic: topic, payload: Array(payload.utf8))
    }

    func command(_ topic: String, _ payload: String) -> FleetCommand? {
        try? parse(topic, payload).get()
    }

    func refusal(_ topic: String, _ payload: [UInt8]) -> FleetCommand.Refusal? {
        if case .failure(let r) = FleetCommand.parse(topic: topic, payload: payload) { return r }
        return nil
    }

    func refusal(_ topic: String, _ payload: String) -> FleetCommand.Refusal? { refusal(topic, Array(payload.utf8)) }

    @Test func onOffInAnyCaseTrimmed() {
        for (text, on) in [("ON", true), ("on", true), ("On", true), (" ON\n", true), ("\toff\r\n", false), ("OFF", false), ("oFf", false)] {
            #expect(command("display/set", text) == .display(on: on), "\(text)")
            #expect(command("touch_test/set", text) == .touchTest(on: on), "\(text)")
        }
    }

    @Test func onOffRefusals() {
        for text in ["  ", "1", "true", "O N", "ONN", "OFFF", "ON OFF", "ＯＮ", "on\u{0}"] {
            #expect(refusal("display/set", text)?.reason == .notOnOff, "\(text)")
            #expect(refusal("touch_test/set", text)?.reason == .notOnOff, "\(text)")
        }
    }

    @Test func numbersInRange() {
        #expect(command("brightness/set", "0") == .brightness(0))
        #expect(command("brightness/set", "255") == .brightness(255))
        #expect(command("brightness/set", " 128\n") == .brightness(128))
        #expect(command("brightness/set", "+7") == .brightness(7))
        #expect(command("brightness/set", "007") == .brightness(7))
        #expect(command("volume/set", "0") == .volume(0))
        #expect(command("volume/set", "100") == .volume(100))
        #expect(command("volume/set", "-0") == .volume(0))
    }

    @Test func numbersOutOfRange() {
        #expect(refusal("brightness/set", "256")?.reason == .outOfRange(0...255))
        #expect(refusal("brightness/set", "-1")?.reason == .outOfRange(0...255))
        #expect(refusal("volume/set", "101")?.reason == .outOfRange(0...100))
        #expect(refusal("volume/set", "99999999999999999999999999")?.reason == .outOfRange(0...100))
        #expect(refusal("volume/set", "-99999999999999999999999999")?.reason == .outOfRange(0...100))
    }

    @Test func notNumbers() {
        for text in ["50.0", "5e1", "0x10", "fifty", "5 0", "--5", "+", "-", "½", "٥", "ON"] {
            #expect(refusal("brightness/set", text)?.reason == .notAWholeNumber, "\(text)")
            #expect(refusal("volume/set", text)?.reason == .notAWholeNumber, "\(text)")
        }
    }

    /// An empty message is how a retained one is cleared (`mosquitto_pub -r -n`), and a clear
    /// reaches the kiosk like any message: it must never restart or darken it.
    @Test func anEmptyMessageIsNoCommand() {
        for topic in FleetCommand.Topic.allCases {
            #expect(refusal(topic.rawValue, "")?.reason == .empty, "\(topic)")
        }
        #expect(refusal("restart/set", "")?.description == "restart/set: ignored an empty message (how a retained one is cleared; a button takes PRESS)")
        #expect(command("restart/set", " ") == .restart, "a space is no clear")
    }

    @Test func buttonsTakeAnyShortPayload() {
        for text in ["PRESS", "press", "anything at all", "\u{1B}[2J"] {
            #expect(command("reload/set", text) == .reload)
            #expect(command("restart/set", text) == .restart)
            #expect(command("screenshot/set", text) == .screenshot)
        }
        #expect(FleetCommand.parse(topic: "restart/set", payload: [0xFF, 0x00, 0xC3]) == .success(.restart))
    }

    @Test func everyCommandKnowsItsTopic() {
        let all: [FleetCommand] = [.display(on: true), .brightness(1), .volume(2), .touchTest(on: false), .reload, .restart, .screenshot]
        #expect(all.map(\.topic) == FleetCommand.Topic.allCases)
        #expect(FleetCommand.Topic.allCases.map(\.rawValue) == [
            "display/set", "brightness/set", "volume/set", "touch_test/set", "reload/set", "restart/set", "screenshot/set",
        ])
    }

    @Test func unknownTopics() {
        for topic in ["", "display", "display/get", "DISPLAY/SET", "display/set/", "/display/set", "state", "screenshot"] {
            #expect(refusal(topic, "ON")?.reason == .unknownTopic, "\(topic)")
        }
        let r = refusal("x\u{1B}]0;pwned\u{7}/set", "ON")
        #expect(r?.description == #"x\e]0;pwned\x07/set: ignored 'ON': no such command"#)
    }

    @Test func oversizedPayloadsAreRefusedForEveryTopic() {
        let big = [UInt8](repeating: UInt8(ascii: "1"), count: FleetCommand.maximumPayloadBytes + 1)
        for topic in FleetCommand.Topic.allCases {
            #expect(refusal(topic.rawValue, big)?.reason == .tooLong(bytes: 65), "\(topic)")
        }
        #expect(command("display/set", String(repeating: " ", count: 62) + "ON") == .display(on: true))
        let huge = [UInt8](repeating: 0x41, count: 1_000_000)
        let r = refusal("volume/set", huge)
        #expect(r?.reason == .tooLong(bytes: 1_000_000))
        #expect((r?.description.count ?? 999) < 100)
    }

    @Test func refusalsSayTopicPayloadAndWhy() {
        #expect(refusal("volume/set", "300")?.description == "volume/set: ignored '300': not from 0 to 100")
        #expect(refusal("display/set", "maybe")?.description == "display/set: ignored 'maybe': not ON or OFF")
        #expect(refusal("brightness/set", "1.5")?.description == "brightness/set: ignored '1.5': not a whole number")
        #expect(refusal("display/set", "\u{1B}[2J\n")?.description == #"display/set: ignored '\e[2J\n': not ON or OFF"#)
        #expect(refusal("display/set", [0x4F, 0xFF, 0x00, 0x9B])?.payload == "O\u{FFFD}\\x00\u{FFFD}")
        let long = refusal("display/set", String(repeating: "z", count: 60))
        #expect(long?.payload == String(repeating: "z", count: 29) + "...")
    }

    /// Random bytes on every topic: never a crash, never a control character in what is logged,
    /// and only a valid command taken.
    @Test func seededFuzzNeverCrashesOrEchoesAControlCharacter() {
        var random = SeededGenerator(seed: 18)
        let topics = FleetCommand.Topic.allCases.map(\.rawValue) + ["bogus/set", "display/set\u{0}", "\u{9B}31m"]
        let alphabet = Array("ONOFFonoff0123456789+- \t\r\n.".utf8) + [0x00, 0x1B, 0x7F, 0x9B, 0xC2, 0xE2, 0x80, 0xAE, 0xFF]
        var taken = 0
        var leaks: [String] = [], long: [String] = []
        for _ in 0..<20_000 {
            let topic = topics[random.integer(in: 0...(topics.count - 1))]
            let count = random.integer(in: 0...80)
            let payload: [UInt8] = (0..<count).map { _ in
                random.integer(in: 0...1) == 0 ? alphabet[random.integer(in: 0...(alphabet.count - 1))]
                    : UInt8(truncatingIfNeeded: random.next())
            }
            switch FleetCommand.parse(topic: topic, payload: payload) {
            case .success(let c):
                taken += 1
                #expect(c.topic.rawValue == topic && payload.count <= 64)
                switch c {
                case .brightness(let v): #expect((0...255).contains(v))
                case .volume(let v): #expect((0...100).contains(v))
                default: break
                }
            case .failure(let r):
                // Collected, not expected one by one: a failure must not print the raw line either.
                let line = r.description
                if line.unicodeScalars.contains(where: isEscapedByEcho) { leaks.append(echoed(line)) }
                if r.payload.count > 32 || r.topic.count > 40 { long.append(echoed(line)) }
            }
        }
        #expect(leaks.isEmpty, "\(leaks.count), first \(leaks.prefix(3))")
        #expect(long.isEmpty, "\(long.count), first \(long.prefix(3))")
        #expect(taken > 2000)  // the buttons, and some lucky numbers and ON/OFF
    }

    // MARK: the limiter

    static let t0 = TimeStamp(microseconds: 5_000_000)

    @Test func aFloodIsCutToTenASecondPerTopic() {
        var l = FleetCommandLimiter()
        var admitted = 0, logged = 0
        // 1000 messages a second for 3 s on one topic.
        for ms in 0..<3000 {
            let (ok, log) = l.admit(.volume, at: Self.t0 + .milliseconds(ms))
            if ok { admitted += 1 }
            if log { logged += 1 }
        }
        #expect(admitted == 30)
        #expect(l.droppedCount(.volume) == 2970)
        // One line per spell: each second's first ten go through and end the spell before.
        #expect(logged == 3)
        // Another topic, and the garbage topics, have limits of their own.
        #expect(l.admit(.display, at: Self.t0 + .milliseconds(2999)).admitted)
        for _ in 0..<10 { #expect(l.admit(nil, at: Self.t0).admitted) }
        #expect(l.admit(nil, at: Self.t0) == (false, true))
        #expect(l.admit(nil, at: Self.t0) == (false, false))
        #expect(l.droppedCount(nil) == 2 && l.droppedCount(.display) == 0)
    }

    @Test func theWindowSlides() {
        var l = FleetCommandLimiter(perSecond: 2)
        #expect(l.admit(.volume, at: Self.t0).admitted)
        #expect(l.admit(.volume, at: Self.t0 + .milliseconds(500)).admitted)
        #expect(!l.admit(.volume, at: Self.t0 + .milliseconds(999)).admitted)
        // The first is a whole second old now.
        #expect(l.admit(.volume, at: Self.t0 + .milliseconds(1000)).admitted)
        #expect(!l.admit(.volume, at: Self.t0 + .milliseconds(1400)).admitted)
        #expect(l.admit(.volume, at: Self.t0 + .milliseconds(1500)).admitted)
        #expect(FleetCommandLimiter(perSecond: 0).perSecond == 1)
    }

    /// Reload, restart and screenshot cost real work: once a second each, whatever the limit.
    @Test func theHeavyCommandsOnceASecond() {
        var l = FleetCommandLimiter(perSecond: 50)
        for topic in [FleetCommand.Topic.reload, .restart, .screenshot] {
            #expect(l.limit(for: topic) == 1)
            #expect(l.admit(topic, at: Self.t0).admitted)
            #expect(l.admit(topic, at: Self.t0 + .milliseconds(999)) == (false, true))
            #expect(l.admit(topic, at: Self.t0 + .milliseconds(1000)).admitted)
        }
        #expect(l.limit(for: .display) == 50 && l.limit(for: nil) == 50)
    }
}
