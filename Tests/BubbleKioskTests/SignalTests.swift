import Foundation
import KioskTestSupport
import Testing

/// Signals sent to the real binary: reload, screenshot, stop, and a closed pipe.
@Suite(.serialized) struct SignalTests {
    /// A running `bubble-kiosk run` with its standard error in a file.
    final class Kiosk {
        let process = Process()
        let errPath: String
        let outPath: String

        init(_ args: [String], dir: URL, stdoutPipe: Bool = false) throws {
            errPath = dir.appendingPathComponent("stderr").path
            outPath = dir.appendingPathComponent("stdout").path
            writeFile(errPath, "")
            writeFile(outPath, "")
            process.executableURL = CommandRunner.binary
            process.arguments = args
            var env = ProcessInfo.processInfo.environment
            env["BUBBLE_KIOSK_CONFIG_DIR"] = dir.appendingPathComponent("no-config").path
            // --state-dir when given (the environment would win over it), else a scratch folder
            // for the scores, never the machine's /var/lib/bubble-kiosk.
            env["STATE_DIRECTORY"] = args.contains("--state-dir") ? nil : dir.appendingPathComponent("state").path
            env["ALSA_CONFIG_PATH"] = TestALSA.silentConfig
            process.environment = env
            process.standardError = FileHandle(forWritingAtPath: errPath)
            process.standardOutput = FileHandle(forWritingAtPath: outPath)
            try process.run()
        }

        var stderr: String { readText(errPath) ?? "" }

        /// Waits (up to 20 s, the machine may be loaded) until stderr contains `text`.
        func waitFor(_ text: String) -> Bool {
            _ = eventually(within: .seconds(20), every: .milliseconds(50)) { stderr.contains(text) || !process.isRunning }
            return stderr.contains(text)
        }

        func send(_ signal: Int32) { kill(process.processIdentifier, signal) }

        func wait() -> (status: Int32, reason: Process.TerminationReason) {
            process.waitUntilExit()
            return (process.terminationStatus, process.terminationReason)
        }
    }

    @Test func hupReloadsUsr1ScreenshotsQuitStopsCleanly() throws {
        let dir = try CommandRunner.temporaryDirectory()
        let conf = dir.appendingPathComponent("kiosk.conf")
        try "[attract]\ndemo = false\n".write(to: conf, atomically: true, encoding: .utf8)
        let exitShot = dir.appendingPathComponent("exit.png").path
        let k = try Kiosk(["run", "--display", "virtual:320x200", "--config", conf.path, "--duration", "60",
                           "--state-dir", dir.path, "--screenshot", exitShot], dir: dir)
        #expect(k.waitFor("bubble-kiosk: display virtual:320x200"), "\(k.stderr)")

        try "[attract]\ndemo = false\n[score]\nmiss = -5\n[display]\nrotation = 90\n".write(to: conf, atomically: true, encoding: .utf8)
        k.send(SIGHUP)
        #expect(k.waitFor("reloaded the configuration (1 file): score.miss now; display.rotation needs a restart"),
                "\(k.stderr)")

        // A broken line: the running settings stay, the line is named.
        try "[score]\nmiss = lots\n".write(to: conf, atomically: true, encoding: .utf8)
        k.send(SIGHUP)
        #expect(k.waitFor("\(conf.path):2: miss: expected a whole number"), "\(k.stderr)")
        #expect(k.waitFor("reload refused"), "\(k.stderr)")

        k.send(SIGUSR1)
        let shot = dir.appendingPathComponent("screenshot.png").path
        #expect(k.waitFor("screenshot written to \(shot)"), "\(k.stderr)")
        #expect(FileManager.default.fileExists(atPath: shot))

        // SIGQUIT stops like SIGTERM: the exit path runs (the screenshot on exit is written).
        k.send(SIGQUIT)
        let end = k.wait()
        #expect(end.reason == .exit && end.status == 0, "\(end) \(k.stderr)")
        #expect(k.stderr.contains("signal \(SIGQUIT), stopping"))
        #expect(FileManager.default.fileExists(atPath: exitShot))
    }

    /// `run --status | head -1`: the pipe closes after one line; the kiosk must not die of
    /// SIGPIPE but run to its end and take its exit path.
    @Test func aClosedPipeDoesNotKillTheKiosk() throws {
        let dir = try CommandRunner.temporaryDirectory()
        let shot = dir.appendingPathComponent("exit.png").path
        let script = """
            "$0" run --display virtual:320x200 --status --duration 2.5 --seed 3 --screenshot "$1" | head -1
            echo "kiosk=${PIPESTATUS[0]}"
            """
        let text = try CommandRunner.shell(script, [shot], environment: ["STATE_DIRECTORY": dir.appendingPathComponent("state").path]).stdout
        let lines = text.split(separator: "\n")
        #expect(lines.first?.hasPrefix("t=1s ") == true, "\(text)")
        #expect(lines.last == "kiosk=0", "\(text)")
        #expect(FileManager.default.fileExists(atPath: shot))
    }
}
