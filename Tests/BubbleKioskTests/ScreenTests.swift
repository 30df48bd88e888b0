import Foundation
import Testing
import KioskCore
import KioskRender

/// Screens the real binary draws: `play --screenshot` and `run` in the virtual framebuffer.
@Suite struct ScreenTests {
    static let background = RGBColor.kioskBackground.xrgb

    /// The Start button's blue, give or take its gloss.
    static func isAccentBlue(_ pixel: UInt32) -> Bool {
        let r = (pixel >> 16) & 0xFF, g = (pixel >> 8) & 0xFF, b = pixel & 0xFF
        return b > 200 && r < 90 && g > 100 && g < 200
    }

    @Test func replayedRoundShowsPoppedBubblesGone() throws {
        let size = PixelSize(width: 1024, height: 768)
        let state = try CommandRunner.run(["state", "--seed", "8", "--size", "1024x768"]).json()
        let file = try PlayCommandTests.recording(seed: 8, size: "1024x768", extra: ["--pop", "9"])
        let png = try CommandRunner.temporaryDirectory().appendingPathComponent("final.png").path
        let r = try CommandRunner.run(["play", file.path, "--seed", "8", "--size", "1024x768", "--screenshot", png])
        #expect(r.status == 0, "\(r.stderr)")
        let frame = try PNGReader.readPNG(png)
        #expect(frame.size == size)
        for b in try #require(state["bubbles"] as? [[String: Any]]) {
            let x = Int(b["x"] as! Double), y = Int(b["y"] as! Double)
            let id = b["id"] as! Int
            if id == 9 {
                #expect(frame[x, y] & 0xFF_FFFF != Self.background, "bubble 9 was left alone and still shows")
            } else {
                // Swipe bubbles' arrows and tap digits sit at the centre: test a point off-centre too.
                let r = Int((b["diameter"] as! Double) / 3)
                #expect(frame[x, y] & 0xFF_FFFF == Self.background, "bubble \(id) popped and is gone")
                #expect(frame[x + r, y] & 0xFF_FFFF == Self.background)
            }
        }
    }

    @Test func attractModePlaysByItself() throws {
        let dir = try CommandRunner.temporaryDirectory()
        let png = dir.appendingPathComponent("screen.png").path
        let r = try CommandRunner.run(["run", "--display", "virtual:800x600", "--attract", "--status",
                                       "--duration", "4", "--seed", "5", "--screenshot", png])
        #expect(r.status == 0, "\(r.stderr)")
        let lines = r.stdout.split(separator: "\n")
        #expect(lines.count >= 3, "one status line a second")
        #expect(lines.allSatisfy { $0.contains("screen=demo") && $0.contains("input=none") })
        let last = try #require(lines.last)
        #expect(!last.contains("score=0 "), "ghost fingers popped something: \(last)")
        let frame = try PNGReader.readPNG(png)
        #expect(frame.size == PixelSize(width: 800, height: 600))
    }

    @Test func replayedTouchStartsARound() throws {
        // A tap on the Start button (centre of the screen, slightly low), then nothing.
        let size = PixelSize(width: 800, height: 600)
        var builder = RecordingBuilder(screen: size)
        builder.tap(at: Vector2(400, 340), start: .milliseconds(0))
        let dir = try CommandRunner.temporaryDirectory()
        let file = dir.appendingPathComponent("start.evemu")
        try builder.text().write(to: file, atomically: true, encoding: .utf8)
        let before = dir.appendingPathComponent("before.png").path
        let after = dir.appendingPathComponent("after.png").path
        // One mode, so the one Start button is where the tap lands (the default offers three).
        let config = dir.appendingPathComponent("classic.conf")
        try "[modes]\ntimed = false\njoystick = false\n".write(to: config, atomically: true, encoding: .utf8)

        let idle = try CommandRunner.run(["run", "--display", "virtual:800x600", "--duration", "1", "--seed", "5",
                                          "--config", config.path, "--screenshot", before])
        #expect(idle.status == 0, "\(idle.stderr)")
        let r = try CommandRunner.run(["run", "--display", "virtual:800x600", "--input", "replay:\(file.path)",
                                       "--duration", "1.5", "--status", "--seed", "5", "--config", config.path,
                                       "--screenshot", after])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("screen=playing"), "\(r.stdout)")
        let a = try PNGReader.readPNG(before), b = try PNGReader.readPNG(after)
        // The start screen's button is gone, and bubbles are drawn.
        // (300, 320) is on the capsule beside its title.
        #expect(Self.isAccentBlue(a[300, 320]))
        #expect(!Self.isAccentBlue(b[300, 320]))
        var colourful = 0
        for y in stride(from: 100, to: 600, by: 4) {
            for x in stride(from: 0, to: 800, by: 4) where b[x, y] & 0xFF_FFFF != Self.background { colourful += 1 }
        }
        #expect(colourful > 200)
    }
}

@Suite struct IdleTests {
    @Test func anIdleKioskDrawsOnceAndSleeps() throws {
        let dir = try CommandRunner.temporaryDirectory()
        let conf = dir.appendingPathComponent("idle.conf")
        // The burn-in shift steps on the real monotonic clock, so one could fall in these two
        // seconds; its steps are counted on virtual time (PixelShiftRuntimeTests).
        try "[attract]\ndemo = false\n[display]\npixel_shift = false\n".write(to: conf, atomically: true, encoding: .utf8)
        let r = try CommandRunner.run(["run", "--display", "virtual:640x400", "--config", conf.path,
                                       "--duration", "2", "--stats", "--seed", "1"])
        #expect(r.status == 0, "\(r.stderr)")
        // One frame for the start screen; then poll() sleeps until the --duration deadline.
        let stats = try #require(r.stdout.split(separator: "\n").first { $0.hasPrefix("stats: ") })
        #expect(stats.contains("frames=1 "), "\(stats)")
        let wakeups = Int(stats.split(separator: " ").first { $0.hasPrefix("wakeups=") }?.dropFirst(8) ?? "") ?? -1
        #expect((0...2).contains(wakeups), "\(stats)")
    }
}
