internal import CMosquitto
import Glibc
import KioskCore
import Synchronization

/// The libmosquitto client, shared by the loop's thread (publish, disconnect) and the worker
/// (connect, loop, callbacks): with `mosquitto_threaded_set(true)` libmosquitto locks what those
/// calls share, which is why the pointer may cross threads.
struct MosquittoHandle: @unchecked Sendable {
    let raw: OpaquePointer
}

/// What the worker tells `MQTTConnection.stop`.
enum MQTTStopEvent: Sendable {
    /// A message stop waits for was written (the farewell).
    case written
    /// The worker's loop is over.
    case ended
}

/// The state the loop's thread, the worker and libmosquitto's callbacks share; the callbacks
/// find it through libmosquitto's user data pointer.
final class MQTTSession: Sendable {
    /// At most this many messages wait in the mailbox for the loop; more are dropped (counted),
    /// so a flood of messages cannot grow the kiosk's memory while the loop is busy.
    static let maxUndelivered = 256
    /// Error lines of libmosquitto's log kept per attempt, for the reason of a failure.
    static let maxLogLines = 4
    /// How long a disconnect (and its DISCONNECT packet) may take once stop asked for it.
    static let disconnectGrace = Duration.seconds(1)

    /// What one connection attempt learnt, for the reason of its end.
    struct Attempt {
        /// The CONNACK's refusal code (MQTT 3.1.1's 1-5 or MQTT 5's reason code), when the
        /// broker said no.
        var refusal: Int32?
        /// libmosquitto's error-level log lines (OpenSSL's words among them).
        var logLines: [String] = []
        /// When the broker accepted the connection.
        var acceptedAt: TimeStamp?
        /// What the disconnect callback said: a libmosquitto error code, or (128 and up) the
        /// reason of an MQTT 5 DISCONNECT from the broker.
        var disconnect: Int32?
        /// Why OpenSSL refused the broker's certificate ("certificate has expired"), or the TLS
        /// alert either side sent.
        var tlsReason: String?
    }

    /// Who frees the libmosquitto client: stop, after the worker ended, or the worker itself
    /// when stop gave up waiting for it.
    enum Lifecycle {
        case running, ended, abandoned, destroyed
    }

    let handle: MosquittoHandle
    let endpoint: MQTTEndpoint
    let notices: Mailbox<MQTTNotice>
    /// Wakes the worker from its backoff sleep (stop).
    let wake: Mailbox<Bool>
    let stopEvents: Mailbox<MQTTStopEvent>
    let connected = Atomic<Bool>(false)
    let stopping = Atomic<Bool>(false)
    /// stop waits for a written message: the publish callback posts `.written`.
    let watchingWrites = Atomic<Bool>(false)
    let undelivered = Atomic<Int>(0)
    let droppedMessages = Atomic<Int>(0)
    let droppedPublishes = Atomic<Int>(0)
    /// Messages longer than `endpoint.maximumIncomingPayload`, dropped unread.
    let oversizedMessages = Atomic<Int>(0)
    /// MQTT 5 until a broker refuses it, then 3.1.1 for the rest of the process (the worker's).
    let protocolVersion = Atomic<Int32>(MQTT_PROTOCOL_V5)
    let outgoing = Mutex(MQTTOutgoing())
    let attempt = Mutex(Attempt())
    let lifecycle = Mutex(Lifecycle.running)

    init(handle: MosquittoHandle, endpoint: MQTTEndpoint) throws {
        self.handle = handle
        self.endpoint = endpoint
        notices = try Mailbox(name: "mqtt notices")
        wake = try Mailbox(name: "mqtt wake")
        stopEvents = try Mailbox(name: "mqtt stop")
    }

    static func from(_ userdata: UnsafeMutableRawPointer?) -> MQTTSession {
        Unmanaged<MQTTSession>.fromOpaque(userdata!).takeUnretainedValue()
    }

