import Glibc
import KioskCore
import KioskLayers
import KioskPlatform
import KioskRuntime
import Testing
import KioskTestSupport

/// Fleet metrics in the running kiosk: the textfile, written atomically on a timer, on virtual time.
@Suite struct MetricsExporterTests {
    static func settings(textfile: String?, intervalS: Double = 1) -> Settings {
        var s = RuntimeHarness.quietSettings
        s.metrics.textfile = textfile
        s.metrics.interval = .seconds(intervalS)
        return s
    }

    /// The value of one series in the file's text.
    static func value(_ text: String, _ series: String) -> String? {
        for line in text.split(separator: "\n") where line.hasPrefix(series + " ") {
            return String(line.dropFirst(series.count + 1))
        }
        return nil
    }

    @Test func offByDefaultNoTimerNoWakeUps() throws {
        let plain = try RuntimeHarness()
        try plain.run(ms: 20_000)
        let h = try RuntimeHarness()
        h.runtime.wallClock = StoppedWallClock(unixSeconds: 1_700_000_000)
        let exporter = MetricsExporter(offLoop: false)
        h.runtime.attach(exporter)
        try h.run(ms: 20_000)
        #expect(exporter.writes == 0)
        #expect(!h.loop.armedTimers.contains { $0.name == "metrics" })
        #expect(h.loop.wakeups == plain.loop.wakeups)
        #expect(h.logLines.allSatisfy { !$0.contains("metrics") }, "\(h.logLines)")
        // Events are still counted, so metrics switched on by a reload start from the start.
        h.startRound()
        #expect(exporter.metrics.roundsStarted["classic"] == 1)
    }

    @Test func writesTheFileAtomicallyEveryInterval() throws {
        let dir = makeTemporaryDirectory("bubble-kiosk-metrics")
        let path = dir + "/bubble-kiosk.prom"
        let h = try RuntimeHarness(settings: Self.settings(textfile: path, intervalS: 2))
        h.runtime.wallClock = StoppedWallClock(unixSeconds: 1_700_000_000.25)
        let exporter = MetricsExporter(offLoop: false)
        h.runtime.attach(exporter)
        #expect(h.logLines == ["metrics to \(path) every 2 s"])
        try h.run(ms: 50)
        // Written at once, then every interval; only the finished file is in the folder.
        #expect(exporter.writes == 1)
        var text = try FileSystem.readText(path)
        #expect(Self.value(text, "bubble_kiosk_start_time_seconds") == "1700000000.25")
        #expect(Self.value(text, "bubble_kiosk_display_up") == "1")
        #expect(Self.value(text, #"bubble_kiosk_screen{screen="start"}"#) == "1")
        #expect(try FileSystem.listDirectory(dir) == ["bubble-kiosk.prom"])
        #expect(h.loop.armedTimers.contains { $0.name == "metrics" })

        h.startRound()
        let (_, taps) = try h.popATapBubble()
        h.advance(ms: 2100)
        #expect(exporter.writes >= 2)
        // Frames drawn after the timer's write: write now to compare with the runtime.
        exporter.write()
        text = try FileSystem.readText(path)
        #expect(text == exporter.text)
        #expect(Self.value(text, #"bubble_kiosk_rounds_started_total{mode="classic"}"#) == "1")
        #expect(Self.value(text, #"bubble_kiosk_bubbles_popped_total{mode="classic",kind="tap"}"#) == "1")
        // The Start tap and each tap on the bubble.
        #expect(Self.value(text, "bubble_kiosk_touches_total") == String(1 + taps))
        #expect(Self.value(text, "bubble_kiosk_last_touch_timestamp_seconds") == "1700000000.25")
        #expect(Self.value(text, #"bubble_kiosk_screen{screen="playing"}"#) == "1")
        #expect(Self.value(text, "bubble_kiosk_frames_total") == String(h.runtime.frames))
        #expect(Self.value(text, "bubble_kiosk_frame_time_seconds_count") == String(h.runtime.frames))
        #expect(Self.value(text, "bubble_kiosk_input_latency_seconds_count") == String(h.runtime.latencies.samples.count))
        #expect(try FileSystem.listDirectory(dir) == ["bubble-kiosk.prom"])

        // Ten seconds later: five more writes, not more (the timer keeps the interval).
        h.advance(ms: 200)
        let before = exporter.writes
        h.advance(ms: 10_000)
        #expect(exporter.writes - before == 5)
        // The exit writes the final figures.
        h.runtime.finish()
        #expect(exporter.writes - before == 6)
    }

    @Test func anUnwritableFolderIsLoggedOnceAndTheKioskGoesOn() throws {
        let dir = makeTemporaryDirectory("bubble-kiosk-metrics")
        let path = dir + "/missing/bubble-kiosk.prom"
        let h = try RuntimeHarness(settings: Self.settings(textfile: path, intervalS: 1))
        let exporter = MetricsExporter(offLoop: false)
        h.runtime.attach(exporter)
        try h.run(ms: 50)
        h.startRound()
        _ = try h.popATapBubble()
        h.advance(ms: 10_000)
        let failures = h.logLines.filter { $0.contains("metrics: cannot write") }
        #expect(failures.count == 1, "\(h.logLines)")
        #expect(failures.first?.hasPrefix("metrics: cannot write \(path): ") == true)
        #expect(failures.first?.contains("No such file or directory") == true, "\(failures)")
        #expect(exporter.writes == 0)
        // The game went on.
        #expect(h.runtime.session.game.round?.bubbles.contains { $0.isPopped } == true)
        let frames = h.runtime.frames
        #expect(frames > 1)
        // The folder appears: the next write works and says so once.
        mkdir(dir + "/missing", 0o755)
        h.advance(ms: 1000)
        #expect(exporter.writes == 1)
        #expect(FileSystem.exists(path))
        #expect(h.logLines.filter { $0.contains("written again after") }.count == 1, "\(h.logLines)")
        #expect(h.logLines.last?.hasPrefix("metrics: \(path) written again after 1") == true, "\(h.logLines)")
    }

