import Glibc
import KioskCore
import KioskTestSupport
import KioskLayers
import KioskPlatform
import KioskRuntime
import Testing

/// The metrics textfile goes through the one output-file writer: what is not a regular file is
/// refused, logged once and left as it is.
@Suite struct MetricsOutputTests {
    @Test func aFIFOAtTheTextfileIsRefusedNotReplaced() throws {
        let dir = makeTemporaryDirectory("metrics-output")
        let fifo = dir + "/bubble-kiosk.prom"
        #expect(mkfifo(fifo, 0o600) == 0)
        var settings = RuntimeHarness.quietSettings
        settings.metrics.textfile = fifo
        settings.metrics.interval = .seconds(1)
        let h = try RuntimeHarness(settings: settings)
        let exporter = MetricsExporter(offLoop: false)
        h.runtime.attach(exporter)
        try h.run(ms: 50)
        h.advance(ms: 5_000)
        let failures = h.logLines.filter { $0.contains("metrics: cannot write") }
        #expect(failures.count == 1, "\(h.logLines)")
        #expect(failures.first?.hasPrefix("metrics: cannot write \(fifo): not a regular file (a FIFO); left as it is; ") == true,
                "\(failures)")
        #expect(exporter.writes == 0)
        var st = stat()
        #expect(lstat(fifo, &st) == 0 && st.st_mode & S_IFMT == S_IFIFO, "the FIFO was replaced")
        #expect(try FileSystem.listDirectory(dir) == ["bubble-kiosk.prom"])
        unlink(fifo)
        rmdir(dir)
    }
}
