import KioskCore
import KioskPlatform
import KioskRuntime

/// The kiosk's start and its start screen at rest, on its own runtime with a virtual display of
/// the bench's size (no device to open): the wall time from nothing to the first frame, and what
/// the start screen costs while nobody comes by.
enum StartupBench {
    struct Report {
        /// Wall time from building the runtime (config defaults) to its first frame drawn.
        var firstFrameMS = 0.0
        /// The start screen untouched for `idleMinutes` of virtual time, the attract demo off:
        /// frames drawn and loop wake-ups, per minute.
        var idleFramesPerMinute = 0.0
        var idleWakeupsPerMinute = 0.0
        var idleMinutes = 0
    }

    /// Run first in the process, so the font set and cairo start cold, as in a kiosk's start.
    /// Each part's kiosk is gone before the next is made, so the bench's peak RSS stays its own.
    static func measure(size: PixelSize, seed: UInt64) throws -> Report {
        var report = Report()
        var options = KioskRuntime.Options()
        options.seed = seed
        report.firstFrameMS = try firstFrame(size: size, options: options)
        report.idleMinutes = 10
        (report.idleFramesPerMinute, report.idleWakeupsPerMinute) = try idleStartScreen(size: size, options: options,
                                                                                         minutes: report.idleMinutes)
        return report
    }

    /// Wall milliseconds from nothing to the first frame drawn, config defaults.
    private static func firstFrame(size: PixelSize, options: KioskRuntime.Options) throws -> Double {
        let started = EventLoop.now()
        let kiosk = try VirtualKiosk(settings: Settings(), size: size, clock: MonotonicClock.shared, options: options)
        kiosk.runtime.logger = .discard
        try kiosk.runtime.start()
        while kiosk.runtime.frames == 0, EventLoop.now() - started < .seconds(5) {
            kiosk.runtime.step()
        }
        let ms = (EventLoop.now() - started).inMilliseconds
        kiosk.runtime.finish()
        return ms
    }

    /// Frames and wake-ups a minute of the start screen on virtual time, after its first second.
    private static func idleStartScreen(size: PixelSize, options: KioskRuntime.Options,
                                        minutes: Int) throws -> (frames: Double, wakeups: Double) {
        var settings = Settings()
        settings.attract.demo = false
        let kiosk = try VirtualKiosk(settings: settings, size: size, options: options)
        kiosk.runtime.logger = .discard
        try kiosk.run(for: .seconds(1))
        let frames = kiosk.runtime.frames, wakeups = kiosk.loop.wakeups
        kiosk.advance(by: .seconds(minutes * 60))
        defer { kiosk.runtime.finish() }
        return (Double(kiosk.runtime.frames - frames) / Double(minutes), Double(kiosk.loop.wakeups - wakeups) / Double(minutes))
    }
}
