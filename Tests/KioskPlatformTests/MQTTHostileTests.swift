import Glibc
import KioskCore
import KioskPlatform
import KioskTestSupport
import Synchronization
import Testing

/// The MQTT connection against what is not a friendly broker: retained and oversized messages
/// from a real mosquitto, a second client with the same id, and peers that are no brokers (one
/// that never answers, one that echoes, one that speaks only MQTT 3.1.1 and refuses anyway).
@Suite(.serialized) struct MQTTHostileTests {
    typealias Client = MQTTConnectionTests.Client

    static func endpoint(port: Int, id: String, subscriptions: [String] = []) -> MQTTEndpoint {
        var e = MQTTConnectionTests.endpoint(port: port, id: id, subscriptions: subscriptions)
        e.maximumIncomingPayload = 64
        return e
    }

    static func run(_ loop: EventLoop, seconds: Double, until done: () -> Bool) throws -> Bool {
        try MQTTConnectionTests.run(loop, seconds: seconds, until: done)
    }

    @Test func retainedMessagesAreMarkedAsSuch() throws {
        let broker = try MosquittoBroker()
        try broker.start()
        let loop = try EventLoop(signals: [])
        let sender = try Client(Self.endpoint(port: broker.port, id: "sender"), loop: loop)
        #expect(try Self.run(loop, seconds: 5) { sender.connects == 1 })
        sender.connection.publish(MQTTMessage(topic: "test/restart/set", payload: Array("PRESS".utf8), retain: true))
        // The retained one is in the broker's store before the kiosk subscribes.
        #expect(try Self.run(loop, seconds: 1) { false } == false)
        let kiosk = try Client(Self.endpoint(port: broker.port, id: "kiosk", subscriptions: ["test/#"]), loop: loop)
        #expect(try Self.run(loop, seconds: 5) { !kiosk.received("test/restart/set").isEmpty }, "\(kiosk.notices)")
        #expect(kiosk.notices.contains(.message(topic: "test/restart/set", payload: Array("PRESS".utf8), retained: true)))
        #expect(try MQTTConnectionTests.settle(loop, publisher: sender, subscriber: kiosk, topic: "test/live"))
        #expect(kiosk.notices.contains(.message(topic: "test/live", payload: Array("probe".utf8), retained: false)))
        sender.connection.stop(farewell: nil)
        kiosk.connection.stop(farewell: nil)
    }

