import KioskCore
import KioskPlatform
import KioskRender
import KioskRuntime

/// Runs every case of the benchmark in a fixed order and gathers the figures. The frames are the
/// kiosk's own: its attract demo (`startDemo` at once) on a virtual kiosk, one 60th of a second of
/// virtual time a frame, each scene built by the runtime's scene builder and drawn by its renderer.
struct Benchmark {
    static let frame = Duration.seconds(1) / 60

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
        kiosk.runtime.logger = .discard
    }

    /// The demo one frame on: what the kiosk draws then.
    private func nextScene() -> Scene {
        kiosk.advance(by: Self.frame)
        return kiosk.scene()
    }

    /// - Parameter renderOnly: only the renderer's cases and the memcpy and plain compositor
    ///   yardsticks (for `make bench-instructions`: the rest is slow under callgrind).
    func run(pngPath: String?, renderOnly: Bool = false) throws -> BenchReport {
        var report = BenchReport(size: size, bubbles: bubbles, frames: frames)
        try kiosk.runtime.start()
        let renderer = kiosk.renderer

        // The yardstick first: its destination buffer is freed before sprites are made,
        // so the peak RSS is that of the renderer, not of the renderer plus a spare frame.
        let destination = UnsafeMutableRawPointer.allocate(byteCount: renderer.frame.byteCount, alignment: 64)
        // Both buffers' pages faulted in before timing: the frame's come from the system
        // untouched, and reading those would read one shared page of zeros, all in the cache.
        renderer.frame.fill(.kioskBackground)
        renderer.frame.copyAll(to: destination)
        report.memcpy = Self.measure(frames) { _ in Self.memcpyFrame(renderer.frame, destination) }
        destination.deallocate()

        // Warm up (sprites for the scene get rendered) past the demo's lead-in, until its ghost
        // finger moves; then the steady animation.
        for _ in 0..<90 { renderer.render(nextScene()) }
        let spritesBefore = renderer.spritesRendered
        var damageBytes = 0, damageRects = 0
        var damages: [[PixelRect]] = []
        report.animated = Self.measure(frames) { timer in
            let scene = nextScene()
            timer.start()
            Self.animatedFrame(renderer, scene, into: &damages)
            timer.stop()
            let damage = damages[damages.count - 1]
            damageRects += damage.count
            damageBytes += damage.reduce(0) { $0 + $1.area } * 4
        }
        report.damageBytesPerFrame = Double(damageBytes) / Double(frames)
        report.damageRectsPerFrame = Double(damageRects) / Double(frames)
        report.spritesRenderedPerFrame = Double(renderer.spritesRendered - spritesBefore) / Double(frames)
        if !renderOnly {
            (report.mirrorFull, report.mirrorAnimated) = Self.mirror(renderer.frame.buffer, onto: BenchReport.mirrorSize,
                                                                     damages: damages)
        }

        // The plain sprite compositor (a yardstick: the scene's bubbles from the renderer's own
        // sprites over a background painted whole) on the very same scenes, each right before or
        // after the full redraw, in turn, so neither always finds the frame fresh in the cache
        // from the other. Each draws over the whole frame.
        let plain = PlainCompositor(sharing: renderer)
        var plainTimes: [Double] = []
        var last: Scene?
        func timePlain(_ scene: Scene) {
            var plainTimer = CPUTimer()
            plainTimer.start()
            Self.plainComposite(plain, scene)
            plainTimer.stop()
            plainTimes.append(plainTimer.elapsedMS)
        }
        report.fullRedraw = Self.measure(frames) { timer in
            let scene = nextScene()
            plain.prepare(scene)
            let plainFirst = plainTimes.count % 2 == 1
            if plainFirst { timePlain(scene) }
            renderer.invalidate()
            timer.start()
            Self.fullRedraw(renderer, scene)
            timer.stop()
            if !plainFirst { timePlain(scene) }
            last = scene
        }
        report.plainCompositor = Timing(plainTimes)
        if let last {  // the picture of the last full redraw again, for --png
            renderer.invalidate()
            renderer.render(last)
            // The renderer's own, without the plain compositor's sprites in the same frame.
            report.spriteBytesFullRedraw = renderer.spriteBytesLastFrame
        }
        if let pngPath {
            do { try OutputFile.write(pngPath, PNGWriter.pngBytes(renderer.frame)) } catch {
                Console.errorLine("bubble-kiosk bench: \(error)")
            }
        }

        let still = nextScene()
        renderer.render(still)
        var idleDamage = 0
        report.idle = Self.measure(frames) { timer in
            timer.start()
            let rects = Self.idleFrame(renderer, still)
            timer.stop()
            idleDamage += rects
        }
        report.idleDamageRects = idleDamage
        report.sprites = renderer.spriteCount
        report.spriteBytes = renderer.spriteBytes
        report.spriteBudgetBytes = renderer.spriteBudgetBytes
        report.spritesDropped = renderer.spritesDropped

        if renderOnly {
            kiosk.runtime.finish()
            report.peakRSSMB = ProcessMemory.peakResidentMegabytes()
            return report
        }
        // Last, because it draws over the renderer's frame.
        let naive = NaiveRenderer(frame: renderer.frame)
        report.naive = Self.measure(frames) { timer in
            let scene = nextScene()
            timer.start()
            Self.naiveRedraw(naive, scene)
            timer.stop()
        }
        kiosk.runtime.finish()
        report.peakRSSMB = ProcessMemory.peakResidentMegabytes()
        // After the RSS reading: it needs a renderer and a display of its own.
        report.inputLatency = try InputLatencyBench.measure(size: size, frames: frames, seed: 1)
        report.touchTest = TouchTestBench.measure(size: size, frames: frames)
        return report
    }

    // One function per timed case, never inlined, so a profiler (callgrind on a copy stripped
    // of its DWARF only: `strip -g`) can count each case's instructions by its name.
    @inline(never) static func fullRedraw(_ r: SceneRenderer, _ s: Scene) { r.render(s) }
    // (Bodies differ, so the optimiser cannot merge them into one.)
    @inline(never) static func animatedFrame(_ r: SceneRenderer, _ s: Scene, into damages: inout [[PixelRect]]) {
        damages.append(r.render(s))
    }
    @inline(never) static func idleFrame(_ r: SceneRenderer, _ s: Scene) -> Int { r.render(s).count }
    @inline(never) static func memcpyFrame(_ f: Frame, _ d: UnsafeMutableRawPointer) { f.copyAll(to: d) }
    @inline(never) static func plainComposite(_ p: PlainCompositor, _ s: Scene) { p.render(s) }
    @inline(never) static func naiveRedraw(_ r: NaiveRenderer, _ s: Scene) { r.render(s) }

    /// A mirrored screen's copy (`[display] outputs = all`): the whole picture, and the animated
    /// frames' damage, scaled onto a screen of `target` (the picture stays the last one drawn:
    /// the cost depends on the area, not on what it shows).
    private static func mirror(_ picture: PixelBuffer, onto target: PixelSize, damages: [[PixelRect]]) -> (Timing, Timing) {
        let fit = MirrorFit(source: picture.size, target: target)
        let screen = PixelBuffer(size: target)
        let full = measure(damages.count) { _ in
            MirrorScaler.paint(picture, [picture.bounds], fit: fit, into: screen.pixels, destinationStride: screen.stride)
        }
        var frame = 0
        let animated = measure(damages.count) { _ in
            MirrorScaler.paint(picture, damages[frame], fit: fit, into: screen.pixels, destinationStride: screen.stride)
            frame += 1
        }
        return (full, animated)
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
}
