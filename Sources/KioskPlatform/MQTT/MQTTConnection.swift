internal import CMosquitto
import Glibc
import KioskCore

/// The kiosk's connection to an MQTT broker (libmosquitto), kept up for as long as it runs.
///
/// A worker thread owns connecting and reconnecting and runs `mosquitto_loop`; it never gives
/// up (unlike `mosquitto_loop_forever`, which stops for good on a DNS or TLS failure at boot)
/// and waits `ReconnectBackoff`'s delays between attempts. What happens reaches the loop as
/// `MQTTNotice`s through a mailbox. Publishing (QoS 0) from the loop's thread only queues: it
/// never blocks, and a bounded queue refuses (and counts) what a stalled broker cannot take.
public final class MQTTConnection {
    /// How long `stop` waits for the farewell to be written, and then for the worker to end.
    static let stopWait = Duration.seconds(2)

    private let session: MQTTSession
    private var worker: WorkerThread?
    private weak var loop: EventLoop?
    /// The loop delivering the worker's notices.
    private var noticesWatch: LoopRegistration?
    private var stopped = false

    /// Sets up the client: nothing connects before `start`. Throws `MQTTSetupError` (or
    /// `SystemError` for a TLS file that cannot be read) naming the file or setting and why.
    public init(endpoint: MQTTEndpoint) throws {
        let mqtt = try MQTTLibrary.require()
        if endpoint.tls { try Self.checkTLSFiles(endpoint) }
        let clientID = endpoint.clientID.isEmpty ? nil : endpoint.clientID
        guard let mosq = mqtt.mosquitto_new(clientID, true, nil) else {
            throw SystemError("mosquitto_new", "client id \(echoed(endpoint.clientID))")
        }
        let handle = MosquittoHandle(raw: mosq)
        do {
            session = try MQTTSession(handle: handle, endpoint: endpoint)
        } catch {
            mqtt.mosquitto_destroy(mosq)
            throw error
        }
        // From here deinit frees the client.
        mqtt.mosquitto_user_data_set(mosq, Unmanaged.passUnretained(session).toOpaque())
        try configure(mosq, endpoint)
        session.installCallbacks()
    }

    deinit {
        if worker != nil {
            stop(farewell: nil)
        } else {
            destroyClient()
        }
    }

    /// The broker has accepted the connection (and it has not dropped since, as far as
    /// libmosquitto knows).
    public var isConnected: Bool { session.connected.load(ordering: .sequentiallyConsistent) }

    /// Messages `publish` refused because the outgoing queue was full.
    public var droppedPublishes: Int { session.droppedPublishes.load(ordering: .relaxed) }

    /// Incoming messages dropped because more than 256 waited for the loop already.
    public var droppedMessages: Int { session.droppedMessages.load(ordering: .relaxed) }

    /// Incoming messages dropped unread for their size (`MQTTEndpoint.maximumIncomingPayload`).
    public var oversizedMessages: Int { session.oversizedMessages.load(ordering: .relaxed) }

    /// Starts the worker; `deliver` gets the notices on the loop's thread, oldest first. Call
    /// once, after the loop exists (the worker inherits its blocked signals).
    public func start(on loop: EventLoop, _ deliver: @escaping ([MQTTNotice]) -> Void) throws {
        precondition(worker == nil && !stopped, "an MQTT connection starts once")
        let session = self.session
        noticesWatch = session.notices.attach(to: loop, name: "mqtt") { notices in
            let messages = notices.reduce(0) { n, notice in
                switch notice {
                case .message, .oversized: return n + 1
                default: return n
                }
            }
            if messages > 0 { session.undelivered.wrappingSubtract(messages, ordering: .relaxed) }
            deliver(notices)
        }
        self.loop = loop
        let seed = ReconnectBackoff.seed(session.endpoint.clientID)
        do {
            worker = try WorkerThread(name: "mqtt") { session.run(seed: seed) }
        } catch {
            noticesWatch?.cancel()
            throw error
        }
    }

    /// Queues `message` (QoS 0) from the loop's thread; never blocks. False when not connected,
    /// stopped, when libmosquitto refuses it (a malformed topic), or when 64 messages or 8 MiB
    /// wait to be written already (then `droppedPublishes` counts it).
    @discardableResult
    public func publish(_ message: MQTTMessage) -> Bool {
        guard !stopped, isConnected else { return false }
        guard publishQueued(message, force: false) != nil else { return false }
        return true
    }