    /// Points libmosquitto's callbacks here. They run on the worker (inside mosquitto_connect and
    /// mosquitto_loop) and only record and post: nothing in them blocks.
    func installCallbacks() {
        let mosq = handle.raw
        mqtt.mosquitto_connect_callback_set(mosq) { _, userdata, rc in MQTTSession.from(userdata).onConnect(rc) }
        mqtt.mosquitto_disconnect_callback_set(mosq) { _, userdata, rc in MQTTSession.from(userdata).onDisconnect(rc) }
        mqtt.mosquitto_publish_callback_set(mosq) { _, userdata, mid in MQTTSession.from(userdata).onPublish(mid) }
        mqtt.mosquitto_message_callback_set(mosq) { _, userdata, message in
            guard let m = message?.pointee else { return }
            MQTTSession.from(userdata).onMessage(m)
        }
        mqtt.mosquitto_log_callback_set(mosq) { _, userdata, level, text in
            guard level & MOSQ_LOG_ERR != 0, let text else { return }
            MQTTSession.from(userdata).onErrorLog(String(cString: text))
        }
    }

    private func onConnect(_ rc: Int32) {
        guard rc == 0 else {
            attempt.withLock { $0.refusal = rc }
            return
        }
        attempt.withLock { $0.acceptedAt = EventLoop.now() }
        let v5 = protocolVersion.load(ordering: .relaxed) == MQTT_PROTOCOL_V5
        for topic in endpoint.subscriptions {
            // Queued for the worker to write; it fails only for a malformed filter, which the
            // broker would have refused anyway: the log line says so. In MQTT 5 a message keeps
            // the retain flag it was published with, so a command published retained is known as
            // such the first time too (3.1.1 clears the flag for existing subscriptions).
            let asPublished = v5 && !endpoint.retainFlagFromStoreOnly.contains(topic)
            let r = asPublished ? mqtt.mosquitto_subscribe_v5(handle.raw, nil, topic, 0, Int32(MQTT_SUB_OPT_RETAIN_AS_PUBLISHED.rawValue), nil)
                                : mqtt.mosquitto_subscribe(handle.raw, nil, topic, 0)
            if r != MOSQ_ERR_SUCCESS.rawValue { onErrorLog("subscribing to \(echoed(topic)): \(Self.words(r))") }
        }
        connected.store(true, ordering: .sequentiallyConsistent)
        notices.post(.connected)
    }

    private func onDisconnect(_ rc: Int32) {
        connected.store(false, ordering: .sequentiallyConsistent)
        outgoing.withLock { $0.reset() }
        attempt.withLock { if $0.disconnect == nil { $0.disconnect = rc } }
    }

    private func onPublish(_ mid: Int32) {
        outgoing.withLock { $0.written(mid: mid) }
        if watchingWrites.load(ordering: .sequentiallyConsistent) { stopEvents.post(.written) }
    }

    private func onMessage(_ m: mosquitto_message) {
        guard undelivered.load(ordering: .relaxed) < Self.maxUndelivered else {
            droppedMessages.wrappingAdd(1, ordering: .relaxed)
            return
        }
        let topic = m.topic.map { String(cString: $0) } ?? ""
        let count = Int(max(m.payloadlen, 0))
        undelivered.wrappingAdd(1, ordering: .relaxed)
        // Larger than any message the kiosk takes: not copied (libmosquitto frees its own copy).
        guard count <= endpoint.maximumIncomingPayload else {
            oversizedMessages.wrappingAdd(1, ordering: .relaxed)
            notices.post(.oversized(topic: topic, bytes: count))
            return
        }
        let payload = count == 0 || m.payload == nil
            ? [] : Array(UnsafeRawBufferPointer(start: m.payload, count: count))
        notices.post(.message(topic: topic, payload: payload, retained: m.retain))
    }

    /// OpenSSL's callbacks on the worker during a handshake: the verdict on the broker's
    /// certificate, or else a fatal alert sent or received (libmosquitto logs only "certificate
    /// verify failed" for an expired certificate and an unknown CA alike). The first one said
    /// is the reason.
    func onTLSRefusal(_ why: String) {
        attempt.withLock { a in
            if a.tlsReason == nil { a.tlsReason = why }
        }
    }

