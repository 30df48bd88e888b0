import Glibc

/// A real mosquitto broker on a loopback port, for tests of the MQTT connection: started with
/// posix_spawn, killed (SIGKILL, as a crash or a power cut would) and started again on the same
/// port. Killed when the value goes away.
public final class MosquittoBroker {
    /// Debian's broker (package mosquitto, which `make test` installs).
    public static let path = "/usr/sbin/mosquitto"

    /// Why a broker could not run: one line for the test's failure.
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    public let port: Int
    public let folder = TemporaryDirectory("bubble-mqtt")
    public private(set) var pid: pid_t = 0
    /// The broker's log (connections, disconnections, will messages), for a failed test's notes.
    public var logPath: String { folder.path + "/broker.log" }

    /// Picks a free loopback port and writes the configuration; `start` runs the broker.
    /// `listenerLines` configure the listener (TLS files); without `anonymous` every client
    /// is refused as not authorised (there are no users).
    public init(anonymous: Bool = true, listenerLines: [String] = []) throws {
        guard access(Self.path, X_OK) == 0 else {
            throw Failure(description: "\(Self.path) is missing: the MQTT tests need Debian's mosquitto broker "
                + "(apt-get install mosquitto mosquitto-clients; make test installs them)")
        }
        port = try Self.freePort()
        // `user root`: as root, keep root rather than switch to the mosquitto user, who could
        // not write the log in this folder.
        writeFile(folder.path + "/mosquitto.conf", """
            listener \(port) 127.0.0.1
            \(listenerLines.joined(separator: "\n"))
            allow_anonymous \(anonymous)
            persistence false
            user root
            log_dest file \(logPath)
            log_type all

            """)
    }

    /// A self-signed certificate (its own CA) and its key, `NAME.pem` and `NAME.key` in
    /// `folder`, for `subjectAltName` (`IP:127.0.0.1`); the certificate's path.
    public static func makeCertificate(in folder: String, name: String, subjectAltName: String) throws -> String {
        let base = folder + "/" + name
        let command = "openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 "
            + "-subj /CN=\(name) -addext subjectAltName=\(subjectAltName) -keyout \(base).key -out \(base).pem 2>/dev/null"
        guard system(command) == 0 else { throw Failure(description: "openssl could not make a certificate: \(command)") }
        return base + ".pem"
    }

    /// A certificate for `subjectAltName` signed by the CA `ca` (made by `makeCertificate` in
    /// the same folder), valid for `days` (negative: expired already), with its key; its path.
    public static func makeSignedCertificate(in folder: String, name: String, ca: String, subjectAltName: String,
                                             days: Int) throws -> String {
        let base = folder + "/" + name
        let command = "openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -subj /CN=\(name) "
            + "-keyout \(base).key -out \(base).csr 2>/dev/null && printf 'subjectAltName=\(subjectAltName)\\n' > \(base).ext && "
            + "openssl x509 -req -in \(base).csr -CA \(folder)/\(ca).pem -CAkey \(folder)/\(ca).key -CAcreateserial "
            + "-days \(days) -extfile \(base).ext -out \(base).pem 2>/dev/null"
        guard system(command) == 0 else { throw Failure(description: "openssl could not sign a certificate: \(command)") }
        return base + ".pem"
    }

    deinit { kill() }

    /// Starts the broker and waits (up to 5 s) until it accepts connections.
    public func start() throws {
        precondition(pid == 0, "the broker runs already")
        let words: [String] = [Self.path, "-c", folder.path + "/mosquitto.conf"]
        let argv: [UnsafeMutablePointer<CChar>?] = words.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        // Its standard output and error (the warning about running as root) go to a file.
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, folder.path + "/broker.out", O_WRONLY | O_CREAT | O_APPEND, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        var child: pid_t = 0
        let status = argv.withUnsafeBufferPointer { posix_spawn(&child, Self.path, &actions, nil, $0.baseAddress!, environ) }
        guard status == 0 else {
            throw Failure(description: "posix_spawn \(Self.path): \(String(cString: strerror(status)))")
        }
        pid = child
        let listening = try eventually(within: .seconds(5), every: .milliseconds(20)) {
            if Self.accepts(port: port) { return true }
            var exit: Int32 = 0
            if waitpid(child, &exit, WNOHANG) == child {
                pid = 0
                throw Failure(description: "mosquitto exited at once (status \(exit)); its log: \(logPath)")
            }
            return false
        }
        if listening { return }
        throw Failure(description: "mosquitto did not listen on 127.0.0.1:\(port) within 5 s; its log: \(logPath)")
    }

    /// Kills the broker at once (no goodbye to its clients) and reaps it.
    public func kill() {
        guard pid > 0 else { return }
        _ = Glibc.kill(pid, SIGKILL)
        var status: Int32 = 0
        _ = waitpid(pid, &status, 0)
        pid = 0
    }

    /// Suspends (SIGSTOP) or resumes (SIGCONT) the broker: it keeps its connections but reads none.
    public func suspend(_ yes: Bool) {
        guard pid > 0 else { return }
        _ = Glibc.kill(pid, yes ? SIGSTOP : SIGCONT)
    }

    /// A loopback TCP port nothing listens on now (the kernel's pick, released at once).
    public static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "socket: errno \(errno)") }
        defer { close(fd) }
        var address = loopback(port: 0)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let ok = withUnsafeMutablePointer(to: &address) { p in
            p.withMemoryRebound(to: sockaddr.self, capacity: 1) { sa in
                bind(fd, sa, length) == 0 && getsockname(fd, sa, &length) == 0
            }
        }
        guard ok else { throw Failure(description: "bind/getsockname on 127.0.0.1: errno \(errno)") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// Whether something accepts TCP connections on the loopback port.
    public static func accepts(port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = loopback(port: port)
        return withUnsafePointer(to: &address) { p in
            p.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
    }

    private static func loopback(port: Int) -> sockaddr_in {
        var a = sockaddr_in()
        a.sin_family = sa_family_t(AF_INET)
        a.sin_port = UInt16(port).bigEndian
        a.sin_addr.s_addr = UInt32(0x7f00_0001).bigEndian
        return a
    }
}
