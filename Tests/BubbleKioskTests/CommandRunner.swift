import Foundation
import KioskTestSupport

/// Runs the real `bubble-kiosk` binary, built beside the test bundle, and captures its output.
struct CommandRunner {
    struct Result {
        var status: Int32
        /// The signal that ended the process, if one did (`status` is then the signal number).
        var signal: Int32?
        /// The process outlived the timeout and was killed.
        var timedOut = false
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

    /// Runs the binary; one that is still running after `timeout` seconds is killed, so a hang
    /// fails the test instead of stalling the run.
    @discardableResult
    static func run(_ args: [String], environment: [String: String] = [:], timeout: Double = 120) throws -> Result {
        try run(binary, args, environment: environment, timeout: timeout)
    }

    /// Runs `script` with bash (`$0` is the binary, `$1`... `args`), with the environment the
    /// binary gets from `run`: a pipe, a limit (`ulimit`) around the kiosk.
    static func shell(_ script: String, _ args: [String] = [], environment: [String: String] = [:],
                      timeout: Double = 120) throws -> Result {
        try run(URL(fileURLWithPath: "/bin/bash"), ["-c", script, binary.path] + args, environment: environment, timeout: timeout)
    }

    private static func run(_ executable: URL, _ args: [String], environment: [String: String], timeout: Double) throws -> Result {
        let p = Process()
        p.executableURL = executable
        p.arguments = args
        var env = ProcessInfo.processInfo.environment
        // Never pick up a developer's /etc config in tests.
        env["BUBBLE_KIOSK_CONFIG_DIR"] = NSTemporaryDirectory() + "bubble-kiosk-no-config"
        // Nor its sound card: ALSA's default device is the null plugin (tests override it).
        env["ALSA_CONFIG_PATH"] = TestALSA.silentConfig
        // Nor write its /var/lib/bubble-kiosk: scores go to a scratch folder unless the test names one.
        if !args.contains("--state-dir") && environment["STATE_DIRECTORY"] == nil {
            env["STATE_DIRECTORY"] = NSTemporaryDirectory() + "bubble-kiosk-test-state"
        }
        for (k, v) in environment { env[k] = v }
        p.environment = env
        let out = Pipe(), err = Pipe()
        p.standardOutput = out
        p.standardError = err
        try p.run()
        let timedOut = Locked(false)
        let pid = p.processIdentifier
        let finished = Locked(false)
        DispatchQueue.global().asyncAfter(deadline: .now() + timeout) {
            guard !finished.value else { return }
            timedOut.value = true
            kill(pid, SIGKILL)
        }
        // Read both pipes at once so neither can fill up and block the child.
        let e = Locked(Data())
        let errorRead = DispatchGroup()
        errorRead.enter()
        let errorHandle = err.fileHandleForReading
        DispatchQueue.global().async {
            e.value = errorHandle.readDataToEndOfFile()
            errorRead.leave()
        }
        let o = out.fileHandleForReading.readDataToEndOfFile()
        errorRead.wait()
        p.waitUntilExit()
        finished.value = true
        return Result(status: p.terminationStatus,
                      signal: p.terminationReason == .uncaughtSignal ? p.terminationStatus : nil,
                      timedOut: timedOut.value,
                      stdout: String(decoding: o, as: UTF8.self), stderr: String(decoding: e.value, as: UTF8.self))
    }

    /// A fresh temporary directory for one test.
    static func temporaryDirectory() throws -> URL {
        URL(fileURLWithPath: makeTemporaryDirectory("bubble-kiosk-test"), isDirectory: true)
    }
}

/// A value shared between the test and the queues that watch the child process.
private final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Value
    init(_ value: Value) { stored = value }
    var value: Value {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }
}
