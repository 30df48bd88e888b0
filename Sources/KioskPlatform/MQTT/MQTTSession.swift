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
    static let disconnectGraceMS: Int64 = 1000

    /// What one connection attempt learnt, for the reason of its end.
    struct Attempt {
        /// The CONNACK's refusal ("not authorised"), when the broker said no.
        var refusal: String?
        /// libmosquitto's error-level log lines (OpenSSL's words among them).
        var logLines: [String] = []
        /// When the broker accepted the connection.
        var acceptedAt: TimeStamp?
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
        mosquitto_connect_callback_set(mosq) { _, userdata, rc in MQTTSession.from(userdata).onConnect(rc) }
        mosquitto_disconnect_callback_set(mosq) { _, userdata, _ in MQTTSession.from(userdata).onDisconnect() }
        mosquitto_publish_callback_set(mosq) { _, userdata, mid in MQTTSession.from(userdata).onPublish(mid) }
        mosquitto_message_callback_set(mosq) { _, userdata, message in
            guard let m = message?.pointee else { return }
            MQTTSession.from(userdata).onMessage(m)
        }
        mosquitto_log_callback_set(mosq) { _, userdata, level, text in
            guard level & MOSQ_LOG_ERR != 0, let text else { return }
            MQTTSession.from(userdata).onErrorLog(String(cString: text))
        }
    }

    private func onConnect(_ rc: Int32) {
        guard rc == 0 else {
            attempt.withLock { $0.refusal = Self.refusal(rc) }
            return
        }
        attempt.withLock { $0.acceptedAt = EventLoop.now() }
        for topic in endpoint.subscriptions {
            // Queued for the worker to write; it fails only for a malformed filter, which the
            // broker would have refused anyway: the log line says so.
            let r = mosquitto_subscribe(handle.raw, nil, topic, 0)
            if r != MOSQ_ERR_SUCCESS.rawValue { onErrorLog("subscribing to \(echoed(topic)): \(Self.words(r))") }
        }
        connected.store(true, ordering: .sequentiallyConsistent)
        notices.post(.connected)
    }

    private func onDisconnect() {
        connected.store(false, ordering: .sequentiallyConsistent)
        outgoing.withLock { $0.reset() }
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
        let payload = count == 0 || m.payload == nil
            ? [] : Array(UnsafeRawBufferPointer(start: m.payload, count: count))
        undelivered.wrappingAdd(1, ordering: .relaxed)
        notices.post(.message(topic: topic, payload: payload))
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
        var backoff = ReconnectBackoff(seed: seed)
        let host = endpoint.host, port = Int32(clamping: endpoint.port)
        let keepalive = Int32(min(max(endpoint.keepaliveS, 5), 65535))
        while !stopping.load(ordering: .sequentiallyConsistent) {
            attempt.withLock { $0 = Attempt() }
            var rc = mosquitto_connect(handle.raw, host, port, keepalive)
            var error = errno
            if rc == MOSQ_ERR_SUCCESS.rawValue {
                (rc, error) = runConnection()
                connected.store(false, ordering: .sequentiallyConsistent)
                outgoing.withLock { $0.reset() }
            }
            if stopping.load(ordering: .sequentiallyConsistent) { break }
            let learnt = attempt.withLock { $0 }
            if let at = learnt.acceptedAt { backoff.connected(at: at) }
            notices.post(.lost(Self.reason(rc, errno: error, learnt)))
            let delay = backoff.delay(afterFailureAt: EventLoop.now())
            // Stop posts to `wake`: the sleep ends at once then.
            _ = wake.wait(timeoutMS: Int32(clamping: (delay.wholeMicroseconds + 999) / 1000))
        }
        finish()
    }

    /// mosquitto_loop until the connection ends (its result code and errno), or, once stop asked
    /// for it, until the DISCONNECT went out (or the grace period passed).
    private func runConnection() -> (Int32, Int32) {
        var stopAsked: TimeStamp?
        while true {
            // 1 s, as libmosquitto's own thread: the keepalive is checked at least that often.
            let rc = mosquitto_loop(handle.raw, 1000, 1)
            let error = errno
            if rc != MOSQ_ERR_SUCCESS.rawValue { return (rc, error) }
            guard stopping.load(ordering: .sequentiallyConsistent) else { continue }
            let now = EventLoop.now()
            if stopAsked == nil { stopAsked = now }
            if !connected.load(ordering: .sequentiallyConsistent)
                || now.milliseconds(since: stopAsked!) >= Double(Self.disconnectGraceMS) {
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
        if destroy { mosquitto_destroy(handle.raw) }
        stopEvents.post(.ended)
    }

    // MARK: - Reasons

    /// One short line for `.lost`: the broker's refusal, else what the system, OpenSSL or
    /// libmosquitto said.
    static func reason(_ rc: Int32, errno error: Int32, _ learnt: Attempt) -> String {
        if let refusal = learnt.refusal { return refusal }
        let logged = loggedReason(learnt.logLines)
        switch rc {
        case MOSQ_ERR_ERRNO.rawValue:
            return lowercasedStart(String(cString: strerror(error)))
        case MOSQ_ERR_EAI.rawValue:
            return "looking up the host: " + lowercasedStart(String(cString: gai_strerror(error)))
        case MOSQ_ERR_TLS.rawValue:
            return "TLS: " + (logged ?? "handshake failed")
        case MOSQ_ERR_SUCCESS.rawValue:
            // The loop ended without an error code (the connection closed under it).
            return logged ?? "connection closed"
        default:
            return logged.map { words(rc) + ": " + $0 } ?? words(rc)
        }
    }

    /// libmosquitto's own words for `rc`, as a phrase ("the connection was lost").
    static func words(_ rc: Int32) -> String {
        var text = String(cString: mosquitto_strerror(rc))
        if text.hasSuffix(".") { text.removeLast() }
        return lowercasedStart(text)
    }

    /// The CONNACK's refusal, as the broker's code names it ("not authorised").
    static func refusal(_ rc: Int32) -> String {
        var text = String(cString: mosquitto_connack_string(rc))
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