    /// OpenSSL refused the broker's certificate with X509 error `code`.
    func onCertificateRefused(_ code: Int32) {
        switch code {
        case X509_V_ERR_HOSTNAME_MISMATCH, X509_V_ERR_IP_ADDRESS_MISMATCH:
            onTLSRefusal("the broker's certificate is not for \(echoed(endpoint.host, limit: 100))")
        case X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY, X509_V_ERR_SELF_SIGNED_CERT_IN_CHAIN, X509_V_ERR_DEPTH_ZERO_SELF_SIGNED_CERT:
            onTLSRefusal("the broker's certificate is not signed by a CA the kiosk trusts (ca_file): "
                         + MQTTLibrary.string(mqtt.X509_verify_cert_error_string(Int(code))))
        default:
            onTLSRefusal("the broker's certificate: " + MQTTLibrary.string(mqtt.X509_verify_cert_error_string(Int(code))))
        }
    }

    private func onErrorLog(_ line: String) {
        attempt.withLock { a in
            if a.logLines.count < Self.maxLogLines { a.logLines.append(line) }
        }
    }

    // MARK: - The worker

    /// The worker's body: connect, run libmosquitto's loop while connected, and after every
    /// failure or loss post `.lost` and wait out the backoff; until stop.
    func run(seed: UInt64) {
        var backoff = ReconnectBackoff(seed: seed, spread: endpoint.reconnectSpread)
        var closedInARow = 0
        let host = endpoint.host, port = Int32(clamping: endpoint.port)
        let keepalive = Int32(min(max(endpoint.keepalive.inSeconds.rounded(), 5), 65535))
        while !stopping.load(ordering: .sequentiallyConsistent) {
            attempt.withLock { $0 = Attempt() }
            var rc = connect(host: host, port: port, keepalive: keepalive)
            var error = errno
            if rc == MOSQ_ERR_SUCCESS.rawValue {
                (rc, error) = runConnection()
                connected.store(false, ordering: .sequentiallyConsistent)
                outgoing.withLock { $0.reset() }
            }
            if stopping.load(ordering: .sequentiallyConsistent) { break }
            let learnt = attempt.withLock { $0 }
            if learnt.refusal == Int32(MQTT_RC_UNSUPPORTED_PROTOCOL_VERSION.rawValue), protocolVersion.load(ordering: .relaxed) == MQTT_PROTOCOL_V5 {
                // An MQTT 3.1.1 broker: once more at once in its protocol, and so on from now.
                protocolVersion.store(MQTT_PROTOCOL_V311, ordering: .relaxed)
                _ = mqtt.mosquitto_int_option(handle.raw, MOSQ_OPT_PROTOCOL_VERSION, MQTT_PROTOCOL_V311)
                notices.post(.remark("the broker does not speak MQTT 5: going on in MQTT 3.1.1, where it cannot be "
                                     + "told the largest message the kiosk takes (\(endpoint.maximumIncomingPayload) bytes)"))
                continue
            }
            if let at = learnt.acceptedAt { backoff.connected(at: at) }
            // MQTT 3.1.1 and mosquitto 2.0 say nothing when another client takes the id: the
            // broker just closes. Twice in a row, with a reconnection accepted in between, it
            // is no restart.
            closedInARow = Self.closedByTheBroker(rc, learnt) ? closedInARow + 1 : 0
            notices.post(.lost(closedInARow >= 2 ? takenOver(again: true) : reason(rc, errno: error, learnt)))
            let delay = backoff.delay(afterFailureAt: EventLoop.now())
            // Stop posts to `wake`: the sleep ends at once then.
            _ = wake.wait(timeout: delay)
        }
        finish()
    }

    /// One attempt: MQTT 5 with the maximum packet size, or plain 3.1.1 after a broker refused 5.
    private func connect(host: String, port: Int32, keepalive: Int32) -> Int32 {
        guard protocolVersion.load(ordering: .relaxed) == MQTT_PROTOCOL_V5 else {
            return mqtt.mosquitto_connect(handle.raw, host, port, keepalive)
        }
        var properties: OpaquePointer?
        defer { mqtt.mosquitto_property_free_all(&properties) }
        let added = mqtt.mosquitto_property_add_int32(&properties, Int32(MQTT_PROP_MAXIMUM_PACKET_SIZE.rawValue), endpoint.maximumPacketSize)
        return mqtt.mosquitto_connect_bind_v5(handle.raw, host, port, keepalive, nil, added == MOSQ_ERR_SUCCESS.rawValue ? properties : nil)
    }

