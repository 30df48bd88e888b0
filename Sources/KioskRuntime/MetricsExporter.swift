import Glibc
import KioskCore
import KioskPlatform

/// Fleet metrics: counts the kiosk's events and, while `[metrics] textfile` names a file,
/// rewrites that file every `interval_s` for Prometheus node_exporter's textfile collector
/// (no server in the kiosk). Each write is atomic: a temporary file in the same folder
/// (`NAME.prom.tmp.PID`, which the collector ignores: it reads only `*.prom`), then a rename.
///
/// A file that cannot be written is logged once (further episodes rate-limited) and the kiosk
/// goes on; the timer wakes the loop only while metrics are on. Reloads switch it on, off, to
/// another file or interval at once; the exit writes the final figures.
public final class MetricsExporter {
    public private(set) var metrics: KioskMetrics
    public private(set) var settings: MetricsSettings
    /// Files written since the start.
    public private(set) var writes = 0
    private unowned let runtime: KioskRuntime
    private var timer: EventLoop.TimerID!
    private let wallClock: () -> Double
    /// Failed writes in a row, and whether that run of failures was logged.
    private var failedWrites = 0
    private var failureLogged = false
    private var failureRuns = RateLimitedLog()

    /// Observes `runtime` from now on (call before it runs). `wallClock`: seconds since the
    /// Unix epoch (the real-time clock: touch and start times are read by people and Prometheus).
    public init(runtime: KioskRuntime, wallClock: @escaping () -> Double = MetricsExporter.unixTime) {
        self.runtime = runtime
        self.wallClock = wallClock
        settings = runtime.settings.metrics
        metrics = KioskMetrics(startTime: wallClock())
        // Strong captures: the runtime's loop and observers keep the exporter alive while it runs.
        timer = runtime.loop.addTimer("metrics") { now in self.tick(now) }
        runtime.observe { event, _ in
            self.metrics.note(event, round: self.runtime.session.game.round, wallClock: self.wallClock())
        }
        runtime.observeReload { settings in self.apply(settings.metrics) }
        runtime.observeExit { self.write() }
        replaceTimer()
        if settings.textfile != nil { announce() }
    }

    /// Says where the metrics go, and when node_exporter would not read them.
    private func announce() {
        guard let path = settings.textfile else {
            runtime.log(.info, "metrics off")
            return
        }
        runtime.log(.info, "metrics to \(path) every \(PrometheusText.format(settings.intervalS)) s")
        if !path.hasSuffix(".prom") {
            runtime.log(.warning, "metrics: \(path) does not end in .prom; node_exporter's textfile collector reads only *.prom")
        }
    }

    /// Seconds since the Unix epoch (CLOCK_REALTIME).
    public static func unixTime() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }

    /// What the runtime knows now, for the file.
    public var live: KioskMetrics.LiveFigures {
        KioskMetrics.LiveFigures(displayUp: runtime.displayState == .showing, touchscreens: runtime.input.deviceCount,
                                 screen: runtime.session.game.screen, frames: runtime.frames,
                                 frameTimesMS: runtime.frameTimes, latenciesMS: runtime.latencies)
    }

    /// The file's text now.
    public var text: String { metrics.exposition(live) }

    /// A reloaded `[metrics]`: on, off, another file or interval, at once.
    func apply(_ new: MetricsSettings) {
        guard new != settings else { return }
        settings = new
        failedWrites = 0
        failureLogged = false
        replaceTimer()
        announce()
    }

    /// One timer that re-arms itself (so a reload can change the period): the first write in
    /// the loop's next iteration, or none while metrics are off.
    private func replaceTimer() {
        runtime.loop.arm(timer, at: settings.textfile == nil ? nil : runtime.loop.now)
    }

    private func tick(_ now: TimeStamp) {
        write()
        runtime.loop.arm(timer, at: settings.textfile == nil ? nil : now.adding(milliseconds: settings.intervalS * 1000))
    }

    /// Writes the file now, if metrics are on; failures are logged, never thrown.
    public func write() {
        guard let path = settings.textfile else { return }
        do {
            try FileSystem.writeAtomically(path, Array(text.utf8))
            writes += 1
            if failureLogged {
                runtime.log(.notice, "metrics: \(path) written again after \(failedWrites) failed write\(failedWrites == 1 ? "" : "s")")
            }
            failedWrites = 0
            failureLogged = false
        } catch {
            if failedWrites == 0 && failureRuns.note() {
                failureLogged = true
                runtime.log(.error, "metrics: cannot write \(path): \(error); the kiosk goes on, retrying every "
                    + "\(PrometheusText.format(settings.intervalS)) s")
            }
            failedWrites += 1
        }
    }
}
