/// Where `[mqtt] broker` says the broker is: `mqtt://HOST[:PORT]` (plain, port 1883) or
/// `mqtts://HOST[:PORT]` (TLS with the certificate checked, port 8883). HOST is a name, an IPv4
/// address or a bracketed IPv6 one (`[::1]`).
public struct MQTTBroker: Equatable, Sendable, CustomStringConvertible {
    public var host: String
    public var port: Int
    public var tls: Bool

    public static let plainPort = 1883
    public static let tlsPort = 8883
    public static let expectation = "mqtt://HOST[:PORT] or mqtts://HOST[:PORT]"

    public init(host: String, port: Int, tls: Bool) {
        self.host = host
        self.port = port
        self.tls = tls
    }

    public var description: String {
        (tls ? "mqtts://" : "mqtt://") + (host.contains(":") ? "[\(host)]" : host) + ":\(port)"
    }

    /// What is wrong with a broker address: a few words, no value quoted.
    public struct Problem: Error, Equatable, Sendable, CustomStringConvertible {
        public let description: String
    }

    /// The broker `text` names, or what is wrong with it.
    public static func parse(_ text: String) -> Result<MQTTBroker, Problem> {
        let tls: Bool
        let rest: Substring
        if text.hasPrefix("mqtts://") {
            tls = true
            rest = text.dropFirst(8)
        } else if text.hasPrefix("mqtt://") {
            tls = false
            rest = text.dropFirst(7)
        } else {
            return .failure(Problem(description: "no mqtt:// or mqtts:// in front"))
        }
        // A path, user info or query has no meaning for a broker: refused rather than dropped.
        if rest.contains(where: { $0 == "/" || $0 == "@" || $0 == "?" || $0 == "#" }) {
            return .failure(Problem(description: "only a host and a port may follow the scheme"))
        }
        var host: Substring
        var portText: Substring?
        if rest.hasPrefix("[") {
            guard let close = rest.firstIndex(of: "]") else { return .failure(Problem(description: "an IPv6 address without its ]")) }
            host = rest[rest.index(after: rest.startIndex)..<close]
            let after = rest[rest.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { return .failure(Problem(description: "something other than :PORT after the ]")) }
                portText = after.dropFirst()
            }
            guard !host.isEmpty, host.allSatisfy({ $0.isHexDigit || $0 == ":" || $0 == "." }) else {
                return .failure(Problem(description: "not an IPv6 address inside [ ]"))
            }
        } else {
            if let colon = rest.firstIndex(of: ":") {
                host = rest[..<colon]
                portText = rest[rest.index(after: colon)...]
            } else {
                host = rest
            }
            guard !host.isEmpty else { return .failure(Problem(description: "no host")) }
            guard host.utf8.count <= 253, host.unicodeScalars.allSatisfy(isHostScalar) else {
                return .failure(Problem(description: "a host name has only letters, digits, '.', '-' and '_'"))
            }
        }
        var port = tls ? tlsPort : plainPort
        if let portText {
            guard !portText.isEmpty, portText.count <= 5, portText.allSatisfy({ $0.isASCII && $0.isNumber }),
                  let n = Int(portText), (1...65535).contains(n) else {
                return .failure(Problem(description: "the port is not a number from 1 to 65535"))
            }
            port = n
        }
        return .success(MQTTBroker(host: String(host), port: port, tls: tls))
    }

    /// For the config key's check: nil when `text` names a broker, else what is expected.
    public static func problem(_ text: String) -> String? {
        switch parse(text) {
        case .success: return nil
        case .failure(let why): return "\(expectation) (\(why))"
        }
    }

    private static func isHostScalar(_ s: Unicode.Scalar) -> Bool {
        switch s {
        case "a"..."z", "A"..."Z", "0"..."9", ".", "-", "_": return true
        default: return false
        }
    }
}
