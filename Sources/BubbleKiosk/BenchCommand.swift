import Glibc
import KioskCore
import KioskPlatform
import KioskRender
import KioskRuntime

/// `bubble-kiosk bench`: renders the kiosk's own attract demo (on a virtual kiosk) and reports CPU
/// time per frame for a full redraw, a steady animated frame and an idle frame, next to two yardsticks measured in the same
/// run: one full-frame memcpy and the naive draw-everything-with-paths renderer.
struct BenchCommand: KioskCommand {
    static let name = "bench"
    static let usage = """
        usage: bubble-kiosk bench [--size WxH] [--bubbles N] [--frames N] [--seed N] [--json] [--png FILE]
                                  [--sound-device DEVICE]

        Plays the kiosk's attract demo on a virtual kiosk (default 1920x1080, a demo round of 40
        bubbles, 300 frames a case, seed 1), draws its frames with the kiosk's renderer on this
        thread and prints median and 95th-percentile CPU milliseconds per frame for: a full redraw,
        an animated frame (the ghost finger popping bubbles, sparks flying), an idle frame,
        the naive cairo renderer, one full-frame memcpy, and a frame of the touch-test screen with
        two fingers moving; plus damage bytes per frame and peak RSS. --json prints one JSON object; --png saves the rendered scene. Then 40 pops
        through the sound thread and ALSA DEVICE (default null: no card needed; use the kiosk's
        [sounds] device on a kiosk): event to first sample written, the device's delay, and both.
        Last, a recorded round through the runtime twice, bare and with sounds, hooks, score
        writes and metrics: the render-and-present time of its frames, to show the layers stay
        off the frame path.
        """

    static func run(_ args: ArraySlice<String>) throws -> Int32 {
        let a = try Arguments(args, valued: ["size", "bubbles", "frames", "seed", "png", "sound-device"], flags: ["json"])
        guard a.positionals.isEmpty else { throw UsageError("unexpected argument '\(echoed(a.positionals[0]))'") }
        let size = try a.size() ?? PixelSize(width: 1920, height: 1080)
        let bubbles = try a.int("bubbles", default: 40, range: 1...400)
        let frames = try a.int("frames", default: 300, range: 1...100_000)
        let seed = try a.seed() ?? 1
        let bench = try Benchmark(size: size, bubbles: bubbles, frames: frames, seed: seed)
        var report = try bench.run(pngPath: a.value("png"))
        report.sound = try SoundLatencyBench.measure(device: a.value("sound-device") ?? "null")
        report.layers = try LayerLoadBench.measure(size: size, seed: seed)
        Console.out(a.has("json") ? report.json.text + "\n" : report.table)
        return 0
    }
}

/// Runs every case of the benchmark in a fixed order and gathers the figures. The frames are the
/// kiosk's own: its attract demo (`startDemo` at once) on a virtual kiosk, one 60th of a second of
/// virtual time a frame, each scene built by the runtime's scene builder and drawn by its renderer.
struct Benchmark {
    static let frameMS = 1000.0 / 60

    let size: PixelSize
    let bubbles: Int
    let frames: Int
    let kiosk: VirtualKiosk<InjectedTouchInput>

    /// - Parameter bubbles: the demo round's bubbles (`[game] bubbles`).
    init(size: PixelSize, bubbles: Int, frames: Int, seed: UInt64) throws {
        self.size = size
        self.bubbles = bubbles
        self.frames = frames
        var settings = Settings()
        settings.game.bubbles = bubbles
        var options = KioskRuntime.Options()
        options.seed = seed
        options.attractNow = true
        // The runtime never draws: the bench draws each of its scenes, timed, with its renderer.
        kiosk = try VirtualKiosk(settings: settings, size: size, display: { _ in WithheldDisplay(size: size) },
                                 options: options)
        kiosk.runtime.logger = { _, _ in }
    }

    /// The demo one frame on: what the kiosk draws then.
    private func nextScene() -> Scene {
        kiosk.advance(ms: Self.frameMS)
        return kiosk.scene()
    }

