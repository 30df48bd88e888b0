import Foundation
import Testing

/// Output paths on the real binary: something other than a regular file at the path is refused
/// with one line and left as it is, never opened in a blocking way and never replaced.
@Suite struct OutputPathTests {
    static func fifo(_ dir: URL, _ name: String = "out.fifo") throws -> String {
        let path = dir.appendingPathComponent(name).path
        guard mkfifo(path, 0o600) == 0 else { throw CommandRunner.TestFailure("mkfifo \(path): errno \(errno)") }
        return path
    }

    static func isFIFO(_ path: String) -> Bool {
        var st = stat()
        return lstat(path, &st) == 0 && st.st_mode & S_IFMT == S_IFIFO
    }

    @Test func oneShotCommandsRefuseAFIFOAtOnce() throws {
        let dir = try CommandRunner.temporaryDirectory()
        let fifo = try Self.fifo(dir)
        let recording = try PlayCommandTests.recording(seed: 1, size: "640x400").path
        let play = ["play", recording, "--seed", "1", "--size", "640x400"]
        let cases: [(name: String, args: [String])] = [
            ("play", play + ["--screenshot", fifo]),
            ("play", play + ["--audio-out", fifo]),
            ("touch-heatmap", ["touch-heatmap", "--out", fifo, "--state-dir", dir.path]),
        ]
        for c in cases {
            // Before: --screenshot and --out opened the FIFO and waited for a reader forever.
            let r = try CommandRunner.run(c.args, timeout: 20)
            #expect(!r.timedOut && r.signal == nil && r.status == 1, "\(c.args): \(r.status) \(r.stderr)")
            #expect(r.stderr == "bubble-kiosk \(c.name): \(fifo): not a regular file (a FIFO); left as it is\n", "\(c.args)")
            #expect(r.stdout.isEmpty, "\(c.args): the work is not done before the output is known to be usable")
            #expect(Self.isFIFO(fifo), "\(c.args) replaced the FIFO")
        }
    }

    @Test func aRegularFileIsReplaced() throws {
        let dir = try CommandRunner.temporaryDirectory()
        let shot = dir.appendingPathComponent("end.png")
        try "old".write(to: shot, atomically: true, encoding: .utf8)
        let recording = try PlayCommandTests.recording(seed: 1, size: "640x400").path
        let r = try CommandRunner.run(["play", recording, "--seed", "1", "--size", "640x400", "--screenshot", shot.path], timeout: 60)
        #expect(r.status == 0, "\(r.stderr)")
        let bytes = try Data(contentsOf: shot)
        #expect(bytes.prefix(4) == Data([0x89, 0x50, 0x4E, 0x47]), "not a PNG")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["end.png"])
    }

    @Test func theKioskRunsOnWithoutARefusedScreenshot() throws {
        let dir = try CommandRunner.temporaryDirectory()
        let exitShot = try Self.fifo(dir, "exit.fifo")
        let everyShot = try Self.fifo(dir, "every.fifo")
        // Before: each was replaced by a regular file (as root, `--screenshot /dev/null` too).
        let r = try CommandRunner.run(["run", "--display", "virtual:160x100", "--duration", "1", "--seed", "1",
                                       "--screenshot", exitShot, "--screenshot-every", "0.2", everyShot], timeout: 30)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.contains("bubble-kiosk: --screenshot ignored: \(exitShot): not a regular file (a FIFO); left as it is\n"), "\(r.stderr)")
        #expect(r.stderr.contains("bubble-kiosk: --screenshot-every ignored: \(everyShot): not a regular file (a FIFO); left as it is\n"), "\(r.stderr)")
        #expect(Self.isFIFO(exitShot) && Self.isFIFO(everyShot))
    }

    @Test func aSIGUSR1ScreenshotPathThatIsAFIFOIsOneLine() throws {
        let dir = try CommandRunner.temporaryDirectory()
        let fifo = try Self.fifo(dir)
        let conf = dir.appendingPathComponent("kiosk.conf")
        try "[attract]\ndemo = false\n[operator]\nscreenshot_path = \(fifo)\n".write(to: conf, atomically: true, encoding: .utf8)
        let k = try SignalTests.Kiosk(["run", "--display", "virtual:160x100", "--config", conf.path, "--duration", "60",
                                       "--state-dir", dir.path], dir: dir)
        #expect(k.waitFor("bubble-kiosk: display virtual:160x100"), "\(k.stderr)")
        k.send(SIGUSR1)
        #expect(k.waitFor("bubble-kiosk: screenshot \(fifo): not a regular file (a FIFO); left as it is"), "\(k.stderr)")
        k.send(SIGTERM)
        let end = k.wait()
        #expect(end.reason == .exit && end.status == 0, "\(end) \(k.stderr)")
        #expect(Self.isFIFO(fifo))
    }
}
