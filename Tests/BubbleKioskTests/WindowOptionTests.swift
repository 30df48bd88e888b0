import Testing

/// The window options belong to bubble-kiosk-desktop: the kiosk binary refuses them plainly.
@Suite struct WindowOptionTests {
    @Test func theKioskBinaryHasNoWindow() throws {
        let r = try CommandRunner.run(["run", "--display", "window", "--duration", "1"])
        #expect(r.status == 2, "\(r.stderr)")
        #expect(r.stderr.contains("--display window is bubble-kiosk-desktop's"))
    }

    @Test func fullscreenNeedsTheWindow() throws {
        let r = try CommandRunner.run(["run", "--display", "virtual", "--fullscreen", "--duration", "1"])
        #expect(r.status == 2, "\(r.stderr)")
        #expect(r.stderr.contains("--fullscreen goes with --display window"))
    }

    @Test func windowInputNeedsTheWindow() throws {
        let r = try CommandRunner.run(["run", "--display", "virtual", "--input", "window", "--duration", "1"])
        #expect(r.status == 2, "\(r.stderr)")
        #expect(r.stderr.contains("--input window needs --display window"))
    }
}
