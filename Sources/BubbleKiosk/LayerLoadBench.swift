import Glibc
import KioskCore
import KioskLayers
import KioskPlatform
import KioskRuntime

/// Frame time with and without the operator layers: the same recorded round (Start, then every
/// bubble popped) played through the runtime twice on virtual time, once bare and once with
/// sounds (ALSA `null`), a hook for every pop and round, the score writer and a metrics file
/// rewritten every second. Each frame's render and present is timed on the monotonic clock, so
/// the figures show whether the layers' work ever lands on the frame path.
enum LayerLoadBench {
    struct Report {
        var bare = Timing()
        var layered = Timing()
        var frames = 0
        var pops = 0
        /// What the layers did meanwhile: hook processes started, sounds started.
        var hooksStarted = 0
        var soundsStarted = 0
    }

    static func measure(size: PixelSize, seed: UInt64) throws -> Report {
        var report = Report()
        let bare = try play(size: size, seed: seed, layers: false)
        report.bare = bare.frameTimes.timing
        let layered = try play(size: size, seed: seed, layers: true)
        report.layered = layered.frameTimes.timing
        report.frames = layered.frameTimes.samples.count
        report.pops = layered.pops
        report.hooksStarted = layered.hooksStarted
        report.soundsStarted = layered.soundsStarted
        return report
    }

    private static func play(size: PixelSize, seed: UInt64, layers: Bool) throws -> (frameTimes: SampleRing, pops: Int, hooksStarted: Int, soundsStarted: Int) {
        var settings = Settings()
        settings.attract.demo = false
        let scratch = "/tmp/bubble-kiosk-bench-\(getpid())"
        mkdir(scratch, 0o700)
        defer {
            for name in ["scores.db", "scores.db-wal", "scores.db-shm", "scores.db-journal", "bench.prom"] { unlink(scratch + "/" + name) }
            rmdir(scratch)
        }
        if layers {
            settings.sounds.device = "null"
            settings.hooks.pop = "/bin/true"
            settings.hooks.roundStart = "/bin/true"
            settings.hooks.roundOver = "/bin/true"
            settings.hooks.perEventPerMinute = 6000
            settings.hooks.maxRunning = 64
            settings.metrics.textfile = scratch + "/bench.prom"
            settings.metrics.interval = .seconds(1)
            // A board's own panel is not the bench's to dim or switch off.
            settings.display.backlight = "none"
        }
        let field = PlayField(size: size, pxPerMM: PixelDensity.resolve(configured: nil), game: settings.game)
        let round = Round(field: field, settings: settings, seed: seed, at: .zero)
        let game = KioskGame(field: field, settings: settings, seed: seed, at: .zero)
        let script = RoundRecording(transform: TouchTransform(native: size), startButton: (game.button(for: .classic) ?? game.button).center)
        let text = script.text(popping: round.bubbles, limit: nil, swipeLengthPx: field.px(25), goal: round.goal)
        let reader = try EvemuReader(text: text, file: "bench round")

        let input = ReplayTouchInput(recording: reader, path: "bench", screen: size, log: .discard)
        var options = KioskRuntime.Options()
        options.seed = seed
        let kiosk = try VirtualKiosk(settings: settings, size: size, input: input, options: options)
        let runtime = kiosk.runtime
        runtime.logger = .discard
        var pops = 0
        runtime.observe { event, _ in
            if case .game(.popped) = event { pops += 1 }
        }
        let attached = layers ? RunCommand.operatorLayers(scoreDirectory: scratch, soundsAtOnce: true) : []
        runtime.attach(attached)
        let sounds = attached.lazy.compactMap { $0 as? SoundLayer }.first?.player
        let hooks = attached.lazy.compactMap { $0 as? HookLayer }.first?.runner
        // The sound thread opens its device first (virtual time races through the round).
        for _ in 0..<200 where sounds.map({ $0.stats.configured == 0 }) ?? false { usleep(10_000) }
        // The recording to its end (a virtual minute at most), then the round-over screen.
        try runtime.start()
        let limit = kiosk.now + .seconds(60)
        while input.nextDeadline != nil && kiosk.now < limit { kiosk.advance(by: .seconds(1)) }
        kiosk.advance(by: .seconds(2))
        runtime.finish()
        // After the exit path stopped the sound thread: its count is final.
        let soundsStarted = sounds?.stats.starts.count ?? 0
        return (runtime.frameTimes, pops, hooks?.started ?? 0, soundsStarted)
    }
}
