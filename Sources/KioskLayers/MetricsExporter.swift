import Glibc
import KioskCore
import KioskPlatform

/// Fleet metrics: counts the kiosk's events and, while `[metrics] textfile` names a file,
/// rewrites that file every `interval_s` for Prometheus node_exporter's textfile collector
/// (no server in the kiosk). Each write goes through `OutputFile`: atomic, a temporary file in the
/// same folder (`NAME.prom.tmp.PID`, which the collector ignores: it reads only `*.prom`), fsync,
/// rename; a FIFO or device at the path is refused, not replaced.
///
/// The loop renders the text (a few KB); a writer thread does the file work, so a slow SD card's
/// fsync never delays a frame. At most one write is in flight: a stuck disk skips writes rather
/// than queueing them. A file that cannot be written is logged once (further runs of failures
/// rate-limited) and the kiosk goes on; the timer wakes the loop only while metrics are on.
/// Reloads switch it on, off, to another file or interval at once; the exit writes the final
/// figures, waiting for that at most `exitWait`.
public final class MetricsExporter: KioskLayer {
    public private(set) var metrics: KioskMetrics
    public private(set) var settings: MetricsSettings
    /// Files written since the start.
    public private(set) var writes = 0
    /// Timer ticks that found the previous write still in flight.
    public private(set) var skipped = 0
    /// How long the exit waits for the final write.
    public var exitWait = Duration.seconds(2)
    private weak var host: LayerHost?
    /// The loop, once attached.
    private var loop: EventLoop?
    private var timer: EventLoop.TimerID?
    /// Failed writes in a row, and whether that run of failures was logged.
    private var failedWrites = 0
    private var failureLogged = false
    private var failureRuns = RateLimitedLog()

    /// The writer thread, made when metrics are first on (`offLoop`).
    private let offLoop: Bool
    private var writer: Writer?
    private var inFlight = false

    private enum Job: Sendable {
        case write(path: String, bytes: [UInt8])
        case stop
    }

    /// What a write came to: nil, or why it failed.
    private struct Outcome: Sendable {
        var path: String
        var error: String?
    }

    private struct Writer {
        let jobs: Mailbox<Job>
        let outcomes: Mailbox<Outcome>
        let thread: WorkerThread
        let outcomesWatch: LoopRegistration
    }

    /// `offLoop: false` writes on the loop's thread (tests on virtual time).
    public init(offLoop: Bool = true) {
        self.offLoop = offLoop
        settings = MetricsSettings()
        metrics = KioskMetrics(startTime: .epoch)
    }

    public func attach(to host: LayerHost) {
        self.host = host
        // Start and touch times are read by people and Prometheus: the wall clock's.
        metrics = KioskMetrics(startTime: host.wallClock.wallTime(at: host.loop.now))
        loop = host.loop
        settings = host.settings.metrics
        let timer = host.loop.addTimer("metrics")
        host.loop.onFire(timer) { [unowned self] now in tick(now) }
        self.timer = timer
        replaceTimer()
        if settings.textfile != nil { announce() }
    }

    public func handle(_ event: KioskEvent, _ facts: EventFacts) {
        metrics.note(event, facts)
    }

    public func reload(_ settings: Settings) { apply(settings.metrics) }

    public func stop() { finish() }

