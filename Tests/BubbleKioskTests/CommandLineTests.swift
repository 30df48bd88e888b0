import Foundation
import Testing
import KioskCore

@Suite struct StateCommandTests {
    @Test func printsTheContractShape() throws {
        let r = try CommandRunner.run(["state", "--seed", "5", "--size", "1280x800"])
        #expect(r.status == 0, "\(r.stderr)")
        let json = try r.json()
        #expect(json["width"] as? Int == 1280)
        #expect(json["height"] as? Int == 800)
        #expect(json["px_per_mm"] as? Double == 4)
        let bubbles = try #require(json["bubbles"] as? [[String: Any]])
        #expect(bubbles.count == 10)
        #expect(bubbles.map { $0["id"] as? Int } == (0..<10).map { $0 })
        for b in bubbles {
            let kind = try #require(b["kind"] as? String)
            #expect(b["x"] is Double && b["y"] is Double && b["diameter"] is Double)
            if kind == "tap" {
                #expect((1...3).contains(b["taps"] as? Int ?? 0))
            } else if kind == "drag" {
                #expect(b["taps"] == nil && b["angle_deg"] == nil)
            } else {
                #expect(kind == "swipe")
                let a = try #require(b["angle_deg"] as? Double)
                #expect(a > -180 && a <= 180)
            }
        }
        #expect(bubbles.contains { $0["kind"] as? String == "drag" }, "the default mix has drag bubbles")
        // The goal: top-left corner and size in px, on the screen.
        let goal = try #require(json["goal"] as? [String: Any])
        let g = ["x", "y", "width", "height"].compactMap { goal[$0] as? Double }
        #expect(g.count == 4 && goal.count == 4)
        if g.count == 4 { #expect(g[0] >= 0 && g[1] > 0 && g[2] > 0 && g[3] > 0 && g[0] + g[2] <= 1280 && g[1] + g[3] <= 800) }
        // Starts exactly as the example: width first.
        #expect(r.stdout.hasPrefix("{\"width\":1280,\"height\":800,\"px_per_mm\":"))
    }

    @Test func sameArgumentsSameOutput() throws {
        let a = try CommandRunner.run(["state", "--seed", "99", "--size", "1920x1080"])
        let b = try CommandRunner.run(["state", "--size=1920x1080", "--seed=99"])
        #expect(a.stdout == b.stdout && !a.stdout.isEmpty)
        let c = try CommandRunner.run(["state", "--seed", "100", "--size", "1920x1080"])
        #expect(a.stdout != c.stdout)
    }

    @Test(arguments: [["state"], ["state", "--seed", "1"], ["state", "--seed", "x", "--size", "10x10"],
                      ["state", "--seed", "1", "--size", "big"], ["state", "--bogus"], ["nope"],
                      ["play", "--seed", "1", "--size", "100x100"], ["gestures", "a", "b", "--size", "1x1"]])
    func badArgumentsPrintUsageAndExit2(args: [String]) throws {
        let r = try CommandRunner.run(args)
        #expect(r.status == 2)
        #expect(r.stderr.contains("usage: bubble-kiosk"))
        #expect(r.stdout.isEmpty)
    }

    @Test(arguments: ["state", "play", "gestures", "check-config"])
    func helpEverywhere(command: String) throws {
        let r = try CommandRunner.run([command, "--help"])
        #expect(r.status == 0)
        #expect(r.stdout.hasPrefix("usage: bubble-kiosk \(command)"))
    }

    @Test func configChangesTheLayout() throws {
        let dir = try CommandRunner.temporaryDirectory()
        let conf = dir.appendingPathComponent("k.conf")
        try "[game]\nbubbles = 4\n[display]\npx_per_mm = 5\n".write(to: conf, atomically: true, encoding: .utf8)
        let r = try CommandRunner.run(["state", "--seed", "1", "--size", "1280x800", "--config", conf.path])
        let json = try r.json()
        #expect((json["bubbles"] as? [Any])?.count == 4)
        #expect(json["px_per_mm"] as? Double == 5)
    }
}

@Suite struct PlayCommandTests {
    /// `round-recording` for the round `state` prints, written to a file.
    static func recording(seed: Int, size: String, extra: [String] = []) throws -> URL {
        let r = try CommandRunner.run(["round-recording", "--seed", "\(seed)", "--size", size, "--no-start"] + extra)
        guard r.status == 0 else { throw CommandRunner.TestFailure("round-recording failed: \(r.stderr)") }
        let file = try CommandRunner.temporaryDirectory().appendingPathComponent("round.evemu")
        try r.stdout.write(to: file, atomically: true, encoding: .utf8)
        return file
    }

