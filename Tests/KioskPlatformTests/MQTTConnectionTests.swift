import Glibc
import KioskCore
import KioskPlatform
import KioskTestSupport
import Testing

/// The MQTT connection against a real mosquitto broker on a loopback port, on the real
/// monotonic loop: connecting, messages both ways, a broker that dies and comes back, a port
/// with nothing behind it, the farewell at stop, and the bounded outgoing queue.
@Suite(.serialized) struct MQTTConnectionTests {
    /// One connection on the loop and every notice it delivered.
    final class Client {
        let connection: MQTTConnection
        var notices: [MQTTNotice] = []

        init(_ endpoint: MQTTEndpoint, loop: EventLoop) throws {
            connection = try MQTTConnection(endpoint: endpoint)
            try connection.start(on: loop) { [unowned self] in notices += $0 }
        }

        var connects: Int { notices.filter { $0 == .connected }.count }
        var losses: [String] {
            notices.compactMap { if case .lost(let why) = $0 { return why } else { return nil } }
        }
        func received(_ topic: String) -> [String] {
            notices.compactMap {
                if case .message(topic, let payload, _) = $0 { return String(decoding: payload, as: UTF8.self) }
                return nil
            }
        }
    }

    static func endpoint(port: Int, id: String, subscriptions: [String] = [], will: String = "test/will") -> MQTTEndpoint {
        MQTTEndpoint(host: "127.0.0.1", port: port, clientID: id, keepalive: .seconds(5),
                     will: MQTTMessage(topic: will, payload: Array("gone".utf8), retain: false),
                     subscriptions: subscriptions)
    }

    static func message(_ topic: String, _ text: String, retain: Bool = false) -> MQTTMessage {
        MQTTMessage(topic: topic, payload: Array(text.utf8), retain: retain)
    }

    /// Runs `loop` until `done` holds (checked every 20 ms) or `seconds` pass; true when done.
    @discardableResult
    static func run(_ loop: EventLoop, seconds: Double, every tick: (() -> Void)? = nil,
                    until done: () -> Bool) throws -> Bool {
        try loop.eventually(within: .seconds(seconds), every: .milliseconds(20)) {
            tick?()
            return done()
        }
    }

    /// Publishes `probe` on `topic` every 100 ms until `subscriber` receives it: its
    /// subscription is in place then (a subscription goes out with the connection, unacknowledged).
    static func settle(_ loop: EventLoop, publisher: Client, subscriber: Client, topic: String) throws -> Bool {
        var ticks = 0
        return try run(loop, seconds: 5, every: {
            ticks += 1
            if ticks % 5 == 1 { publisher.connection.publish(message(topic, "probe")) }
        }) { !subscriber.received(topic).isEmpty }
    }

    @Test func connectsPublishesAndReceives() throws {
        let broker = try MosquittoBroker()
        try broker.start()
        let loop = try EventLoop(signals: [])
        let subscriber = try Client(Self.endpoint(port: broker.port, id: "sub", subscriptions: ["test/#"]), loop: loop)
        let kiosk = try Client(Self.endpoint(port: broker.port, id: "kiosk"), loop: loop)
        #expect(!kiosk.connection.publish(Self.message("test/early", "x")), "nothing is published before the connection")
        let up = try Self.run(loop, seconds: 5) { subscriber.connects == 1 && kiosk.connects == 1 }
        #expect(up, "notices: \(subscriber.notices) \(kiosk.notices); broker log \(broker.logPath)")
        #expect(kiosk.connection.isConnected && subscriber.connection.isConnected)
        #expect(try Self.settle(loop, publisher: kiosk, subscriber: subscriber, topic: "test/probe"))

        let payload = (0..<1000).map { UInt8($0 % 251) }
        #expect(kiosk.connection.publish(MQTTMessage(topic: "test/state", payload: payload, retain: true)))
        // Published retained: MQTT 5 keeps the flag as published for the subscriber.
        #expect(try Self.run(loop, seconds: 5) { subscriber.notices.contains(.message(topic: "test/state", payload: payload, retained: true)) })
        #expect(kiosk.losses.isEmpty && subscriber.losses.isEmpty)
        #expect(kiosk.connection.droppedPublishes == 0 && subscriber.connection.droppedMessages == 0)
        kiosk.connection.stop(farewell: nil)
        subscriber.connection.stop(farewell: nil)
    }