    /// Where only the stored copy should count as retained (Home Assistant's status), a live
    /// message published retained arrives without the flag, the stored one with it.
    @Test func theRetainFlagFromTheStoreOnlyWhereAsked() throws {
        let broker = try MosquittoBroker()
        try broker.start()
        let loop = try EventLoop(signals: [])
        let sender = try Client(Self.endpoint(port: broker.port, id: "sender"), loop: loop)
        var e = Self.endpoint(port: broker.port, id: "kiosk", subscriptions: ["ha/status", "test/#"])
        e.retainFlagFromStoreOnly = ["ha/status"]
        #expect(try Self.run(loop, seconds: 5) { sender.connects == 1 })
        sender.connection.publish(MQTTMessage(topic: "ha/status", payload: Array("online".utf8), retain: true))
        _ = try Self.run(loop, seconds: 1) { false }
        let kiosk = try Client(e, loop: loop)
        #expect(try Self.run(loop, seconds: 5) { !kiosk.received("ha/status").isEmpty }, "\(kiosk.notices)")
        #expect(kiosk.notices.contains(.message(topic: "ha/status", payload: Array("online".utf8), retained: true)), "the stored one")
        #expect(try MQTTConnectionTests.settle(loop, publisher: sender, subscriber: kiosk, topic: "test/probe"))
        sender.connection.publish(MQTTMessage(topic: "ha/status", payload: Array("online".utf8), retain: true))
        sender.connection.publish(MQTTMessage(topic: "test/cmd", payload: Array("x".utf8), retain: true))
        #expect(try Self.run(loop, seconds: 5) { kiosk.received("ha/status").count == 2 && !kiosk.received("test/cmd").isEmpty })
        #expect(kiosk.notices.last { if case .message("ha/status", _, _) = $0 { true } else { false } }
                == .message(topic: "ha/status", payload: Array("online".utf8), retained: false), "a live one: news")
        #expect(kiosk.notices.contains(.message(topic: "test/cmd", payload: Array("x".utf8), retained: true)), "as published elsewhere")
        sender.connection.stop(farewell: nil)
        kiosk.connection.stop(farewell: nil)
    }

    /// A payload over the limit is not copied (the notice has its size only); one far over it
    /// never comes at all: the broker was told the maximum packet size (MQTT 5).
    @Test func oversizedMessagesAreDroppedUnreadOrNeverSent() throws {
        let broker = try MosquittoBroker()
        try broker.start()
        let loop = try EventLoop(signals: [])
        let sender = try Client(Self.endpoint(port: broker.port, id: "sender"), loop: loop)
        let kiosk = try Client(Self.endpoint(port: broker.port, id: "kiosk", subscriptions: ["test/#"]), loop: loop)
        #expect(try Self.run(loop, seconds: 5) { sender.connects == 1 && kiosk.connects == 1 })
        #expect(try MQTTConnectionTests.settle(loop, publisher: sender, subscriber: kiosk, topic: "test/probe"))
        sender.connection.publish(MQTTMessage(topic: "test/volume/set", payload: [UInt8](repeating: 0x31, count: 100), retain: false))
        #expect(try Self.run(loop, seconds: 5) { kiosk.notices.contains(.oversized(topic: "test/volume/set", bytes: 100)) }, "\(kiosk.notices)")
        #expect(kiosk.connection.oversizedMessages == 1)
        sender.connection.publish(MQTTMessage(topic: "test/volume/set", payload: [UInt8](repeating: 0x31, count: 1 << 20), retain: false))
        sender.connection.publish(MQTTMessage(topic: "test/after", payload: Array("small".utf8), retain: false))
        #expect(try Self.run(loop, seconds: 5) { !kiosk.received("test/after").isEmpty })
        #expect(kiosk.connection.oversizedMessages == 1, "the megabyte was never sent to the kiosk")
        #expect(kiosk.losses.isEmpty, "\(kiosk.notices)")
        let log = (try? FileSystem.readText(broker.logPath)) ?? ""
        #expect(log.contains("maximum packet size") || log.contains("too large") || log.contains("Dropped"), "\(broker.logPath)")
        sender.connection.stop(farewell: nil)
        kiosk.connection.stop(farewell: nil)
    }

    /// Two kiosks with one node id take the id from each other in turn. Mosquitto 2.0 just
    /// closes the older connection (MQTT 5 brokers that say "session taken over" are named at
    /// once); a second close in a row of a connection it had accepted is named as what it most
    /// likely is.
    @Test func twoClientsWithOneIDAreNamed() throws {
        let broker = try MosquittoBroker()
        try broker.start()
        let loop = try EventLoop(signals: [])
        let first = try Client(Self.endpoint(port: broker.port, id: "bubble-kiosk-hall"), loop: loop)
        #expect(try Self.run(loop, seconds: 5) { first.connects == 1 })
        let second = try Client(Self.endpoint(port: broker.port, id: "bubble-kiosk-hall"), loop: loop)
        let named = "the client id bubble-kiosk-hall (two kiosks with one node_id? each must have its own)"
        // They flap: within a minute either has lost the id twice in a row.
        #expect(try Self.run(loop, seconds: 60) { (first.losses + second.losses).contains { $0.hasSuffix(named) } },
                "\(first.losses) \(second.losses)")
        #expect(first.losses.first == "the broker closed the connection", "\(first.losses)")
        let hint = (first.losses + second.losses).first { $0.hasSuffix(named) }
        #expect(hint == "the broker closed the connection again after accepting it: another connection probably uses " + named)
        first.connection.stop(farewell: nil)
        second.connection.stop(farewell: nil)
    }

    @Test func aPeerThatNeverAnswersIsAKeepaliveTimeout() throws {
        let peer = try FakePeer(.silent)
        let loop = try EventLoop(signals: [])
        let kiosk = try Client(Self.endpoint(port: peer.port, id: "kiosk"), loop: loop)
        // keepalive 5 s: libmosquitto gives up after 5 to 7.5 s.
        #expect(try Self.run(loop, seconds: 12) { !kiosk.losses.isEmpty }, "\(kiosk.notices)")
        #expect(kiosk.losses.first == "no answer to the connection request within the keepalive (5 s): is 127.0.0.1:\(peer.port) an MQTT broker?",
                "\(kiosk.losses)")
        kiosk.connection.stop(farewell: nil)
        withExtendedLifetime(peer) {}
    }

    @Test func anEchoIsNoBroker() throws {
        let peer = try FakePeer(.echo)
        let loop = try EventLoop(signals: [])
        let kiosk = try Client(Self.endpoint(port: peer.port, id: "kiosk"), loop: loop)
        #expect(try Self.run(loop, seconds: 5) { !kiosk.losses.isEmpty }, "\(kiosk.notices)")
        #expect(kiosk.losses.first == "the other end sent an MQTT packet no broker sends (type 1): is 127.0.0.1:\(peer.port) an MQTT broker?",
                "\(kiosk.losses)")
        kiosk.connection.stop(farewell: nil)
        withExtendedLifetime(peer) {}
    }

    /// A broker that speaks 3.1.1 only refuses MQTT 5: the kiosk says so once and asks again in
    /// 3.1.1 at once (this one refuses that too, as an old broker with no room would).
    @Test func anOldBrokerIsAskedAgainInItsProtocol() throws {
        let peer = try FakePeer(.refuseEveryConnect)
        let loop = try EventLoop(signals: [])
        let kiosk = try Client(Self.endpoint(port: peer.port, id: "kiosk"), loop: loop)
        #expect(try Self.run(loop, seconds: 5) { !kiosk.losses.isEmpty }, "\(kiosk.notices)")
        #expect(peer.levels.prefix(2) == [5, 4], "MQTT 5 first, then 3.1.1: \(peer.levels)")
        #expect(kiosk.notices.first == .remark("the broker does not speak MQTT 5: going on in MQTT 3.1.1, where it cannot be told "
                                               + "the largest message the kiosk takes (64 bytes)"), "\(kiosk.notices)")
        #expect(kiosk.losses.first == "refused by the broker: unacceptable protocol version", "\(kiosk.losses)")
        kiosk.connection.stop(farewell: nil)
        withExtendedLifetime(peer) {}
    }

    /// An expired certificate, a stranger's CA and the wrong host name each say what they are.
    @Test func tlsFailuresSayWhich() throws {
        let folder = TemporaryDirectory("bubble-mqtt-tls")
        let ca = try MosquittoBroker.makeCertificate(in: folder.path, name: "ca", subjectAltName: "IP:127.0.0.1")
        let expired = try MosquittoBroker.makeSignedCertificate(in: folder.path, name: "expired", ca: "ca",
                                                                 subjectAltName: "IP:127.0.0.1", days: -1)
        let stranger = try MosquittoBroker.makeCertificate(in: folder.path, name: "stranger", subjectAltName: "IP:127.0.0.1")
        let old = try MosquittoBroker(listenerLines: ["certfile \(expired)", "keyfile \(folder.path)/expired.key"])
        try old.start()
        let strange = try MosquittoBroker(listenerLines: ["certfile \(stranger)", "keyfile \(folder.path)/stranger.key"])
        try strange.start()
        let loop = try EventLoop(signals: [])
        func tls(_ id: String, _ port: Int, ca: String) -> MQTTEndpoint {
            var e = Self.endpoint(port: port, id: id)
            e.tls = true
            e.caFile = ca
            return e
        }
        let a = try Client(tls("a", old.port, ca: ca), loop: loop)
        let b = try Client(tls("b", strange.port, ca: ca), loop: loop)
        #expect(try Self.run(loop, seconds: 5) { !a.losses.isEmpty && !b.losses.isEmpty }, "\(a.notices) \(b.notices)")
        #expect(a.losses.first == "TLS: the broker's certificate: certificate has expired", "\(a.losses)")
        #expect(b.losses.first == "TLS: the broker's certificate is not signed by a CA the kiosk trusts (ca_file): self-signed certificate",
                "\(b.losses)")
        a.connection.stop(farewell: nil)
        b.connection.stop(farewell: nil)
    }
}

