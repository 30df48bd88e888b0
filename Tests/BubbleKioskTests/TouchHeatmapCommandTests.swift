import Foundation
import Testing

/// `touch-heatmap` and `run --touch-test` through the real binary.
@Suite struct TouchHeatmapCommandTests {
    /// Width and height from a PNG's IHDR chunk.
    static func pngSize(_ url: URL) throws -> (Int, Int) {
        let d = try Data(contentsOf: url)
        #expect(d.count > 24 && d.prefix(8) == Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]))
        func be(_ at: Int) -> Int { d[at..<(at + 4)].reduce(0) { $0 << 8 | Int($1) } }
        return (be(16), be(20))
    }

    static func recording(in dir: URL) throws -> URL {
        let rec = try CommandRunner.run(["round-recording", "--seed", "3", "--size", "640x400"])
        let file = dir.appendingPathComponent("round.evemu")
        try rec.stdout.write(to: file, atomically: true, encoding: .utf8)
        return file
    }

    @Test func withoutADatabaseItSaysSoAndWritesAnEmptyMap() throws {
        let dir = try CommandRunner.temporaryDirectory()
        let out = dir.appendingPathComponent("map.png")
        let r = try CommandRunner.run(["touch-heatmap", "--out", out.path, "--size", "320x200", "--state-dir", dir.path])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.hasPrefix("no touches recorded yet: \(dir.path)/scores.db does not exist; wrote an empty map to"), "\(r.stdout)")
        #expect(try Self.pngSize(out) == (320, 200))
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("scores.db").path))
    }

    /// A kiosk that played a round stored its touch-downs; the map draws them.
    @Test func aPlayedRoundShowsInTheHeatmap() throws {
        let dir = try CommandRunner.temporaryDirectory()
        let file = try Self.recording(in: dir)
        let conf = dir.appendingPathComponent("kiosk.conf")
        try "[attract]\ndemo = false\n".write(to: conf, atomically: true, encoding: .utf8)
        let run = try CommandRunner.run(["run", "--display", "virtual:640x400", "--input", "replay:\(file.path)", "--seed", "3",
                                         "--duration", "7", "--state-dir", dir.path, "--config", conf.path])
        #expect(run.status == 0, "\(run.stderr)")
        let empty = dir.appendingPathComponent("empty.png")
        _ = try CommandRunner.run(["touch-heatmap", "--out", empty.path, "--state-dir", dir.appendingPathComponent("none").path])
        let out = dir.appendingPathComponent("map.png")
        let r = try CommandRunner.run(["touch-heatmap", "--out", out.path, "--days", "2", "--state-dir", dir.path])
        #expect(r.status == 0, "\(r.stderr)")
        // Start, then one touch-down for each of the round's bubbles' taps, swipes and drags.
        let state = try CommandRunner.run(["state", "--seed", "3", "--size", "640x400"]).json()
        let bubbles = try #require(state["bubbles"] as? [[String: Any]])
        let touches = 1 + bubbles.reduce(0) { $0 + (($1["taps"] as? Int) ?? 1) }
        #expect(r.stdout.hasPrefix("wrote \(out.path): \(touches) touches on 1 day (the last 2 days), at most "), "\(r.stdout)")
        #expect(try Self.pngSize(out) == (1280, 800))
        #expect(try Data(contentsOf: out) != Data(contentsOf: empty))
    }

    @Test func wrongArgumentsAndADamagedDatabase() throws {
        let dir = try CommandRunner.temporaryDirectory()
        for args in [["touch-heatmap"], ["touch-heatmap", "--out", "x.png", "--days", "0"],
                     ["touch-heatmap", "--out", "x.png", "--size", "0x5"], ["touch-heatmap", "--out", "x.png", "extra"]] {
            let r = try CommandRunner.run(args + ["--state-dir", dir.path])
            #expect(r.status == 2, "\(args): \(r.stderr)")
            #expect(r.stderr.contains("usage: bubble-kiosk touch-heatmap"), "\(r.stderr)")
        }
        try Data(repeating: 0x41, count: 4096).write(to: dir.appendingPathComponent("scores.db"))
        let out = dir.appendingPathComponent("map.png")
        let r = try CommandRunner.run(["touch-heatmap", "--out", out.path, "--state-dir", dir.path])
        #expect(r.status == 1)
        #expect(r.stderr.hasPrefix("bubble-kiosk touch-heatmap: \(dir.path)/scores.db"), "\(r.stderr)")
        let unwritable = try CommandRunner.run(["touch-heatmap", "--out", "/nonexistent/dir/map.png",
                                                "--state-dir", dir.appendingPathComponent("none").path])
        #expect(unwritable.status == 1 && unwritable.stderr.contains("/nonexistent/dir/map.png"), "\(unwritable.stderr)")
    }

    /// A recorded session replayed into `run --touch-test`: the screen opens at start, the
    /// touches reach it and not the game (no round, nothing in the heatmap), and the screenshot
    /// shows it.
    @Test func runTouchTestReplaysARecordingOntoTheScreen() throws {
        let dir = try CommandRunner.temporaryDirectory()
        let file = try Self.recording(in: dir)
        let shot = dir.appendingPathComponent("touch-test.png")
        let run = try CommandRunner.run(["run", "--display", "virtual:640x400", "--input", "replay:\(file.path)", "--touch-test",
                                         "--duration", "3", "--status", "--screenshot", shot.path, "--state-dir", dir.path])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.contains("touch test open (closes after 60 s without a touch)"), "\(run.stderr)")
        #expect(run.stdout.contains("screen=touch-test"), "\(run.stdout)")
        #expect(try Self.pngSize(shot) == (640, 400))
        let scores = try CommandRunner.run(["stats", "--json", "--state-dir", dir.path]).json()
        #expect(scores["rounds"] as? Int == 0)
        let map = try CommandRunner.run(["touch-heatmap", "--out", dir.appendingPathComponent("m.png").path, "--state-dir", dir.path])
        #expect(map.stdout.hasPrefix("no touches recorded (every day)"), "\(map.stdout)")
        let help = try CommandRunner.run(["run", "--help"])
        #expect(help.stdout.contains("--touch-test"))
    }
}
