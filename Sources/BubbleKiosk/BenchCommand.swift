import Glibc
import KioskCore
import KioskPlatform
import KioskRender

/// `bubble-kiosk bench`: renders a fixed, seeded scene and reports CPU time per frame for a full
/// redraw, a steady animated frame and an idle frame, next to two yardsticks measured in the same
/// run: one full-frame memcpy and the naive draw-everything-with-paths renderer.
struct BenchCommand: KioskCommand {
    static let name = "bench"
    static let usage = """
        usage: bubble-kiosk bench [--size WxH] [--bubbles N] [--frames N] [--seed N] [--json] [--png FILE]
                                  [--sound-device DEVICE]

        Renders a fixed scene (default 1920x1080, 40 bubbles, 300 frames a case, seed 1) on this
        thread and prints median and 95th-percentile CPU milliseconds per frame for: a full redraw,
        an animated frame (bubbles popping, particles flying, a finger dragging), an idle frame,
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
        var bench = Benchmark(size: size, bubbles: bubbles, frames: frames, seed: seed)
        var report = try bench.run(pngPath: a.value("png"))
        report.sound = try SoundLatencyBench.measure(device: a.value("sound-device") ?? "null")
        report.layers = try LayerLoadBench.measure(size: size, seed: seed)
        Console.out(a.has("json") ? report.json.text + "\n" : report.table)
        return 0
    }
}

/// Runs every case of the benchmark in a fixed order and gathers the figures.
struct Benchmark {
    let size: PixelSize
    let bubbles: Int
    let frames: Int
    var simulation: BenchSimulation

    init(size: PixelSize, bubbles: Int, frames: Int, seed: UInt64) {
        self.size = size
        self.bubbles = bubbles
        self.frames = frames
        simulation = BenchSimulation(size: size, bubbles: bubbles, seed: seed)
    }

    mutating func run(pngPath: String?) throws -> BenchReport {
        var report = BenchReport(size: size, bubbles: bubbles, frames: frames)
        let renderer = SceneRenderer(size: size)

        // The yardstick first: its destination buffer is freed before sprites are made,
        // so the peak RSS is that of the renderer, not of the renderer plus a spare frame.
        let destination = UnsafeMutableRawPointer.allocate(byteCount: renderer.frame.byteCount, alignment: 64)
        renderer.frame.copyAll(to: destination)  // fault the pages in before timing
        report.memcpy = Self.measure(frames) { _ in renderer.frame.copyAll(to: destination) }
        destination.deallocate()

        // Warm up (sprites for the scene get rendered), then the steady animation.
        var frame = 0
        for _ in 0..<60 {
            renderer.render(simulation.scene(frame: frame))
            frame += 1
        }
        let spritesBefore = renderer.spritesRendered
        var damageBytes = 0, damageRects = 0
        report.animated = Self.measure(frames) { timer in
            let scene = simulation.scene(frame: frame)
            frame += 1
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
            let scene = simulation.scene(frame: frame)
            frame += 1
            renderer.invalidate()
            timer.start()
            renderer.render(scene)
            timer.stop()
        }
        if let pngPath {
            do { try OutputFile.write(pngPath, PNGWriter.pngBytes(renderer.frame)) } catch {
                Console.errorLine("bubble-kiosk bench: \(error)")
            }
        }

        let still = simulation.scene(frame: frame)
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
            let scene = simulation.scene(frame: frame)
            frame += 1
            timer.start()
            naive.render(scene)
            timer.stop()
        }
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

/// A round that keeps moving the same way on every run: a bubble pops every third of a second
/// (swelling, fading, 30 particles), a new one appears where there is room, a finger circles,
/// the score and the clock in the heads-up bar change.
struct BenchSimulation {
    static let frameMS = 1000.0 / 60
    static let popEveryFrames = 20

    let size: PixelSize
    let pxPerMM = DisplaySettings.fallbackPxPerMM
    private var rng: SeededGenerator
    private var bubbles: [(id: Int, shape: BubbleShape)] = []
    private var popping: [(id: Int, shape: BubbleShape, pop: PopAnimation)] = []
    private var sprays: [ParticleSpray] = []
    private var arrivals: [(due: TimeStamp, look: BubbleShape)] = []
    private var nextID = 0
    private var pops = 0
    private var score = 0

    init(size: PixelSize, bubbles count: Int, seed: UInt64) {
        self.size = size
        rng = SeededGenerator(seed: seed)
        for _ in 0..<count { place(randomLook()) }
    }

    /// The scene at `frame` (60 per second); frames must come in increasing order.
    mutating func scene(frame: Int) -> Scene {
        let now = TimeStamp(milliseconds: Double(frame) * Self.frameMS)
        if frame % Self.popEveryFrames == 0 { pop(at: now) }
        popping.removeAll { $0.pop.isFinished(at: now) }
        sprays.removeAll { $0.isFinished(at: now) }
        while let next = arrivals.first, next.due <= now {
            arrivals.removeFirst()
            place(next.look)
        }

        let w = Double(size.width), hud = 12 * pxPerMM
        var items: [SceneItem] = []
        items.reserveCapacity(bubbles.count + popping.count + sprays.count * 30 + 4)
        for b in bubbles { items.append(SceneItem(id: .bubble(b.id), shape: .bubble(b.shape))) }
        for p in popping {
            if let shape = p.pop.apply(to: p.shape, at: now) {
                items.append(SceneItem(id: .bubble(p.id), shape: .bubble(shape)))
            }
        }
        for spray in sprays { items += spray.particles(at: now) }
        items.append(SceneItem(id: .ui("hud.bar"), shape: .panel(PanelShape(
            rect: Rect(x: 0, y: 0, width: w, height: hud.rounded()), color: RGBColor.black.withAlpha(0.35)))))
        let secondsLeft = max(0, 60 - Int(now.microseconds / 1_000_000))
        let clock = "0:" + (secondsLeft < 10 ? "0" : "") + "\(secondsLeft)"
        items.append(text("hud.score", "Score \(score)", x: 4 * pxPerMM, alignment: .left))
        items.append(text("hud.time", clock, x: w - 4 * pxPerMM, alignment: .right))
        let turn = Angle.unitVector(degrees: now.milliseconds(since: .zero) * 0.18)
        let finger = Vector2(w / 2, Double(size.height) * 0.55) + turn * (Double(size.height) * 0.25)
        // The finger carries a drag bubble, lifted with its shadow, past the goal basket.
        let goalSize = Vector2(30 * 1.7, 30 * 1.15) * pxPerMM
        items.append(SceneItem(id: .ui("goal"), shape: .goal(GoalShape(rect: Rect(
            x: (w - goalSize.x) / 2, y: Double(size.height) - 4 * pxPerMM - goalSize.y, width: goalSize.x, height: goalSize.y)))))
        items.append(SceneItem(id: .bubble(-1), shape: .bubble(BubbleShape(
            center: finger - Vector2(3, 2) * pxPerMM, diameter: 24 * pxPerMM, color: .bubble(5), content: .grip, lift: 1))))
        items.append(SceneItem(id: .finger(0), shape: .finger(FingerShape(center: finger, radius: 6 * pxPerMM))))
        return Scene(size: size, pxPerMM: pxPerMM, items: items)
    }

    private func text(_ key: String, _ string: String, x: Double, alignment: TextAlignment) -> SceneItem {
        let shape = TextShape(position: Vector2(x, 8.5 * pxPerMM), string: string, sizePx: 6 * pxPerMM,
                              alignment: alignment)
        return SceneItem(id: .ui(key), shape: .text(shape))
    }

    private mutating func pop(at now: TimeStamp) {
        guard !bubbles.isEmpty else { return }
        let victim = bubbles.remove(at: rng.integer(in: 0...(bubbles.count - 1)))
        let b = victim.shape
        popping.append((victim.id, b, PopAnimation(start: now)))
        sprays.append(ParticleSpray(id: pops, origin: b.center, color: b.color, start: now, generator: &rng,
                                    pxPerMM: pxPerMM, startRadius: b.diameter * 0.35))
        pops += 1
        score += 10
        // Like the timed mode's spawn interval: every fourth newcomer looks new (a sprite to
        // render); the others reuse the popped bubble's look.
        let look = pops % 4 == 0 ? randomLook() : b
        arrivals.append((now.adding(milliseconds: 250), look))
    }

    private mutating func randomLook() -> BubbleShape {
        let d = rng.uniform(18, 30) * pxPerMM
        let content: BubbleContent = rng.unit() < 0.5
            ? .arrow(degrees: Double(rng.integer(in: 0...359))) : .taps(rng.integer(in: 1...3))
        return BubbleShape(center: .zero, diameter: d, color: .bubble(rng.integer(in: 0...7)), content: content)
    }

    /// Puts a bubble where it overlaps no other, if 30 tries find such a place.
    private mutating func place(_ look: BubbleShape) {
        var b = look
        let margin = 4 * pxPerMM, top = 12 * pxPerMM + margin, r = b.diameter / 2
        for _ in 0..<30 {
            b.center = Vector2(rng.uniform(margin + r, max(margin + r + 1, Double(size.width) - margin - r)),
                               rng.uniform(top + r, max(top + r + 1, Double(size.height) - margin - r)))
            let free = bubbles.allSatisfy { $0.shape.center.distance(to: b.center) > ($0.shape.diameter + b.diameter) / 2 + 8 }
            if free { break }
        }
        bubbles.append((nextID, b))
        nextID += 1
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

    private func fixed(_ v: Double, _ places: Int) -> String { NumberText.fixed(v, places: places) }

    private func pad(_ s: String, _ width: Int, left: Bool = false) -> String {
        let fill = String(repeating: " ", count: max(0, width - s.count))
        return left ? s + fill : fill + s
    }
}
