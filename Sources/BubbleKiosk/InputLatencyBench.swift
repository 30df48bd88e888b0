import KioskCore
import KioskPlatform
import KioskRuntime

/// Input-to-screen latency through the kiosk's own runtime: a touch frame stamped with the
/// monotonic clock goes through the session, the scene builder and the renderer into a virtual
/// display, and the time until the display reports it visible is one sample (the runtime's
/// own latency accounting, as `run --stats` prints it).
///
/// On DRM the page flip adds the wait for vblank on top; `run --stats` measures that end to end.
enum InputLatencyBench {
    static func measure(size: PixelSize, frames: Int, seed: UInt64) throws -> Timing {
        var settings = Settings()
        settings.attract.demo = false
        var options = KioskRuntime.Options()
        options.seed = seed
        // Unpaced: each sample is drawn at once, so the figure is the kiosk's own work.
        options.frameInterval = .zero
        // Wall time: the monotonic clock stamps the touches and the display's "visible".
        let kiosk = try VirtualKiosk(settings: settings, size: size, clock: MonotonicClock.shared, options: options)
        let runtime = kiosk.runtime, input = kiosk.input
        runtime.logger = .discard
        try runtime.start()
        // Tap Start, so the samples are taken mid-round.
        let start = (runtime.session.game.button(for: .classic) ?? runtime.session.game.button).center
        for contacts in [[TouchPoint(slot: 0, trackingID: 1, position: start)], []] {
            input.push(TouchFrame(time: EventLoop.now(), contacts: contacts))
            runtime.step()
        }
        let center = Vector2(Double(size.width) / 2, Double(size.height) / 2)
        let before = runtime.latencies.samples.count
        for i in 0..<frames {
            // A finger circling the middle of the screen, one frame at a time.
            let p = center + Angle.unitVector(degrees: Double(i * 7)) * Double(min(size.width, size.height)) / 4
            input.push(TouchFrame(time: EventLoop.now(), contacts: [TouchPoint(slot: 0, trackingID: 2, position: p)]))
            runtime.step()
        }
        runtime.finish()
        let samples = runtime.latencies.samples
        return Timing(samples.suffix(max(0, min(frames, samples.count - before))).map(\.inMilliseconds))
    }
}