    /// Ends the connection and the worker, within about 4 s whatever the network does. When
    /// connected and given a `farewell`, publishes it and waits (up to 2 s) until it is written,
    /// then disconnects cleanly: the broker does not publish the will then, so the farewell
    /// says goodbye instead. The worker gets 2 s more to end; one stuck (a connect to a
    /// black-holed address) is left behind and frees the client itself should it ever end,
    /// so the kiosk's exit never hangs here.
    public func stop(farewell: MQTTMessage?) {
        guard !stopped else { return }
        stopped = true
        guard let worker else {
            destroyClient()
            return
        }
        noticesWatch?.cancel()
        loop = nil
        let start = EventLoop.now()
        if let farewell, isConnected {
            session.watchingWrites.store(true, ordering: .sequentiallyConsistent)
            if let mid = publishQueued(farewell, force: true) {
                wait(until: start + Self.stopWait) { event in
                    event == .written && !self.session.outgoing.withLock { $0.isPending(mid) }
                        || !self.isConnected
                } alreadyDone: {
                    !self.session.outgoing.withLock { $0.isPending(mid) } || !self.isConnected
                }
            }
        }
        session.stopping.store(true, ordering: .sequentiallyConsistent)
        if isConnected {
            // Queues DISCONNECT and wakes the worker, which writes it and sees the socket close.
            _ = mqtt.mosquitto_disconnect(session.handle.raw)
        }
        session.wake.post(true)
        var ended = false
        wait(until: EventLoop.now() + Self.stopWait) { event in
            if event == .ended { ended = true }
            return ended
        } alreadyDone: { false }
        let state = session.lifecycle.withLock { state -> MQTTSession.Lifecycle in
            if state == .running { state = .abandoned }
            return state
        }
        if state == .ended {
            worker.join()
            destroyClient()
        }
        // Abandoned: the worker frees the client when (if ever) its connect returns.
        self.worker = nil
    }

    /// Publishes through libmosquitto with the queue's accounting; the message id, or nil.
    private func publishQueued(_ message: MQTTMessage, force: Bool) -> Int32? {
        let size = message.payload.count
        guard let generation = session.outgoing.withLock({ $0.reserve(size, force: force) }) else {
            session.droppedPublishes.wrappingAdd(1, ordering: .relaxed)
            return nil
        }
        var mid: Int32 = 0
        let rc = message.payload.withUnsafeBytes { bytes in
            mqtt.mosquitto_publish(session.handle.raw, &mid, message.topic, Int32(clamping: bytes.count),
                                   bytes.baseAddress, 0, message.retain)
        }
        guard rc == MOSQ_ERR_SUCCESS.rawValue else {
            session.outgoing.withLock { $0.cancel(size: size, generation: generation) }
            return nil
        }
        session.outgoing.withLock { $0.queued(mid: mid, size: size, generation: generation) }
        return mid
    }

    /// Waits on the worker's stop events until `done` says so for one, `alreadyDone` holds, or
    /// `deadline` passes.
    private func wait(until deadline: TimeStamp, _ done: (MQTTStopEvent) -> Bool, alreadyDone: () -> Bool) {
        while !alreadyDone() {
            let left = deadline - EventLoop.now()
            if left <= .zero { return }
            let events = session.stopEvents.wait(timeout: left)
            if events.contains(where: done) { return }
        }
    }

    private func destroyClient() {
        let destroy = session.lifecycle.withLock { state -> Bool in
            guard state != .destroyed, state != .abandoned else { return false }
            state = .destroyed
            return true
        }
        if destroy { mqtt.mosquitto_destroy(session.handle.raw) }
    }

    // MARK: - Setup

    /// Will, credentials and TLS, each checked: a setting libmosquitto refuses is an error now,
    /// not a connection that silently never works.
    private func configure(_ mosq: OpaquePointer, _ endpoint: MQTTEndpoint) throws {
        func check(_ rc: Int32, _ what: String) throws {
            if rc != MOSQ_ERR_SUCCESS.rawValue {
                throw MQTTSetupError("\(what): \(MQTTSession.words(rc))")
            }
        }
        try check(mqtt.mosquitto_threaded_set(mosq, true), "threaded mode")
        let will = endpoint.will
        try check(will.payload.withUnsafeBytes { bytes in
            mqtt.mosquitto_will_set(mosq, will.topic, Int32(clamping: bytes.count), bytes.baseAddress, 1, will.retain)
        }, "last will on \(echoed(will.topic))")
        if endpoint.username != nil || endpoint.password != nil {
            try check(mqtt.mosquitto_username_pw_set(mosq, endpoint.username ?? "", endpoint.password), "user name and password")
        }
        // Told at every connect (MQTT 5); a 3.1.1 broker is answered in kind (MQTTSession.run).
        try check(mqtt.mosquitto_int_option(mosq, MOSQ_OPT_PROTOCOL_VERSION, MQTT_PROTOCOL_V5), "MQTT 5")
        guard endpoint.tls else { return }
        try useOwnTLSContext(mosq)
        // Without a CA file, the system's CAs (Debian's ca-certificates) are trusted.
        let caPath: String? = endpoint.caFile == nil ? "/etc/ssl/certs" : nil
        try check(mqtt.mosquitto_tls_set(mosq, endpoint.caFile, caPath, endpoint.certFile, endpoint.keyFile, nil),
                  "TLS files")
        // SSL_VERIFY_PEER (1); "tlsv1.2" means TLS 1.2 or newer. tls_insecure is never set: the
        // broker's host name is always checked against its certificate.
        try check(mqtt.mosquitto_tls_opts_set(mosq, 1, "tlsv1.2", nil), "TLS options")
    }