    /// mosquitto_loop until the connection ends (its result code and errno), or, once stop asked
    /// for it, until the DISCONNECT went out (or the grace period passed).
    private func runConnection() -> (Int32, Int32) {
        var stopAsked: TimeStamp?
        while true {
            // 1 s, as libmosquitto's own thread: the keepalive is checked at least that often.
            let rc = mqtt.mosquitto_loop(handle.raw, 1000, 1)
            let error = errno
            if rc != MOSQ_ERR_SUCCESS.rawValue { return (rc, error) }
            guard stopping.load(ordering: .sequentiallyConsistent) else { continue }
            let now = EventLoop.now()
            if stopAsked == nil { stopAsked = now }
            if !connected.load(ordering: .sequentiallyConsistent)
                || now - stopAsked! >= Self.disconnectGrace {
                return (MOSQ_ERR_SUCCESS.rawValue, 0)
            }
        }
    }

    /// The worker's last act: says it ended, or frees the client when stop stopped waiting.
    private func finish() {
        let destroy = lifecycle.withLock { state -> Bool in
            if state == .abandoned {
                state = .destroyed
                return true
            }
            state = .ended
            return false
        }
        if destroy { mqtt.mosquitto_destroy(handle.raw) }
        stopEvents.post(.ended)
    }

    // MARK: - Reasons

    /// One short line for `.lost`: the broker's refusal or goodbye, else what the system,
    /// OpenSSL or libmosquitto said, in the operator's terms.
    func reason(_ rc: Int32, errno error: Int32, _ learnt: Attempt) -> String {
        if let refusal = learnt.refusal { return Self.refusal(refusal) }
        if let code = learnt.disconnect, code >= 128 {
            if code == Int32(MQTT_RC_SESSION_TAKEN_OVER.rawValue) { return takenOver(again: false) }
            return "the broker ended the connection: " + Self.lowercasedStart(MQTTLibrary.string(mqtt.mosquitto_reason_string(code)))
        }
        if learnt.disconnect == MOSQ_ERR_KEEPALIVE.rawValue || rc == MOSQ_ERR_KEEPALIVE.rawValue {
            let within = "within the keepalive (\(Int(endpoint.keepalive.inSeconds.rounded())) s)"
            return learnt.acceptedAt == nil
                ? "no answer to the connection request \(within): is \(endpointName) an MQTT broker?"
                : "the broker stopped answering \(within)"
        }
        if let packet = Self.unrecognisedPacket(learnt.logLines) {
            return "the other end sent an MQTT packet no broker sends (type \(packet)): is \(endpointName) an MQTT broker?"
        }
        let logged = Self.loggedReason(learnt.logLines)
        switch rc {
        case MOSQ_ERR_ERRNO.rawValue:
            return Self.lowercasedStart(String(cString: strerror(error)))
        case MOSQ_ERR_EAI.rawValue:
            return "looking up the host: " + Self.lowercasedStart(String(cString: gai_strerror(error)))
        case MOSQ_ERR_TLS.rawValue, MOSQ_ERR_TLS_HANDSHAKE.rawValue:
            if let why = learnt.tlsReason { return "TLS: " + why }
            return "TLS: " + (logged ?? "handshake failed")
        case MOSQ_ERR_SUCCESS.rawValue, MOSQ_ERR_NO_CONN.rawValue, MOSQ_ERR_CONN_LOST.rawValue:
            // The loop ended without an error of its own (the connection closed under it).
            if let why = learnt.tlsReason, learnt.acceptedAt == nil { return "TLS: " + why }
            return logged ?? (learnt.acceptedAt == nil ? "the connection closed before the broker answered" : "the broker closed the connection")
        default:
            return logged.map { Self.words(rc) + ": " + $0 } ?? Self.words(rc)
        }
    }

    /// Another client connected with the kiosk's id (said by an MQTT 5 broker, or guessed).
    private func takenOver(again: Bool) -> String {
        (again ? "the broker closed the connection again after accepting it: another connection probably uses"
               : "another connection took")
            + " the client id \(echoed(endpoint.clientID, limit: 80)) (two kiosks with one node_id? each must have its own)"
    }