    func run(pngPath: String?) throws -> BenchReport {
        var report = BenchReport(size: size, bubbles: bubbles, frames: frames)
        try kiosk.runtime.start()
        let renderer = kiosk.renderer

        // The yardstick first: its destination buffer is freed before sprites are made,
        // so the peak RSS is that of the renderer, not of the renderer plus a spare frame.
        let destination = UnsafeMutableRawPointer.allocate(byteCount: renderer.frame.byteCount, alignment: 64)
        renderer.frame.copyAll(to: destination)  // fault the pages in before timing
        report.memcpy = Self.measure(frames) { _ in renderer.frame.copyAll(to: destination) }
        destination.deallocate()

        // Warm up (sprites for the scene get rendered) past the demo's lead-in, until its ghost
        // finger moves; then the steady animation.
        for _ in 0..<90 { renderer.render(nextScene()) }
        let spritesBefore = renderer.spritesRendered
        var damageBytes = 0, damageRects = 0
        report.animated = Self.measure(frames) { timer in
            let scene = nextScene()
            timer.start()
            let damage = renderer.render(scene)
            timer.stop()
            damageRects += damage.count
            damageBytes += damage.reduce(0) { $0 + $1.area } * 4
        }
        report.damageBytesPerFrame = Double(damageBytes) / Double(frames)
        report.damageRectsPerFrame = Double(damageRects) / Double(frames)
        report.spritesRenderedPerFrame = Double(renderer.spritesRendered - spritesBefore) / Double(frames)

        report.fullRedraw = Self.measure(frames) { timer in
            let scene = nextScene()
            renderer.invalidate()
            timer.start()
            renderer.render(scene)
            timer.stop()
        }
        if let pngPath {
            do { try PNGWriter.writePNG(renderer.frame, to: pngPath) } catch {
                Console.errorLine("bubble-kiosk bench: \(error)")
            }
        }

        let still = nextScene()
        renderer.render(still)
        var idleDamage = 0
        report.idle = Self.measure(frames) { timer in
            timer.start()
            let damage = renderer.render(still)
            timer.stop()
            idleDamage += damage.count
        }
        report.idleDamageRects = idleDamage
        report.sprites = renderer.spriteCount
        report.spriteBytes = renderer.spriteBytes

        // Last, because it draws over the renderer's frame.
        let naive = NaiveRenderer(frame: renderer.frame)
        report.naive = Self.measure(frames) { timer in
            let scene = nextScene()
            timer.start()
            naive.render(scene)
            timer.stop()
        }
        kiosk.runtime.finish()
        report.peakRSSMB = Self.peakRSSMegabytes()
        // After the RSS reading: it needs a renderer and a display of its own.
        report.inputLatency = try InputLatencyBench.measure(size: size, frames: frames, seed: 1)
        report.touchTest = TouchTestBench.measure(size: size, frames: frames)
        return report
    }

    /// Calls `body` `count` times; `body` starts and stops the timer around the measured part
    /// (or leaves it alone to measure the whole call).
    private static func measure(_ count: Int, _ body: (inout CPUTimer) -> Void) -> Timing {
        var samples: [Double] = []
        samples.reserveCapacity(count)
        for _ in 0..<count {
            var timer = CPUTimer()
            timer.start()
            body(&timer)
            timer.stop()
            samples.append(timer.elapsedMS)
        }
        return Timing(samples)
    }

    private static func peakRSSMegabytes() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return Double(usage.ru_maxrss) / 1024  // Linux reports kilobytes
    }
}

/// CPU time of this thread only: other work on the machine does not count against a frame.
struct CPUTimer {
    private var started: Double?
    private(set) var elapsedMS = 0.0

    /// Starting again discards the time so far, so `body` may narrow what `measure` times.
    mutating func start() {
        elapsedMS = 0
        started = Self.now()
    }

    mutating func stop() {
        guard let s = started else { return }
        elapsedMS = Self.now() - s
        started = nil
    }

    static func now() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)
        return Double(ts.tv_sec) * 1000 + Double(ts.tv_nsec) / 1_000_000
    }
}

/// The figures of one run, as a table or as one JSON object.
struct BenchReport {
    var size: PixelSize
    var bubbles: Int
    var frames: Int
    var fullRedraw = Timing()
    var animated = Timing()
    var idle = Timing()
    var naive = Timing()
    var memcpy = Timing()
    /// Wall-clock time from a touch frame to the virtual display showing it (no vblank wait).
    var inputLatency = Timing()
    /// A frame of the touch-test screen with two fingers moving.
    var touchTest = Timing()
    var damageBytesPerFrame = 0.0
    var damageRectsPerFrame = 0.0
    var spritesRenderedPerFrame = 0.0
    var idleDamageRects = 0
    var sprites = 0
    var spriteBytes = 0
    var peakRSSMB = 0.0
    var sound = SoundLatencyBench()
    var layers = LayerLoadBench.Report()

    /// The issue's targets, relative to this machine's memcpy.
    var targets: [(String, Bool)] {
        [("full_redraw_le_4x_memcpy", fullRedraw.median <= 4 * memcpy.median),
         ("animated_le_1x_memcpy", animated.median <= memcpy.median),
         ("idle_draws_nothing", idleDamageRects == 0),
         ("peak_rss_le_40mb", peakRSSMB <= 40)]
    }