    @Test func reconnectsAfterTheBrokerRestarts() throws {
        let broker = try MosquittoBroker()
        try broker.start()
        let loop = try EventLoop(signals: [])
        let kiosk = try Client(Self.endpoint(port: broker.port, id: "kiosk", subscriptions: ["test/cmd"]), loop: loop)
        #expect(try Self.run(loop, seconds: 5) { kiosk.connects == 1 })
        broker.kill()
        #expect(try Self.run(loop, seconds: 5) { !kiosk.losses.isEmpty }, "notices: \(kiosk.notices)")
        #expect(!kiosk.connection.isConnected)
        #expect(!kiosk.connection.publish(Self.message("test/x", "while down")))
        try broker.start()
        // The first retry comes within a second; a refused one (the broker still starting)
        // doubles it, so 10 s is plenty.
        #expect(try Self.run(loop, seconds: 10) { kiosk.connects == 2 }, "notices: \(kiosk.notices)")
        #expect(kiosk.connection.isConnected)
        // Connected, lost (with a reason), perhaps refused while the broker started, connected.
        #expect(kiosk.notices.first == .connected && kiosk.notices.last == .connected)
        #expect(kiosk.losses.count == kiosk.notices.count - 2 && kiosk.losses.allSatisfy { !$0.isEmpty },
                "\(kiosk.notices)")
        // The subscription is made again on the new connection: a command reaches the kiosk.
        let sender = try Client(Self.endpoint(port: broker.port, id: "sender"), loop: loop)
        #expect(try Self.run(loop, seconds: 5) { sender.connects == 1 })
        #expect(try Self.settle(loop, publisher: sender, subscriber: kiosk, topic: "test/cmd"))
        sender.connection.stop(farewell: nil)
        kiosk.connection.stop(farewell: nil)
    }

    @Test func aRefusingBrokerSaysWhyAndIsRetried() throws {
        let broker = try MosquittoBroker(anonymous: false)
        try broker.start()
        let loop = try EventLoop(signals: [])
        let kiosk = try Client(Self.endpoint(port: broker.port, id: "kiosk"), loop: loop)
        #expect(try Self.run(loop, seconds: 4) { kiosk.losses.count >= 2 }, "notices: \(kiosk.notices)")
        #expect(kiosk.connects == 0)
        #expect(kiosk.losses.allSatisfy { $0 == "refused by the broker: not authorised" }, "\(kiosk.losses)")
        kiosk.connection.stop(farewell: nil)
    }

    @Test func tlsChecksTheBrokersCertificateAndName() throws {
        let folder = TemporaryDirectory("bubble-mqtt-tls")
        let brokerCert = try MosquittoBroker.makeCertificate(in: folder.path, name: "broker", subjectAltName: "IP:127.0.0.1")
        let otherCA = try MosquittoBroker.makeCertificate(in: folder.path, name: "other", subjectAltName: "IP:127.0.0.1")
        let broker = try MosquittoBroker(listenerLines: ["certfile \(brokerCert)", "keyfile \(folder.path)/broker.key"])
        try broker.start()
        let loop = try EventLoop(signals: [])
        func tls(_ id: String, host: String = "127.0.0.1", ca: String) -> MQTTEndpoint {
            var e = Self.endpoint(port: broker.port, id: id)
            e.host = host
            e.tls = true
            e.caFile = ca
            return e
        }
        let trusted = try Client(tls("trusted", ca: brokerCert), loop: loop)
        let stranger = try Client(tls("stranger", ca: otherCA), loop: loop)
        // The certificate names 127.0.0.1 only: "localhost" is the wrong name for it.
        let misnamed = try Client(tls("misnamed", host: "localhost", ca: brokerCert), loop: loop)
        #expect(try Self.run(loop, seconds: 5) {
            trusted.connects == 1 && !stranger.losses.isEmpty && !misnamed.losses.isEmpty
        }, "\(trusted.notices) \(stranger.notices) \(misnamed.notices)")
        #expect(stranger.connects == 0 && misnamed.connects == 0)
        // OpenSSL's verdict, not only libmosquitto's "certificate verify failed".
        #expect(stranger.losses.first == "TLS: the broker's certificate is not signed by a CA the kiosk trusts (ca_file): self-signed certificate",
                "\(stranger.losses)")
        #expect(misnamed.losses.first == "TLS: the broker's certificate is not for localhost", "\(misnamed.losses)")
        for client in [trusted, stranger, misnamed] { client.connection.stop(farewell: nil) }
    }

    @Test func stopPublishesTheFarewellInsteadOfTheWill() throws {
        let broker = try MosquittoBroker()
        try broker.start()
        let loop = try EventLoop(signals: [])
        let watcher = try Client(Self.endpoint(port: broker.port, id: "watcher", subscriptions: ["test/#"]), loop: loop)
        let kiosk = try Client(Self.endpoint(port: broker.port, id: "kiosk", will: "test/availability"), loop: loop)
        #expect(try Self.run(loop, seconds: 5) { watcher.connects == 1 && kiosk.connects == 1 })
        #expect(try Self.settle(loop, publisher: kiosk, subscriber: watcher, topic: "test/probe"))
        kiosk.connection.stop(farewell: Self.message("test/availability", "offline", retain: true))
        #expect(!kiosk.connection.isConnected)
        #expect(try Self.run(loop, seconds: 5) { watcher.received("test/availability") == ["offline"] })
        // The will ("gone") does not follow: the kiosk said goodbye and disconnected cleanly.
        try Self.run(loop, seconds: 0.5) { false }
        #expect(watcher.received("test/availability") == ["offline"])
        // Retained: a later subscriber sees it too.
        let late = try Client(Self.endpoint(port: broker.port, id: "late", subscriptions: ["test/availability"]), loop: loop)
        #expect(try Self.run(loop, seconds: 5) { late.received("test/availability") == ["offline"] })
        late.connection.stop(farewell: nil)
        watcher.connection.stop(farewell: nil)
    }

    @Test func theOutgoingQueueIsBoundedWhileTheBrokerStalls() throws {
        let broker = try MosquittoBroker()
        try broker.start()
        let loop = try EventLoop(signals: [])
        let kiosk = try Client(Self.endpoint(port: broker.port, id: "kiosk"), loop: loop)
        #expect(try Self.run(loop, seconds: 5) { kiosk.connects == 1 })
        broker.suspend(true)
        defer { broker.suspend(false) }
        // 200 MiB offered: the socket's buffers take a few MiB, the queue 8 MiB more at most.
        let big = MQTTMessage(topic: "test/big", payload: [UInt8](repeating: 7, count: 1 << 20), retain: false)
        var accepted = 0
        for _ in 0..<200 {
            if kiosk.connection.publish(big) { accepted += 1 }
            try Self.run(loop, seconds: 0.005) { false }
        }
        #expect(accepted < 100, "accepted \(accepted)")
        #expect(kiosk.connection.droppedPublishes == 200 - accepted)
        broker.suspend(false)
        kiosk.connection.stop(farewell: nil)
    }

    @Test func aFloodOfMessagesIsCutAtTheMailbox() throws {
        let broker = try MosquittoBroker()
        try broker.start()
        let loop = try EventLoop(signals: [])
        let kiosk = try Client(Self.endpoint(port: broker.port, id: "kiosk", subscriptions: ["test/#"]), loop: loop)
        let sender = try Client(Self.endpoint(port: broker.port, id: "sender"), loop: loop)
        #expect(try Self.run(loop, seconds: 5) { kiosk.connects == 1 && sender.connects == 1 })
        #expect(try Self.settle(loop, publisher: sender, subscriber: kiosk, topic: "test/probe"))
        // The loop does not run meanwhile: nothing takes the kiosk's messages out of the mailbox.
        // A full outgoing queue refuses a publish: the sender backs off a millisecond and tries again.
        var sent = 0
        for _ in 0..<20_000 where sent < 600 {
            if sender.connection.publish(Self.message("test/flood", "\(sent)")) { sent += 1 } else { pause(for: .milliseconds(1)) }
        }
        #expect(sent == 600)
        // Half a second for the broker to hand the flood over. Only the loop, which must not run
        // yet, would show what reached the mailbox: nothing else says when the last one came.
        pause(for: .milliseconds(500))
        try Self.run(loop, seconds: 0.2) { false }
        let flood = kiosk.received("test/flood")
        #expect(flood.count <= 256 && flood.count >= 200, "\(flood.count) delivered")
        #expect(flood.count + kiosk.connection.droppedMessages == 600)
        #expect(flood.prefix(3) == ["0", "1", "2"])
        // Delivery goes on afterwards.
        #expect(try Self.settle(loop, publisher: sender, subscriber: kiosk, topic: "test/after"))
        sender.connection.stop(farewell: nil)
        kiosk.connection.stop(farewell: nil)
    }

    /// A loopback listener (backlog 0) with its accept queue filled by connections never accepted.
    final class FullListener {
        let port: Int
        private var fds: [Int32] = []

        init() throws {
            let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            fds.append(listener)
            var a = sockaddr_in()
            a.sin_family = sa_family_t(AF_INET)
            a.sin_addr.s_addr = UInt32(0x7f00_0001).bigEndian
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let bound = withUnsafeMutablePointer(to: &a) { p in
                p.withMemoryRebound(to: sockaddr.self, capacity: 1) { sa in
                    bind(listener, sa, length) == 0 && listen(listener, 0) == 0 && getsockname(listener, sa, &length) == 0
                }
            }
            try #require(bound, "listener: errno \(errno)")
            port = Int(UInt16(bigEndian: a.sin_port))
            // Non-blocking: the ones past the queue's room wait for their answer in the background.
            for _ in 0..<3 {
                let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue | SOCK_NONBLOCK.rawValue), 0)
                fds.append(fd)
                _ = withUnsafePointer(to: &a) { p in
                    p.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, length) }
                }
            }
        }

        deinit { fds.forEach { close($0) } }
    }

    @Test func unreadableTLSFilesNameTheFile() throws {
        var endpoint = Self.endpoint(port: 8883, id: "kiosk")
        endpoint.tls = true
        endpoint.caFile = "/nonexistent/ca.pem"
        /// The error `MQTTConnection(endpoint:)` throws, as its one line.
        func failure(_ e: MQTTEndpoint) -> (any Error)? {
            do {
                _ = try MQTTConnection(endpoint: e)
                return nil
            } catch {
                return error
            }
        }
        let missing = failure(endpoint)
        #expect("\(missing.map { "\($0)" } ?? "")" == "ca_file /nonexistent/ca.pem: No such file or directory (open, errno 2)",
                "\(String(describing: missing))")
        endpoint.caFile = "/tmp"
        #expect("\(failure(endpoint).map { "\($0)" } ?? "")" == "ca_file /tmp: not a regular file (a directory)")
        endpoint.caFile = nil
        endpoint.certFile = "/etc/hostname"
        let halfPair = failure(endpoint)
        #expect(halfPair is MQTTSetupError && "\(halfPair!)".contains("key file"))
        endpoint.keyFile = "/etc/hostname"
        // Readable files are accepted (their contents are OpenSSL's to judge, at connect).
        _ = try MQTTConnection(endpoint: endpoint)
    }
}