    @Test func reloadTurnsMetricsOnMovesThemAndTurnsThemOff() throws {
        let dir = makeTemporaryDirectory("bubble-kiosk-metrics")
        let h = try RuntimeHarness()
        let exporter = MetricsExporter(offLoop: false)
        h.runtime.attach(exporter)
        try h.run(ms: 50)
        h.startRound()
        h.config = ConfigResult(settings: Self.settings(textfile: dir + "/a.prom"))
        h.runtime.reload()
        #expect(h.logLines.contains("metrics to \(dir)/a.prom every 1 s"), "\(h.logLines)")
        h.advance(ms: 10)
        // The round started before metrics were on is counted.
        #expect(Self.value(try FileSystem.readText(dir + "/a.prom"), #"bubble_kiosk_rounds_started_total{mode="classic"}"#) == "1")
        h.config = ConfigResult(settings: Self.settings(textfile: dir + "/b.prom", intervalS: 3))
        h.runtime.reload()
        h.advance(ms: 10)
        #expect(FileSystem.exists(dir + "/b.prom"))
        let deadline = try #require(h.loop.armedTimers.first { $0.name == "metrics" }?.deadline)
        #expect((deadline - h.now).inMilliseconds > 2900)
        h.config = ConfigResult(settings: Self.settings(textfile: nil))
        h.runtime.reload()
        #expect(h.logLines.last == "metrics off")
        let writes = exporter.writes
        h.advance(ms: 10_000)
        #expect(exporter.writes == writes)
        #expect(!h.loop.armedTimers.contains { $0.name == "metrics" })
    }
}

extension MetricsExporterTests {
    /// node_exporter reads only `*.prom`: another name is written, with a warning.
    @Test func aFileNotEndingInPromIsWrittenWithAWarning() throws {
        let path = makeTemporaryDirectory("bubble-kiosk-metrics") + "/bubble-kiosk.txt"
        let h = try RuntimeHarness(settings: Self.settings(textfile: path))
        let exporter = MetricsExporter(offLoop: false)
        h.runtime.attach(exporter)
        try h.run(ms: 10)
        #expect(exporter.writes == 1)
        #expect(Array(h.logLines.prefix(2)) == ["metrics to \(path) every 1 s",
                                                "metrics: \(path) does not end in .prom; node_exporter's textfile collector reads only *.prom"])
    }
}

extension MetricsExporterTests {
    /// The kiosk's own mode: a writer thread does the file work, the loop hears back through a
    /// mailbox, and the exit waits for the final write.
    @Test func theWriterThreadWritesAndTheExitWaitsForTheLastWrite() throws {
        let dir = makeTemporaryDirectory("bubble-kiosk-metrics")
        let path = dir + "/bubble-kiosk.prom"
        let h = try RuntimeHarness(settings: Self.settings(textfile: path, intervalS: 1))
        h.runtime.wallClock = StoppedWallClock(unixSeconds: 5)
        let exporter = MetricsExporter()
        h.runtime.attach(exporter)
        try h.run(ms: 10)
        #expect(h.eventually(within: .seconds(10)) { exporter.writes >= 1 })
        #expect(Self.value(try FileSystem.readText(path), "bubble_kiosk_start_time_seconds") == "5")
        h.startRound()
        _ = try h.popATapBubble()
        #expect(h.eventually(within: .seconds(10)) { exporter.writes >= 2 })
        let before = exporter.writes
        h.runtime.finish()
        #expect(exporter.writes > before)
        // The final write has the final figures.
        #expect(try FileSystem.readText(path) == exporter.text)
        #expect(h.logLines.allSatisfy { !$0.contains("did not finish") }, "\(h.logLines)")
        #expect(try FileSystem.listDirectory(dir) == ["bubble-kiosk.prom"])
    }

    @Test func theWriterThreadReportsAnUnwritableFolderOnce() throws {
        let path = makeTemporaryDirectory("bubble-kiosk-metrics") + "/missing/bubble-kiosk.prom"
        let h = try RuntimeHarness(settings: Self.settings(textfile: path, intervalS: 1))
        h.runtime.attach(MetricsExporter())
        try h.run(ms: 10)
        #expect(h.eventually(within: .seconds(10)) { h.logLines.contains { $0.hasPrefix("metrics: cannot write \(path): ") } })
        h.advance(ms: 5000)
        #expect(h.eventually(within: .seconds(10)) { h.loop.armedTimers.contains { $0.name == "metrics" } })
        #expect(h.logLines.filter { $0.contains("metrics: cannot write") }.count == 1, "\(h.logLines)")
        h.runtime.finish()
        #expect(h.logLines.filter { $0.contains("metrics: cannot write") }.count == 1, "\(h.logLines)")
    }
}
