import KioskCore
import KioskPlatform

/// `bubble-kiosk bench`: renders the kiosk's own attract demo (on a virtual kiosk) and reports CPU
/// time per frame for a full redraw, a steady animated frame and an idle frame, next to two yardsticks measured in the same
/// run: one full-frame memcpy and the naive draw-everything-with-paths renderer.
struct BenchCommand: KioskCommand {
    static let name = "bench"
    static let usage = """
        usage: bubble-kiosk bench [--size WxH] [--bubbles N] [--frames N] [--seed N] [--json] [--png FILE]
                                  [--sound-device DEVICE] [--render-only]

        First, the kiosk started from nothing on a virtual display of that size: the wall time to
        its first frame, and its start screen left alone for 10 virtual minutes (frames and
        wake-ups a minute). Then plays the kiosk's attract demo on a virtual kiosk (default 1920x1080, a demo round of 40
        bubbles, 300 frames a case, seed 1), draws its frames with the kiosk's renderer on this
        thread and prints median and 95th-percentile CPU milliseconds per frame for: a full redraw,
        an animated frame (the ghost finger popping bubbles, sparks flying), an idle frame,
        the naive cairo renderer, the plain sprite compositor (the bubbles from cached sprites with
        plain cairo calls), one full-frame memcpy, and a frame of the touch-test screen with
        two fingers moving; plus damage bytes per frame, the sprite cache against its budget and peak RSS. --json prints one JSON object; --png saves the rendered scene. Then 40 pops
        through the sound thread and ALSA DEVICE (default null: no card needed; use the kiosk's
        [sounds] device on a kiosk): event to first sample written, the device's delay, and both.
        Last, a recorded round through the runtime twice, bare and with sounds, hooks, score
        writes and metrics: the render-and-present time of its frames, to show the layers stay
        off the frame path. Then fleet control fed floods of bad MQTT commands: the CPU time
        of each batch of 1,000, beside a frame's memcpy. --render-only stops after the renderer's
        cases, the memcpy and the plain compositor (what `make bench-instructions` counts).
        Targets depend on the case: a panel up to 1280x800, 4K, 400 bubbles, or the default.
        """

    static func run(_ args: ArraySlice<String>) throws -> Int32 {
        let a = try Arguments(args, valued: ["size", "bubbles", "frames", "seed", "png", "sound-device"], flags: ["json", "render-only"])
        guard a.positionals.isEmpty else { throw UsageError("unexpected argument '\(echoed(a.positionals[0]))'") }
        let size = try a.size() ?? PixelSize(width: 1920, height: 1080)
        let bubbles = try a.int("bubbles", default: 40, range: 1...400)
        let frames = try a.int("frames", default: 300, range: 1...100_000)
        let seed = try a.seed() ?? 1
        // First, while fonts and cairo are cold, as when a kiosk starts.
        let startup = try StartupBench.measure(size: size, seed: seed)
        let bench = try Benchmark(size: size, bubbles: bubbles, frames: frames, seed: seed)
        let renderOnly = a.has("render-only")
        var report = try bench.run(pngPath: a.value("png"), renderOnly: renderOnly)
        report.renderOnly = renderOnly
        report.startup = startup
        if !renderOnly {
            report.sound = try SoundLatencyBench.measure(device: a.value("sound-device") ?? "null")
            report.layers = try LayerLoadBench.measure(size: size, seed: seed)
            report.fleetFlood = try FleetFloodBench.measure(size: size, seed: seed)
        }
        Console.out(a.has("json") ? report.json.text + "\n" : report.table)
        return 0
    }
}