    /// A TLS context of the kiosk's own, which libmosquitto sets up as it would its own (CA
    /// files, TLS version). The kiosk checks the broker's certificate itself, with OpenSSL's own
    /// chain, expiry and host name checks, so that a refusal says why: libmosquitto logs only
    /// "certificate verify failed" for an expired certificate and an unknown CA alike (and
    /// 2.0.11's own check cannot work with a context it did not make).
    private func useOwnTLSContext(_ mosq: OpaquePointer) throws {
        guard let context = mqtt.SSL_CTX_new(mqtt.TLS_client_method()) else {
            throw MQTTSetupError("cannot make a TLS context (OpenSSL)")
        }
        // libmosquitto takes its own reference.
        defer { mqtt.SSL_CTX_free(context) }
        let me = Unmanaged.passUnretained(session).toOpaque()
        _ = mqtt.SSL_CTX_set_ex_data(context, 0, me)
        mqtt.SSL_CTX_set_cert_verify_callback(context, { store, data in
            guard let store, let data else { return 0 }
            let session = Unmanaged<MQTTSession>.fromOpaque(data).takeUnretainedValue()
            // OpenSSL's checks alone (libmosquitto's per-certificate callback replaced), with the
            // broker's name or address to match: the certificate must be for the host dialled.
            mqtt.X509_STORE_CTX_set_verify_cb(store) { ok, _ in ok }
            let param = mqtt.X509_STORE_CTX_get0_param(store)
            if mqtt.X509_VERIFY_PARAM_set1_ip_asc(param, session.endpoint.host) != 1 {
                _ = mqtt.X509_VERIFY_PARAM_set1_host(param, session.endpoint.host, 0)
            }
            let ok = mqtt.X509_verify_cert(store)
            if ok <= 0 { session.onCertificateRefused(mqtt.X509_STORE_CTX_get_error(store)) }
            return ok
        }, me)
        // What the broker says when it refuses the kiosk (a client certificate it wants).
        mqtt.SSL_CTX_set_info_callback(context) { ssl, place, value in
            // Fatal alerts only: a close_notify ends every clean TLS connection.
            guard place & SSL_CB_ALERT != 0, place & SSL_CB_READ != 0, (value >> 8) & 0xFF == 2, let ssl,
                  let context = mqtt.SSL_get_SSL_CTX(ssl), let data = mqtt.SSL_CTX_get_ex_data(context, 0) else { return }
            Unmanaged<MQTTSession>.fromOpaque(data).takeUnretainedValue()
                .onTLSRefusal("the broker refused the kiosk: " + MQTTLibrary.string(mqtt.SSL_alert_desc_string_long(value)))
        }
        let rc = mqtt.mosquitto_void_option(mosq, MOSQ_OPT_SSL_CTX, UnsafeMutableRawPointer(context))
        if rc != MOSQ_ERR_SUCCESS.rawValue { throw MQTTSetupError("the TLS context: \(MQTTSession.words(rc))") }
    }

    /// Every TLS file named must be a regular file the kiosk's user can read now (libmosquitto's
    /// own check says only "invalid", OpenSSL's later one arrives as a failed connection, and a
    /// FIFO would hang both): read through the one reader that refuses anything else.
    private static func checkTLSFiles(_ endpoint: MQTTEndpoint) throws {
        if (endpoint.certFile == nil) != (endpoint.keyFile == nil) {
            throw MQTTSetupError("a client certificate needs its key file and a key file its certificate (cert_file and key_file)")
        }
        for (key, path) in [("ca_file", endpoint.caFile), ("cert_file", endpoint.certFile), ("key_file", endpoint.keyFile)] {
            guard let path else { continue }
            do {
                // PEM files are small; a large one is not a certificate.
                _ = try FileSystem.readBytes(path, limit: 1 << 20)
            } catch let refusal as FileRefusal {
                throw MQTTSetupError("\(key) \(echoed(path, limit: 200)): \(refusal)")
            } catch let error as SystemError {
                throw MQTTSetupError("\(key) \(echoed(path, limit: 200)): \(error.reason)")
            }
        }
    }
}