    /// Keys stay in this order; later fields go before "targets".
    var json: JSON {
        .object([
            ("size", .string(size.description)), ("bubbles", .int(bubbles)), ("frames", .int(frames)),
            ("full_redraw_ms", fullRedraw.json), ("animated_ms", animated.json), ("idle_ms", idle.json),
            ("naive_ms", naive.json), ("memcpy_ms", JSON.rounded(memcpy.median, 4)),
            ("memcpy_p95_ms", JSON.rounded(memcpy.p95, 4)),
            ("damage_bytes_per_frame", .int(Int(damageBytesPerFrame.rounded()))),
            ("damage_rects_per_frame", JSON.rounded(damageRectsPerFrame, 2)),
            ("sprites_rendered_per_frame", JSON.rounded(spritesRenderedPerFrame, 3)),
            ("sprites_cached", .int(sprites)), ("sprite_cache_mb", JSON.rounded(Double(spriteBytes) / 1_048_576, 2)),
            ("peak_rss_mb", JSON.rounded(peakRSSMB, 1)),
            ("input_latency_ms", inputLatency.json),
            ("sound_device", .string(sound.device)), ("sound_device_opened", .bool(sound.opened)),
            ("sound_period_frames", .int(sound.periodFrames)), ("sound_buffer_frames", .int(sound.bufferFrames)),
            ("sound_event_to_write_ms", sound.eventToWrite.json), ("sound_device_delay_ms", sound.deviceDelay.json),
            ("sound_event_to_sound_ms", sound.eventToSound.json), ("sound_underruns", .int(sound.underruns)),
            ("frame_bare_ms", layers.bare.json), ("frame_with_layers_ms", layers.layered.json),
            ("layers_frames", .int(layers.frames)), ("layers_pops", .int(layers.pops)),
            ("layers_hooks_started", .int(layers.hooksStarted)), ("layers_sounds_started", .int(layers.soundsStarted)),
            ("touch_test_ms", touchTest.json),
            ("targets", .object(targets.map { ($0.0, .bool($0.1)) })),
        ])
    }

    var table: String {
        func ms(_ v: Double) -> String { pad(fixed(v, 3), 10) }
        func row(_ name: String, _ t: Timing) -> String { pad(name, 28, left: true) + ms(t.median) + ms(t.p95) + "\n" }
        var out = "bubble-kiosk bench: \(size), \(bubbles) bubbles, \(frames) frames a case, CPU time of one thread\n"
        out += pad("case (ms per frame)", 28, left: true) + pad("median", 10) + pad("p95", 10) + "\n"
        out += row("full redraw", fullRedraw) + row("animated frame", animated) + row("idle frame", idle)
        out += row("naive cairo redraw", naive) + row("memcpy of one frame", memcpy)
        out += row("input to screen (wall)", inputLatency)
        out += row("touch-test screen frame", touchTest)
        if sound.opened {
            out += row("sound: event to write", sound.eventToWrite) + row("sound: device delay", sound.deviceDelay)
            out += row("sound: event to heard", sound.eventToSound)
            out += "sound on ALSA '\(sound.device)': period \(sound.periodFrames) frames, buffer \(sound.bufferFrames), \(sound.underruns) underruns\n"
        } else {
            out += "sound: ALSA device '\(sound.device)' cannot be opened; no sound figures\n"
        }
        out += row("round frame, bare", layers.bare) + row("round frame, with layers", layers.layered)
        out += "layers over \(layers.frames) frames and \(layers.pops) pops: \(layers.hooksStarted) hooks run, "
            + "\(layers.soundsStarted) sounds started, a score write, a metrics file a second\n"
        out += "damage per animated frame: \(Int(damageBytesPerFrame.rounded())) bytes in \(fixed(damageRectsPerFrame, 1)) rectangles"
        out += "; sprites rendered per frame: \(fixed(spritesRenderedPerFrame, 3))\n"
        out += "sprite cache: \(sprites) sprites, \(fixed(Double(spriteBytes) / 1_048_576, 1)) MB; peak RSS: \(fixed(peakRSSMB, 1)) MB\n"
        out += "targets: " + targets.map { "\($0.0) \($0.1 ? "ok" : "MISSED")" }.joined(separator: ", ") + "\n"
        return out
    }

    private func fixed(_ v: Double, _ places: Int) -> String {
        var scale = 1
        for _ in 0..<places { scale *= 10 }
        let n = Int((v * Double(scale)).rounded())
        let whole = String(n / scale), frac = String(abs(n % scale))
        return (n < 0 && n / scale == 0 ? "-" : "") + whole + "." + String(repeating: "0", count: places - frac.count) + frac
    }

    private func pad(_ s: String, _ width: Int, left: Bool = false) -> String {
        let fill = String(repeating: " ", count: max(0, width - s.count))
        return left ? s + fill : fill + s
    }
}
