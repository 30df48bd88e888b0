import KioskCore

/// One message to publish (QoS 0 always: state is re-sent on reconnect, never replayed).
public struct MQTTMessage: Sendable, Equatable {
    public var topic: String
    public var payload: [UInt8]
    public var retain: Bool

    public init(topic: String, payload: [UInt8], retain: Bool) {
        self.topic = topic
        self.payload = payload
        self.retain = retain
    }
}

/// Where and how to connect.
public struct MQTTEndpoint: Sendable {
    public var host: String
    public var port: Int
    /// mqtts: the broker's certificate is always verified (chain and host name), TLS 1.2 or newer.
    public var tls: Bool
    /// PEM file of the CAs to trust; nil with `tls` trusts the system's (/etc/ssl/certs).
    public var caFile: String?
    /// The client certificate and its key (PEM), both or neither.
    public var certFile: String?
    public var keyFile: String?
    public var username: String?
    public var password: String?
    public var clientID: String
    /// Seconds; libmosquitto accepts 5-65535, so values outside are clamped.
    public var keepalive: Duration
    /// Published by the broker if we vanish (sent QoS 1, retained as given).
    public var will: MQTTMessage
    /// Subscribed (QoS 0) on every (re)connect. In MQTT 5 a message keeps the retain flag it
    /// was published with (a command published retained is known as one at once)...
    public var subscriptions: [String]
    /// ...but on these, as in MQTT 3.1.1, only the broker's stored copy carries it (Home
    /// Assistant's `online`, which some set up retained: a live one is news, the stored one not).
    public var retainFlagFromStoreOnly: Set<String> = []
    /// Incoming payloads longer than this are dropped unread (`MQTTNotice.oversized`); a broker
    /// that speaks MQTT 5 is told a maximum packet size that keeps larger ones from being sent.
    public var maximumIncomingPayload: Int
    /// After losing a connection that had lasted: the first try at a random time up to this.
    public var reconnectSpread: Duration

    public init(host: String, port: Int = 1883, tls: Bool = false, caFile: String? = nil, certFile: String? = nil,
                keyFile: String? = nil, username: String? = nil, password: String? = nil, clientID: String,
                keepalive: Duration = .seconds(30), will: MQTTMessage, subscriptions: [String] = [],
                maximumIncomingPayload: Int = 64 << 10, reconnectSpread: Duration = ReconnectBackoff.defaultSpread) {
        self.host = host
        self.port = port
        self.tls = tls
        self.caFile = caFile
        self.certFile = certFile
        self.keyFile = keyFile
        self.username = username
        self.password = password
        self.clientID = clientID
        self.keepalive = keepalive
        self.will = will
        self.subscriptions = subscriptions
        self.maximumIncomingPayload = max(maximumIncomingPayload, 0)
        self.reconnectSpread = reconnectSpread
    }

    /// The MQTT 5 maximum packet size the broker is told: the largest payload taken, with room
    /// for a long topic, the fixed header and properties.
    public var maximumPacketSize: UInt32 { UInt32(clamping: maximumIncomingPayload + 2048) }
}

/// What the connection tells the loop.
public enum MQTTNotice: Sendable, Equatable {
    /// The broker accepted the connection; the subscriptions are on their way.
    case connected
    /// A connection dropped, or an attempt failed: one short human reason including
    /// libmosquitto's or OpenSSL's words ("connection refused", "TLS: certificate verify failed",
    /// "not authorised"). Another attempt follows after the backoff.
    case lost(String)
    /// A message on a subscription. `retained`: it carries the retain flag: it comes from the
    /// broker's store (handed over on subscribing), or, in MQTT 5, was published retained.
    case message(topic: String, payload: [UInt8], retained: Bool)
    /// A message whose payload is longer than `maximumIncomingPayload`: dropped unread.
    case oversized(topic: String, bytes: Int)
    /// Something about the connection worth one log line that is neither up nor down (the
    /// broker speaks an older protocol).
    case remark(String)
}

/// A connection that cannot be set up as configured (a file unreadable, settings libmosquitto
/// refuses): one line naming what and why.
public struct MQTTSetupError: Error, CustomStringConvertible {
    public var description: String

    public init(_ description: String) { self.description = description }
}