    /// What the runtime knows now, for the file.
    public var live: KioskMetrics.LiveFigures {
        host?.snapshot.liveFigures ?? KioskMetrics.LiveFigures(displayUp: false, screens: 0, touchscreens: nil, screen: .start, frames: 0,
                                                               frameTimes: SampleRing(capacity: 1), latencies: SampleRing(capacity: 1))
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

    /// Says where the metrics go, and when node_exporter would not read them.
    private func announce() {
        guard let path = settings.textfile else {
            log(.info, "metrics off")
            return
        }
        log(.info, "metrics to \(path) every \(PrometheusText.format(settings.interval.inSeconds)) s")
        if !path.hasSuffix(".prom") {
            log(.warning, "metrics: \(path) does not end in .prom; node_exporter's textfile collector reads only *.prom")
        }
    }

    /// One timer that re-arms itself (so a reload can change the period): the first write in
    /// the loop's next iteration, or none while metrics are off.
    private func replaceTimer() {
        guard let loop, let timer else { return }
        loop.arm(timer, at: settings.textfile == nil ? nil : loop.now)
    }

    private func tick(_ now: TimeStamp) {
        write()
        guard let loop, let timer else { return }
        loop.arm(timer, at: settings.textfile == nil ? nil : now + settings.interval)
    }

    private func log(_ level: Console.Level, _ message: String) {
        host?.log(level, message)
    }

    /// Writes the file now (on the writer thread when there is one), if metrics are on and no
    /// write is in flight; failures are logged, never thrown.
    public func write() {
        guard let path = settings.textfile else { return }
        let bytes = Array(text.utf8)
        guard let writer = startedWriter() else {
            finished(Outcome(path: path, error: Self.attempt(path, bytes)))
            return
        }
        guard !inFlight else {
            skipped += 1
            return
        }
        inFlight = true
        writer.jobs.post(.write(path: path, bytes: bytes))
    }

    private static func attempt(_ path: String, _ bytes: [UInt8]) -> String? {
        do {
            try OutputFile.write(path, bytes)
            return nil
        } catch {
            // The log line names the path first; the reason alone keeps it from showing twice.
            return OutputFile.reason(error)
        }
    }

    /// The writer thread, started on first use; nil when writing on the loop (asked for, or the
    /// thread could not be made).
    private func startedWriter() -> Writer? {
        guard offLoop, let loop else { return nil }
        if let writer { return writer }
        do {
            let jobs = try Mailbox<Job>(name: "metrics jobs")
            let outcomes = try Mailbox<Outcome>(name: "metrics outcomes")
            let thread = try WorkerThread(name: "metrics") {
                while true {
                    for job in jobs.wait() {
                        switch job {
                        case .stop: return
                        case .write(let path, let bytes): outcomes.post(Outcome(path: path, error: MetricsExporter.attempt(path, bytes)))
                        }
                    }
                }
            }
            let watch = outcomes.attach(to: loop, name: "metrics") { done in
                for outcome in done { self.finished(outcome) }
            }
            writer = Writer(jobs: jobs, outcomes: outcomes, thread: thread, outcomesWatch: watch)
            return writer
        } catch {
            log(.warning, "metrics: no writer thread (\(error)); writing from the main loop")
            return nil
        }
    }

    /// A write came back: count it, or log the failure once.
    private func finished(_ outcome: Outcome) {
        inFlight = false
        // A reload moved the metrics elsewhere meanwhile: the old file's fate is not news.
        guard outcome.path == settings.textfile else { return }
        let path = outcome.path
        if let error = outcome.error {
            if failedWrites == 0 && failureRuns.note() {
                failureLogged = true
                log(.error, "metrics: cannot write \(echoed(path, limit: 200)): \(error); the kiosk goes on, retrying every "
                    + "\(PrometheusText.format(settings.interval.inSeconds)) s")
            }
            failedWrites += 1
            return
        }
        writes += 1
        if failureLogged {
            log(.notice, "metrics: \(echoed(path, limit: 200)) written again after \(failedWrites) failed write\(failedWrites == 1 ? "" : "s")")
        }
        failedWrites = 0
        failureLogged = false
    }

    /// The exit: the final figures, then the thread stops. A disk that hangs keeps the exit
    /// waiting `exitWait` at most (the display is given back after this).
    private func finish() {
        guard let writer else {
            write()
            return
        }
        writer.outcomesWatch.cancel()
        var waited = Duration.zero
        func waitForTheWrite() {
            while inFlight && waited < exitWait {
                for outcome in writer.outcomes.wait(timeout: .milliseconds(50)) { finished(outcome) }
                waited += .milliseconds(50)
            }
        }
        // The write in flight, if any, then the final one.
        waitForTheWrite()
        if !inFlight {
            write()
            waitForTheWrite()
        }
        writer.jobs.post(.stop)
        if inFlight {
            log(.warning, "metrics: the last write to \(settings.textfile ?? "?") did not finish within \(Int(exitWait.inMilliseconds)) ms")
        } else {
            writer.thread.join()
        }
        self.writer = nil
    }
}
