import Foundation

/// Runs the real `bubble-kiosk` binary, built beside the test bundle, and captures its output.
struct CommandRunner {
    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String

        /// stdout parsed as one JSON object.
        func json() throws -> [String: Any] {
            let object = try JSONSerialization.jsonObject(with: Data(stdout.utf8))
            guard let dict = object as? [String: Any] else { throw TestFailure("stdout is no JSON object: \(stdout)") }
            return dict
        }

        /// stdout parsed as JSON lines.
        func jsonLines() throws -> [[String: Any]] {
            try stdout.split(separator: "\n").map { line in
                guard let d = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
                    throw TestFailure("not a JSON object: \(line)")
                }
                return d
            }
        }
    }

    struct TestFailure: Error, CustomStringConvertible {
        var description: String
        init(_ d: String) { description = d }
    }

    /// The binary: next to the test bundle in .build/<triple>/debug.
    static var binary: URL {
        var dir = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        if dir.lastPathComponent.hasSuffix(".xctest") { dir.deleteLastPathComponent() }
        return dir.appendingPathComponent("bubble-kiosk")
    }

    @discardableResult
    static func run(_ args: [String], environment: [String: String] = [:]) throws -> Result {
        let p = Process()
        p.executableURL = binary
        p.arguments = args
        var env = ProcessInfo.processInfo.environment
        // Never pick up a developer's /etc config in tests.
        env["BUBBLE_KIOSK_CONFIG_DIR"] = NSTemporaryDirectory() + "bubble-kiosk-no-config"
        for (k, v) in environment { env[k] = v }
        p.environment = env
        let out = Pipe(), err = Pipe()
        p.standardOutput = out
        p.standardError = err
        try p.run()
        // Read before waiting so a large output cannot fill the pipe and block the child.
        let o = out.fileHandleForReading.readDataToEndOfFile()
        let e = err.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return Result(status: p.terminationStatus, stdout: String(decoding: o, as: UTF8.self),
                      stderr: String(decoding: e, as: UTF8.self))
    }

    /// A fresh temporary directory for one test.
    static func temporaryDirectory() throws -> URL {
        let url = URL(fileURLWithPath: NSTemporaryDirectory())
            .appendingPathComponent("bubble-kiosk-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }
}