    /// An accepted connection the broker closed without a word or an error of ours.
    static func closedByTheBroker(_ rc: Int32, _ learnt: Attempt) -> Bool {
        learnt.acceptedAt != nil && learnt.logLines.isEmpty && learnt.tlsReason == nil
            && (learnt.disconnect == nil || learnt.disconnect == MOSQ_ERR_CONN_LOST.rawValue)
            && [MOSQ_ERR_SUCCESS.rawValue, MOSQ_ERR_NO_CONN.rawValue, MOSQ_ERR_CONN_LOST.rawValue].contains(rc)
    }

    /// `host:port` for the reasons.
    private var endpointName: String {
        (endpoint.host.contains(":") ? "[\(endpoint.host)]" : endpoint.host) + ":\(endpoint.port)"
    }

    /// The packet type of libmosquitto's "Unrecognised command N" (N is the type times 16).
    static func unrecognisedPacket(_ lines: [String]) -> Int? {
        let prefix = "Error: Unrecognised command "
        for line in lines where line.hasPrefix(prefix) {
            let digits = line.dropFirst(prefix.count).prefix { $0.isASCII && $0.isNumber }
            if let n = Int(digits) { return n >> 4 }
        }
        return nil
    }

    /// libmosquitto's own words for `rc`, as a phrase ("the connection was lost").
    static func words(_ rc: Int32) -> String {
        var text = MQTTLibrary.string(mqtt.mosquitto_strerror(rc))
        if text.hasSuffix(".") { text.removeLast() }
        return lowercasedStart(text)
    }

    /// The CONNACK's refusal, as the broker's code names it ("not authorised"): MQTT 3.1.1's
    /// codes 1-5, MQTT 5's reason codes from 128, the common ones in the same words.
    static func refusal(_ rc: Int32) -> String {
        let same: [Int32: Int32] = [
            Int32(MQTT_RC_UNSUPPORTED_PROTOCOL_VERSION.rawValue): 1, Int32(MQTT_RC_CLIENTID_NOT_VALID.rawValue): 2,
            Int32(MQTT_RC_SERVER_UNAVAILABLE.rawValue): 3, Int32(MQTT_RC_BAD_USERNAME_OR_PASSWORD.rawValue): 4,
            Int32(MQTT_RC_NOT_AUTHORIZED.rawValue): 5,
        ]
        var text: String
        if rc < 128 || same[rc] != nil {
            text = MQTTLibrary.string(mqtt.mosquitto_connack_string(same[rc] ?? rc))
        } else {
            text = MQTTLibrary.string(mqtt.mosquitto_reason_string(rc))
        }
        if text.hasSuffix(".") { text.removeLast() }
        for prefix in ["Connection Refused: ", "Connection refused: "] where text.hasPrefix(prefix) {
            text.removeFirst(prefix.count)
        }
        return "refused by the broker: " + lowercasedStart(text)
    }

    /// The first log line's message without "Error: ", joined with OpenSSL's reason (the text
    /// after the last colon of an "OpenSSL Error[0]: error:0A000086:SSL routines::certificate
    /// verify failed" line); nil when nothing was logged.
    static func loggedReason(_ lines: [String]) -> String? {
        let openSSL = lines.first { $0.hasPrefix("OpenSSL Error") }.map { line -> String in
            let tail = line.split(separator: ":", omittingEmptySubsequences: false).last ?? ""
            return tail.drop { $0 == " " }.isEmpty ? line : String(tail.drop { $0 == " " })
        }
        var own = lines.first { !$0.hasPrefix("OpenSSL Error") }
        if let o = own, o.hasPrefix("Error: ") { own = String(o.dropFirst(7)) }
        if let o = own, o.hasSuffix(".") { own = String(o.dropLast()) }
        switch (own, openSSL) {
        case let (o?, s?): return echoed(o, limit: 160) + ": " + echoed(s, limit: 120)
        case let (o?, nil): return echoed(o, limit: 160)
        case let (nil, s?): return echoed(s, limit: 120)
        default: return nil
        }
    }

    /// "Connection refused" -> "connection refused", "A network ..." -> "a network ..."; an
    /// abbreviation ("TLS ...") stays.
    static func lowercasedStart(_ text: String) -> String {
        let scalars = Array(text.unicodeScalars.prefix(2))
        guard let first = scalars.first, ("A"..."Z").contains(first),
              scalars.count < 2 || !("A"..."Z").contains(scalars[1]) else {
            return text
        }
        return String(text.prefix(1)).lowercased() + text.dropFirst()
    }
}