    @Test func replayPopsAWholeRound() throws {
        let state = try CommandRunner.run(["state", "--seed", "3", "--size", "1280x800"]).json()
        let file = try Self.recording(seed: 3, size: "1280x800")

        let r = try CommandRunner.run(["play", file.path, "--seed", "3", "--size", "1280x800"])
        #expect(r.status == 0, "\(r.stderr)")
        let out = try r.json()
        #expect(out["popped"] as? Int == 10)
        #expect(out["remaining"] as? Int == 0)
        #expect(out["round_over"] as? Bool == true)
        let bubbles = try #require(state["bubbles"] as? [[String: Any]])
        let expected = bubbles.reduce(50) { sum, b in sum + ((b["taps"] as? Int).map { $0 * 10 } ?? 20) }
        #expect(out["score"] as? Int == expected)
        let results = try #require(out["bubbles"] as? [[String: Any]])
        #expect(results.allSatisfy { $0["popped"] as? Bool == true && $0["taps_left"] as? Int == 0 })
    }

    @Test func aBubbleLeftAloneStays() throws {
        let file = try Self.recording(seed: 8, size: "1024x768", extra: ["--pop", "9"])
        let out = try CommandRunner.run(["play", file.path, "--seed", "8", "--size", "1024x768"]).json()
        #expect(out["popped"] as? Int == 9)
        #expect(out["remaining"] as? Int == 1)
        #expect(out["round_over"] as? Bool == false)
        let left = (out["bubbles"] as? [[String: Any]])?.first { $0["popped"] as? Bool == false }
        #expect(left?["id"] as? Int == 9)
    }

    @Test func malformedRecordingNamesFileAndLine() throws {
        let dir = try CommandRunner.temporaryDirectory()
        let file = dir.appendingPathComponent("bad.evemu")
        var text = RecordingBuilder(screen: PixelSize(width: 800, height: 600)).text()
        text += "E: 1.000000 0003 zz 1\n"
        try text.write(to: file, atomically: true, encoding: .utf8)
        let line = text.split(separator: "\n", omittingEmptySubsequences: false).count - 1
        let r = try CommandRunner.run(["play", file.path, "--seed", "1", "--size", "800x600"])
        #expect(r.status == 2)
        #expect(r.stderr.hasPrefix("\(file.path):\(line): "))
        #expect(r.stdout.isEmpty)
    }

    @Test func missingRecordingIsAClearError() throws {
        let r = try CommandRunner.run(["play", "/nonexistent/x.evemu", "--seed", "1", "--size", "800x600"])
        #expect(r.status == 2)
        #expect(r.stderr.contains("/nonexistent/x.evemu"))
    }
}

@Suite struct GesturesCommandTests {
    @Test func printsOneLinePerGesture() throws {
        var builder = RecordingBuilder(screen: PixelSize(width: 1000, height: 800))
        builder.tap(at: Vector2(200, 300), start: .milliseconds(0))
        builder.tap(at: Vector2(202, 301), start: .milliseconds(150))
        builder.swipe(from: Vector2(500, 400), to: Vector2(500, 250), start: .milliseconds(600), duration: .milliseconds(100))
        let dir = try CommandRunner.temporaryDirectory()
        let file = dir.appendingPathComponent("g.evemu")
        try builder.text().write(to: file, atomically: true, encoding: .utf8)

        let r = try CommandRunner.run(["gestures", file.path, "--size", "1000x800"])
        #expect(r.status == 0, "\(r.stderr)")
        let lines = try r.jsonLines()
        #expect(lines.map { $0["kind"] as? String } == ["tap", "tap", "drag_start", "drag_end", "swipe"])
        #expect(lines.map { $0["count"] as? Int } == [1, 2, nil, nil, nil])
        #expect(abs((lines[0]["x"] as? Double ?? 0) - 200) <= 1)
        #expect(abs((lines[0]["y"] as? Double ?? 0) - 300) <= 1)
        let swipe = lines[4]
        #expect(abs((swipe["angle_deg"] as? Double ?? 0) + 90) < 2)
        #expect(abs((swipe["distance_px"] as? Double ?? 0) - 150) < 3)
        #expect((swipe["velocity_px_s"] as? Double ?? 0) > 1000)
        #expect(swipe["slot"] as? Int == 0)
        let times = lines.compactMap { $0["t_ms"] as? Double }
        #expect(times == times.sorted() && times.count == 5)

        let withMoves = try CommandRunner.run(["gestures", file.path, "--size", "1000x800", "--moves"]).jsonLines()
        #expect(withMoves.contains { $0["kind"] as? String == "drag_move" })
    }
}