extension MQTTConnectionTests {
    /// Retries and stops within bounds of real time, measured.
    @Suite(.tags(.timing)) struct Timing {
        @Test func aPortWithNothingIsLostWithAReasonAndRetried() throws {
            let port = try MosquittoBroker.freePort()
            let loop = try EventLoop(signals: [])
            let kiosk = try Client(endpoint(port: port, id: "kiosk"), loop: loop)
            // Retries after at most 1 s, then 2 s: three attempts within 3.5 s.
            #expect(try run(loop, seconds: 4) { kiosk.losses.count >= 3 }, "notices: \(kiosk.notices)")
            #expect(kiosk.connects == 0 && !kiosk.connection.isConnected)
            #expect(kiosk.losses.allSatisfy { $0 == "connection refused" }, "\(kiosk.losses)")
            let before = EventLoop.now()
            kiosk.connection.stop(farewell: message("test/bye", "offline"))
            // The worker sleeps out its backoff: stop wakes it at once.
            #expect((EventLoop.now() - before).inMilliseconds < 500)
        }

        @Test func stopDoesNotHangOnAConnectThatNeverAnswers() throws {
            // A loopback listener whose accept queue is full: the kernel drops further SYNs, so
            // the worker's connect blocks as it would on a black-holed address.
            var hole: FullListener? = try FullListener()
            let loop = try EventLoop(signals: [])
            var kiosk: Client? = try Client(endpoint(port: hole!.port, id: "kiosk"), loop: loop)
            try run(loop, seconds: 0.5) { false }
            #expect(kiosk!.notices.isEmpty, "the connect was expected to hang: \(kiosk!.notices)")
            let before = EventLoop.now()
            kiosk!.connection.stop(farewell: message("test/bye", "offline"))
            let took = (EventLoop.now() - before).inMilliseconds
            #expect(took < 3000, "stop took \(took) ms")
            // Closing the listener refuses the connect's next SYN: the worker left behind ends then
            // and frees the client itself.
            kiosk = nil
            hole = nil
        }
    }
}
