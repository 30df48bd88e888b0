import Foundation
import KioskTestSupport
import Testing

/// The operator reset through the real binary: the four-corner recording replayed as a
/// touchscreen ends `run` with status 10 after the normal exit path.
@Suite struct OperatorResetCommandTests {
    @Test func theFourCornerRecordingExitsTen() throws {
        let dir = try CommandRunner.temporaryDirectory()
        let shot = dir.appendingPathComponent("last.png")
        let recording = Fixture.path("operator-four-corners.evemu")
        let run = try CommandRunner.run(["run", "--display", "virtual:1280x800", "--input", "replay:\(recording)",
                                         "--duration", "60", "--screenshot", shot.path, "--state-dir", dir.path])
        #expect(run.status == 10, "\(run.stderr)")
        let lines = run.stderr.split(separator: "\n").filter { $0.contains("operator reset:") }
        #expect(lines.count == 1, "\(run.stderr)")
        #expect(lines.first?.contains("operator reset: four-corners gesture on device 0 (replay:\(recording)) at ") == true,
                "\(run.stderr)")
        #expect(lines.first?.hasSuffix("0 rounds played; exiting with status 10 for a fresh start") == true, "\(run.stderr)")
        // The clean exit path ran: the final screenshot and the score store are there.
        #expect(FileManager.default.fileExists(atPath: shot.path))
        #expect(FileManager.default.fileExists(atPath: dir.appendingPathComponent("scores.db").path))
        // The same recording with the reset turned off plays to the end of --duration.
        let conf = dir.appendingPathComponent("kiosk.conf")
        try "[operator]\nreset_gesture = off\n".write(to: conf, atomically: true, encoding: .utf8)
        let off = try CommandRunner.run(["run", "--display", "virtual:1280x800", "--input", "replay:\(recording)",
                                         "--duration", "11", "--config", conf.path, "--state-dir", dir.path])
        #expect(off.status == 0, "\(off.stderr)")
        #expect(!off.stderr.contains("operator reset"))
    }
}
