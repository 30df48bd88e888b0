import KioskCore
import KioskPlatform
import KioskRender

/// Puts frames on the display: pacing (at most one a frame interval), damage (only what changed
/// is drawn), and the samples that say how well: render-and-present time and input-to-screen
/// latency. It owns the renderer; the runtime hands it the scene to show.
final class Presenter {
    let renderer: SceneRenderer
    /// Shortest time between frames (`Options.frameInterval`).
    private let frameInterval: Duration
    private(set) var frames = 0
    private var lastFrameAt: TimeStamp?
    /// The scene last presented, to tell whether a paced-out frame still has something to show.
    private var lastScene: Scene?
    private var failures = RateLimitedLog()
    /// The oldest input not yet drawn, and the input whose frame is on its way to the screen.
    private var unshownInput: TimeStamp?
    private var inFlightInput: TimeStamp?
    /// Input-to-screen latency in milliseconds, the latest 4096.
    private(set) var latencies = SampleRing(capacity: 4096)
    /// Milliseconds each presented frame took to render and present, the latest 4096. Real
    /// time (the monotonic clock) even on a virtual loop: it measures this machine's work.
    private(set) var frameTimes = SampleRing(capacity: 4096)
    /// Whether handed-over frames reach the screen (the watchdog's rule).
    private(set) var delivery = FrameDelivery()

    init(size: PixelSize, frameInterval: Duration) {
        renderer = SceneRenderer(size: size)
        self.frameInterval = frameInterval
    }

    /// What one attempt to show a scene came to.
    enum Outcome {
        /// On its way to the screen (`first`: the kiosk's first frame).
        case presented(first: Bool)
        /// Nothing changed since the last frame.
        case unchanged
        /// Too soon after the last frame: try again at this time.
        case paced(until: TimeStamp)
        /// The display went away (DRM master lost).
        case lost(DisplayError)
        /// The display failed otherwise; `report` when this failure should be logged (1st, 2nd,
        /// 4th... time). Drawn again whole at the next try.
        case failed(any Error, times: Int, report: Bool)
    }

    /// Input came in at `time`: its frame's latency counts from the oldest such input.
    func noteInput(at time: TimeStamp) {
        if unshownInput == nil { unshownInput = time }
    }

    /// Input that arrived while nothing could be shown never reached the screen: no latency
    /// sample for it.
    func forgetInputInFlight() {
        unshownInput = nil
        inFlightInput = nil
    }

    /// True once when handed-over frames stopped reaching the screen (the moment to say so).
    func noteStuck(at now: TimeStamp) -> Bool { delivery.shouldReport(at: now) }

    /// Nothing is drawn now, on purpose (asleep, switched away, no screen): no frame is owed.
    func idle() { delivery.idle() }

    /// The screen's contents are unknown (another program drew, the mode was set again, it
    /// slept): the next frame repaints all of it, at once.
    func repaintAll() {
        renderer.invalidate()
        lastScene = nil
        lastFrameAt = nil
    }

    /// The frame carrying the latest input became visible at `shownAt` (the kernel stamps page
    /// flips with CLOCK_MONOTONIC, like evdev events).
    func shown(at shownAt: TimeStamp) {
        delivery.shown()
        guard let input = inFlightInput else { return }
        inFlightInput = nil
        latencies.add(shownAt - input)
    }

    /// Renders `scene` and presents it on `display` if a frame is due.
    func present(_ scene: Scene, on display: Display, at now: TimeStamp) -> Outcome {
        // A millisecond early is on time: timers and flips do not land to the microsecond.
        let due = lastFrameAt.map { $0 + max(.zero, frameInterval - .milliseconds(1)) } ?? now
        guard now >= due else { return scene != lastScene ? .paced(until: due) : .unchanged }
        let renderStart = EventLoop.now()
        let damage = renderer.render(scene)
        guard !damage.isEmpty else { return .unchanged }
        do {
            inFlightInput = unshownInput ?? inFlightInput
            unshownInput = nil
            delivery.handedOver(at: now)
            try display.present(renderer.frame.buffer, damage: damage)
            frameTimes.add(EventLoop.now() - renderStart)
            frames += 1
            lastFrameAt = now
            lastScene = scene
            failures.reset()
            return .presented(first: frames == 1)
        } catch let error as DisplayError {
            return .lost(error)
        } catch {
            let report = failures.note()
            // What was drawn never reached the screen: draw it all again.
            renderer.invalidate()
            return .failed(error, times: failures.count, report: report)
        }
    }
}
