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
            guard isIPv6(host) else {
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
            if let problem = hostProblem(host) { return .failure(Problem(description: problem)) }
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

    /// What no resolver would take in a host outside brackets, or nil: digits and dots only must
    /// be an IPv4 address (`999.999.999.999` is no name either); a name is dot-separated labels
    /// of 1 to 63 letters, digits, `-` and `_`, no label starting or ending with `-`, at most 253
    /// bytes, one trailing dot allowed.
    static func hostProblem(_ host: Substring) -> String? {
        guard host.utf8.count <= 253 else { return "a host name is at most 253 characters" }
        guard host.unicodeScalars.allSatisfy(isHostScalar) else {
            return "a host name has only letters, digits, '.', '-' and '_'"
        }
        if host.allSatisfy({ $0 == "." || $0.isASCII && $0.isNumber }) {
            return isIPv4(host) ? nil : "not an IPv4 address (four numbers from 0 to 255)"
        }
        var labels = host.split(separator: ".", omittingEmptySubsequences: false)
        if labels.count > 1, labels.last == "" { labels.removeLast() }
        for label in labels {
            guard !label.isEmpty, label.count <= 63 else { return "a host name's parts between dots are 1 to 63 characters" }
            guard label.first != "-", label.last != "-" else { return "a part of a host name starts or ends with '-'" }
        }
        return nil
    }

    /// Four decimal numbers from 0 to 255 without leading zeros, as `inet_pton` takes them.
    static func isIPv4(_ text: Substring) -> Bool {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts.allSatisfy { part in
            guard (1...3).contains(part.count), part.allSatisfy({ $0.isASCII && $0.isNumber }),
                  part.count == 1 || part.first != "0", let n = Int(part) else { return false }
            return n <= 255
        }
    }

    /// An IPv6 address as `inet_pton` takes it: eight groups of 1 to 4 hex digits, `::` once
    /// for a run of zero groups, the last two groups possibly an IPv4 address.
    static func isIPv6(_ text: Substring) -> Bool {
        guard text.utf8.count <= 45 else { return false }
        let pieces = text.split(separator: ":", omittingEmptySubsequences: false)
        // "::" leaves one empty piece where it stands, two at either end ("::1", "1::"), three alone.
        var groups = 0
        var gaps = 0
        for (i, piece) in pieces.enumerated() {
            if piece.isEmpty {
                let atEnd = i == 0 || i == pieces.count - 1
                let partner = i == 0 ? pieces.count > 1 && pieces[1].isEmpty : i == pieces.count - 1 && pieces[i - 1].isEmpty
                guard !atEnd || partner else { return false }  // a lone ':' at either end
                gaps += 1
                continue
            }
            if i == pieces.count - 1 && piece.contains(".") {
                guard isIPv4(piece) else { return false }
                groups += 2
            } else {
                guard (1...4).contains(piece.count), piece.allSatisfy(\.isHexDigit) else { return false }
                groups += 1
            }
        }
        switch gaps {
        case 0: return groups == 8
        case 1: return groups <= 7 && pieces.count > 2
        case 2: return groups <= 7 && (pieces.first!.isEmpty && pieces[1].isEmpty || pieces.last!.isEmpty && pieces[pieces.count - 2].isEmpty)
        case 3: return pieces.count == 3  // "::"
        default: return false
        }
    }

    private static func isHostScalar(_ s: Unicode.Scalar) -> Bool {
        switch s {
        case "a"..."z", "A"..."Z", "0"..."9", ".", "-", "_": return true
        default: return false
        }
    }
}