/// A loopback TCP peer on a thread of its own that is no MQTT broker: it never answers, echoes
/// what it gets, or answers every CONNECT with "unacceptable protocol version" (noting the
/// protocol level each asked for).
final class FakePeer: @unchecked Sendable {
    enum Manner: Sendable { case silent, echo, refuseEveryConnect }

    let port: Int
    private let listener: Int32
    private final class Levels: Sendable {
        let seen = Mutex<[UInt8]>([])
    }
    private let recorded = Levels()
    private var thread: WorkerThread?

    /// The protocol levels of the CONNECTs seen so far (5: MQTT 5, 4: 3.1.1).
    var levels: [UInt8] { recorded.seen.withLock { $0 } }

    init(_ manner: Manner) throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        listener = fd
        var a = sockaddr_in()
        a.sin_family = sa_family_t(AF_INET)
        a.sin_addr.s_addr = UInt32(0x7f00_0001).bigEndian
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &a) { p in
            p.withMemoryRebound(to: sockaddr.self, capacity: 1) { sa in
                bind(fd, sa, length) == 0 && listen(fd, 8) == 0 && getsockname(fd, sa, &length) == 0
            }
        }
        try #require(bound, "listener: errno \(errno)")
        port = Int(UInt16(bigEndian: a.sin_port))
        // Silent: the kernel completes the handshake into the backlog; nobody ever reads.
        guard manner != .silent else { return }
        thread = try WorkerThread(name: "fake-peer") { [recorded] in
            while true {
                let client = accept(fd, nil, nil)
                if client < 0 { return }
                var buffer = [UInt8](repeating: 0, count: 4096)
                while true {
                    let n = read(client, &buffer, buffer.count)
                    if n <= 0 { break }
                    if manner == .echo {
                        _ = write(client, buffer, n)
                        continue
                    }
                    // CONNECT: type 1, a remaining length, "\0\4MQTT", then the level.
                    guard buffer[0] == 0x10 else { continue }
                    var i = 1
                    while i < n && buffer[i] & 0x80 != 0 { i += 1 }
                    let level = i + 7 < n ? buffer[i + 7] : 0
                    recorded.seen.withLock { $0.append(level) }
                    let refusal: [UInt8] = [0x20, 0x02, 0x00, 0x01]
                    _ = write(client, refusal, refusal.count)
                }
                close(client)
            }
        }
    }

    /// Ends the accept: the thread returns once its client (the kiosk, stopped first) is gone.
    deinit {
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
        thread?.join()
    }
}

