import KioskCore
import KioskTestSupport
import Testing

/// The pure parts of fleet control's defences: log spells, the discovery resend pacing, the
/// password file's first line, the client certificate's pairing with its key.
@Suite struct FleetPolicyTests {
    typealias Spells = LogSpells<String, String>

    static func t(_ s: Double) -> TimeStamp { TimeStamp.zero + .milliseconds(Int64(s * 1000)) }

    @Test func theFirstEventOfASpellIsLoggedTheRestSummedUp() {
        var spells = Spells()
        spells.event("vol", at: Self.t(0))
        let r1 = spells.line("vol", "volume 1", at: Self.t(0))
        #expect(r1)
        for i in 1...20 {
            spells.event("vol", at: Self.t(Double(i) * 0.1))
            let shown = spells.line("vol", "volume \(i)", at: Self.t(Double(i) * 0.1))
            #expect(!shown)
        }
        let r2 = spells.due(at: Self.t(5))
        #expect(r2.isEmpty, "still in the spell")
        #expect(spells.nextDeadline == Self.t(12))
        let done = spells.due(at: Self.t(12))
        #expect(done.count == 1)
        #expect(done.first?.last == "volume 20" && done.first?.count == 20)
        #expect(done.first?.span == .milliseconds(1900))
        #expect(spells.nextDeadline == nil, "nothing left open: no timer")
        // A new spell logs its first event again.
        spells.event("vol", at: Self.t(30))
        let r3 = spells.line("vol", "volume 3", at: Self.t(30))
        #expect(r3)
    }

    @Test func aSpellWithNothingHeldEndsSilently() {
        var spells = Spells()
        spells.event("reload", at: Self.t(0))
        let r4 = spells.line("reload", "reloading", at: Self.t(0))
        #expect(r4)
        let r5 = spells.due(at: Self.t(11))
        #expect(r5.isEmpty)
        #expect(spells.nextDeadline == nil)
    }

    @Test func aLongSpellIsSummedUpEveryMinute() {
        var spells = Spells()
        var summaries: [Spells.Summary] = []
        for i in 0..<1800 {  // 3 minutes at 10 a second
            let now = Self.t(Double(i) * 0.1)
            summaries += spells.due(at: now)
            spells.event("vol", at: now)
            _ = spells.line("vol", "v\(i)", at: now)
        }
        summaries += spells.due(at: Self.t(200))
        #expect(summaries.count == 3 || summaries.count == 4, "\(summaries.map(\.count))")
        #expect(summaries.map(\.count).reduce(0, +) == 1799)
        #expect(summaries.last?.last == "v1799")
    }

    @Test func spellsAreKeptApartByKey() {
        var spells = Spells()
        spells.event("a", at: Self.t(0))
        spells.event("b", at: Self.t(0))
        let a0 = spells.line("a", "a0", at: Self.t(0)), b0 = spells.line("b", "b0", at: Self.t(0))
        #expect(a0 && b0)
        spells.event("a", at: Self.t(1))
        let r6 = spells.line("a", "a1", at: Self.t(1))
        #expect(!r6)
        spells.event("b", at: Self.t(20))
        let r7 = spells.line("b", "b1", at: Self.t(20))
        #expect(r7, "b's spell had ended")
        // a's ended unseen: the owed summary comes back with the next event.
        let owed = spells.event("a", at: Self.t(40))
        #expect(owed?.last == "a1" && owed?.count == 1)
    }

    @Test func discoveryIsResentAtMostOncePerInterval() {
        var p = DiscoveryResendPacing()
        let r8 = p.request(at: Self.t(0))
        #expect(r8 == .sendNow)
        let r9 = p.request(at: Self.t(1))
        #expect(r9 == .sendAt(Self.t(10)))
        let r10 = p.request(at: Self.t(2))
        #expect(r10 == .folded)
        #expect(p.folded == 2)
        let r11 = p.due(at: Self.t(9.9))
        #expect(!r11)
        let r12 = p.due(at: Self.t(10))
        #expect(r12)
        let r13 = p.due(at: Self.t(11))
        #expect(!r13, "once")
        let r14 = p.request(at: Self.t(15))
        #expect(r14 == .sendAt(Self.t(20)))
        let r15 = p.request(at: Self.t(31))
        #expect(r15 == .folded, "still pending until the timer says so")
        let r16 = p.due(at: Self.t(31))
        #expect(r16)
        let r17 = p.request(at: Self.t(45))
        #expect(r17 == .sendNow)
        // A new connection sent them: the interval starts again and nothing waits.
        _ = p.request(at: Self.t(46))
        p.sent(at: Self.t(47))
        #expect(p.pendingAt == nil)
        let r18 = p.request(at: Self.t(50))
        #expect(r18 == .sendAt(Self.t(57)))
    }

    @Test(arguments: [("secret\n", "secret"), ("secret\r\n", "secret"), ("secret\r", "secret"), ("secret", "secret"),
                      ("secret\r\nnext\r\n", "secret"), ("pass word \n", "pass word "), ("\u{00E9}t\u{00E9}\n", "\u{00E9}t\u{00E9}")])
    func thePasswordIsTheFirstLine(_ text: String, _ password: String) {
        let (p, warning) = MQTTPasswordFile.password(from: Array(text.utf8))
        #expect(p == password && warning == nil)
    }

    @Test func anEmptyPasswordIsAWarning() {
        #expect(MQTTPasswordFile.password(from: Array("\r\nsecret".utf8)) == ("", "the first line is empty: logging in with an empty password"))
        #expect(MQTTPasswordFile.password(from: []).warning == "the file is empty: logging in with an empty password")
    }

    @Test func aClientCertificateNeedsItsKey() {
        let result = loadConfig("""
            [mqtt]
            broker = mqtts://broker.example
            cert_file = /etc/bubble-kiosk/kiosk.pem
            """)
        #expect(result.diagnostics.map(\.description) == [
            "k.conf:3: cert_file: needs key_file as well (both or neither), got '/etc/bubble-kiosk/kiosk.pem' without it"])
        #expect(result.settings.mqtt.certFile == nil && result.settings.mqtt.keyFile == nil)
        let key = loadConfig("[mqtt]\nkey_file = /etc/bubble-kiosk/kiosk.key\n")
        #expect(key.diagnostics.map(\.description) == [
            "k.conf:2: key_file: needs cert_file as well (both or neither), got '/etc/bubble-kiosk/kiosk.key' without it"])
        let both = loadConfig("[mqtt]\ncert_file = /a.pem\nkey_file = /a.key\n")
        #expect(both.diagnostics.isEmpty && both.settings.mqtt.certFile == "/a.pem" && both.settings.mqtt.keyFile == "/a.key")
    }

    @Test func theReconnectSpreadKey() {
        #expect(Settings().mqtt.reconnectSpread == .seconds(10))
        #expect(loadConfig("[mqtt]\nreconnect_spread_s = 120\n").settings.mqtt.reconnectSpread == .seconds(120))
        #expect(loadConfig("[mqtt]\nreconnect_spread_s = -1\n").diagnostics.count == 1)
    }
}
