// TEMPORARY: replaced by the real connection on merge.
public struct MQTTMessage: Sendable, Equatable { public var topic: String; public var payload: [UInt8]; public var retain: Bool
    public init(topic: String, payload: [UInt8], retain: Bool) { self.topic = topic; self.payload = payload; self.retain = retain } }
public struct MQTTEndpoint: Sendable {
    public var host: String; public var port: Int; public var tls: Bool
    public var caFile: String?; public var certFile: String?; public var keyFile: String?
    public var username: String?; public var password: String?
    public var clientID: String; public var keepaliveS: Int
    public var will: MQTTMessage; public var subscriptions: [String]
    public init(host: String, port: Int, tls: Bool, caFile: String? = nil, certFile: String? = nil, keyFile: String? = nil, username: String? = nil, password: String? = nil, clientID: String, keepaliveS: Int, will: MQTTMessage, subscriptions: [String]) {
        self.host = host; self.port = port; self.tls = tls; self.caFile = caFile; self.certFile = certFile; self.keyFile = keyFile; self.username = username; self.password = password; self.clientID = clientID; self.keepaliveS = keepaliveS; self.will = will; self.subscriptions = subscriptions }
}
public enum MQTTNotice: Sendable, Equatable { case connected; case lost(String); case message(topic: String, payload: [UInt8]) }
public final class MQTTConnection {
    public init(endpoint: MQTTEndpoint) throws {}
    public func start(on loop: EventLoop, _ deliver: @escaping ([MQTTNotice]) -> Void) throws {}
    public var isConnected: Bool { false }
    @discardableResult public func publish(_ message: MQTTMessage) -> Bool { false }
    public var droppedPublishes: Int { 0 }
    public func stop(farewell: MQTTMessage?) {}
}