extension MQTTHostileTests {
    /// A refusal within a bound of real time, measured.
    @Suite(.tags(.timing)) struct Timing {
        /// A FIFO as a TLS file would block the open (and the kiosk before its first frame, with
        /// SIGTERM blocked): refused at once, naming the key and the file.
        @Test func aFIFOAsATLSFileIsRefusedAtOnce() throws {
            let folder = TemporaryDirectory("bubble-mqtt-fifo")
            mkfifo(folder.path + "/ca.pem", 0o600)
            for key in ["ca_file", "cert_file", "key_file"] {
                var e = endpoint(port: 8883, id: "kiosk")
                e.tls = true
                e.caFile = key == "ca_file" ? folder.path + "/ca.pem" : nil
                e.certFile = key == "ca_file" ? nil : (key == "cert_file" ? folder.path + "/ca.pem" : "/etc/hostname")
                e.keyFile = key == "ca_file" ? nil : (key == "key_file" ? folder.path + "/ca.pem" : "/etc/hostname")
                let start = EventLoop.now()
                do {
                    _ = try MQTTConnection(endpoint: e)
                    Issue.record("\(key): a FIFO was taken")
                } catch {
                    #expect("\(error)" == "\(key) \(folder.path)/ca.pem: not a regular file (a FIFO)")
                }
                #expect((EventLoop.now() - start).inMilliseconds < 1000)
            }
        }
    }
}
