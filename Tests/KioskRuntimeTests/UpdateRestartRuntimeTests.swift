import Glibc
import KioskCore
import KioskPlatform
import KioskRuntime
import KioskTestSupport
import Testing

/// A new program installed while the kiosk runs, on virtual time: a temporary folder stands in
/// for /usr/bin, and a file renamed over the "program" is the package manager's upgrade.
@Suite struct UpdateRestartRuntimeTests {
    /// One tap bubble a round, no demo: a round ends when the test pops it.
    static var oneBubble: Settings {
        var s = RuntimeHarness.quietSettings
        s.game.bubbles = 1
        s.game.swipeShare = 0
        s.game.dragWeight = 0
        return s
    }

    /// The folder with its "program" and a kiosk watching it.
    final class Installed {
        let folder = TemporaryDirectory("update-restart")
        var path: String { folder.path + "/bubble-kiosk" }
        let h: RuntimeHarness
        let notifier = RecordingNotifier()

        init(settings: Settings = UpdateRestartRuntimeTests.oneBubble) throws {
            writeFile(folder.path + "/bubble-kiosk", "version 1\n", mode: 0o755)
            var options = KioskRuntime.Options()
            options.program = InstalledProgram(standingIn: folder.path + "/bubble-kiosk")
            #expect(options.program != nil)
            h = try RuntimeHarness(settings: settings, options: options, notifier: notifier)
            notifier.clock = h.clock
        }

        /// As dpkg installs it: a new file beside the program, renamed over it.
        func upgrade(to text: String = "version 2\n") {
            writeFile(path + ".dpkg-new", text, mode: 0o755)
            #expect(rename(path + ".dpkg-new", path) == 0)
        }

        var announcements: [String] { h.logLines.filter { $0.hasPrefix("a new bubble-kiosk binary is installed") } }
        var restarts: [String] { h.logLines.filter { $0.hasPrefix("restarting into the new binary") } }
    }

    @Test func anUpgradeMidRoundRestartsOnlyAtTheStartScreenAfterTheRound() throws {
        let k = try Installed()
        let h = k.h
        var startScreens: [TimeStamp] = []
        h.runtime.observe { event, time in if case .screen(.start) = event { startScreens.append(time) } }
        try h.run(ms: 100)
        h.startRound()
        #expect(h.runtime.session.game.screen == .playing(demo: false))

        let upgraded = h.now
        k.upgrade()
        h.advance(ms: 100)
        #expect(k.announcements == ["a new bubble-kiosk binary is installed (\(k.path)): "
            + "restarting into it at the start screen (at the latest in 10 min)"], "\(h.logLines)")
        // The round goes on; the one timer waits for the deadline (nothing else ends the wait by itself).
        h.advance(ms: 20_000)
        #expect(h.runtime.exitStatus == .stopped)
        #expect(h.runtime.session.game.screen == .playing(demo: false))
        #expect(k.restarts.isEmpty)
        #expect(h.loop.armedTimers.first { $0.name == "update-restart" }?.deadline == upgraded + .seconds(600))

        // The round is cleared: its score shows for 10 s, then the start screen, left alone 5 s.
        _ = try h.popATapBubble()
        #expect(h.runtime.session.game.screen == .roundOver)
        h.advance(ms: 30_000)
        #expect(h.runtime.exitStatus == .updated)
        #expect(k.restarts == ["restarting into the new binary (start screen)"], "\(h.logLines)")
        #expect(k.announcements.count == 1)
        let start = try #require(startScreens.last)
        #expect(h.now == start + .seconds(5), "stopped at \(h.now), start screen at \(start)")
        #expect(k.notifier.texts.last == "STOPPING=1\nSTATUS=restarting into the new binary")
        #expect(ExitStatus.updated.rawValue == 11)
    }

    @Test func aTouchedProgramOrAnotherFileIsNoUpgrade() throws {
        let k = try Installed()
        let h = k.h
        try h.run(ms: 100)
        // The same file opened for writing and closed (touch), its times changed, and
        // another program installed beside it.
        k.folder.touch("bubble-kiosk")
        var times = [timespec(tv_sec: 1_000_000, tv_nsec: 0), timespec(tv_sec: 1_000_000, tv_nsec: 0)]
        #expect(utimensat(AT_FDCWD, k.path, &times, 0) == 0)
        writeFile(k.folder.path + "/other.new", "x", mode: 0o755)
        #expect(rename(k.folder.path + "/other.new", k.folder.path + "/other") == 0)
        h.advance(ms: 60_000)
        #expect(k.announcements.isEmpty, "\(h.logLines)")
        #expect(h.runtime.exitStatus == .stopped)
        #expect(!h.loop.armedTimers.contains { $0.name == "update-restart" })
    }

    @Test func someoneWhoKeepsPlayingIsCutOnlyAtTheDeadline() throws {
        var settings = Self.oneBubble
        settings.kiosk.updateRestartMax = .seconds(60)
        let k = try Installed(settings: settings)
        let h = k.h
        try h.run(ms: 100)
        h.startRound()
        let upgraded = h.now
        k.upgrade()
        h.advance(ms: 100)
        #expect(k.announcements.first?.hasSuffix("(at the latest in 1 min)") == true, "\(h.logLines)")
        // A tap away from the bubble (and from the corners) every 10 s keeps the round from
        // its idle return.
        let bubble = try #require(h.runtime.session.game.round?.bubbles.first).center
        let spot = Vector2(bubble.x < 320 ? 480 : 160, 200)
        for i in 0..<8 where h.runtime.exitStatus == .stopped {
            h.tap(h.panel(spot), id: 50 + i)
            h.advance(ms: 10_000)
        }
        #expect(h.runtime.exitStatus == .updated)
        #expect(k.restarts == ["restarting into the new binary (update_restart_max_min reached)"], "\(h.logLines)")
        #expect(h.now == upgraded + .seconds(60), "\(h.now) \(upgraded)")
    }

    @Test func aSleepingDisplayRestartsOnceTheFileSettled() throws {
        var settings = Self.oneBubble
        settings.display.sleepAfterIdle = .seconds(60)
        let k = try Installed(settings: settings)
        let h = k.h
        try h.run(ms: 61_000)
        #expect(h.runtime.isAsleep)
        let upgraded = h.now
        k.upgrade()
        h.advance(ms: 100)
        #expect(h.runtime.exitStatus == .stopped)
        h.advance(ms: 20_000)
        #expect(h.runtime.exitStatus == .updated)
        #expect(k.restarts == ["restarting into the new binary (display asleep)"])
        #expect(h.now == upgraded + UpdateRestartPolicy.fileSettle, "\(h.now) \(upgraded)")
    }
}
