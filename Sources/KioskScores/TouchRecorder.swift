import KioskCore
import KioskPlatform
import KioskRuntime

/// Keeps the touch heatmap in the play statistics: the touch-downs of play (not the touch-test
/// screen's) are counted per cell on the loop's thread and handed to the score writer in
/// batches, a minute after the first touch of a batch and at exit, never a write per touch.
/// The timer is armed only while a batch waits, so an idle kiosk does not wake for it.
final class TouchRecorder {
    static let batchMS = 60_000.0

    private let runtime: KioskRuntime
    private let writer: ScoreWriter
    private let wallClock: () -> Int64
    private var downs = TouchDownTracker()
    private var pending = TouchHeatmap()
    private var pendingSince: Int64?
    private var timer: EventLoop.TimerID!

    init(runtime: KioskRuntime, writer: ScoreWriter, wallClock: @escaping () -> Int64) {
        self.runtime = runtime
        self.writer = writer
        self.wallClock = wallClock
        timer = runtime.loop.addTimer("touch-heatmap") { [unowned self] _ in flush() }
    }

    /// Follows `runtime`'s touch frames; flushes at exit, before the writer stops (attach it
    /// before the writer's exit observer).
    static func attach(to runtime: KioskRuntime, writer: ScoreWriter, wallClock: @escaping () -> Int64) {
        let recorder = TouchRecorder(runtime: runtime, writer: writer, wallClock: wallClock)
        runtime.observe { [recorder] event, time in recorder.follow(event, at: time) }
        runtime.observeExit { [recorder] in recorder.flush() }
    }

    func follow(_ event: KioskEvent, at time: TimeStamp) {
        switch event {
        case .touch(let frame):
            var counted = false
            for p in downs.newContacts(in: frame) where pending.add(p.position, in: runtime.display.size) { counted = true }
            if counted && pendingSince == nil {
                pendingSince = wallClock()
                runtime.loop.arm(timer, at: time.adding(milliseconds: Self.batchMS))
            }
        case .touchscreenLost(let device, _):
            downs.forget(device: device)
        default:
            break
        }
    }

    /// Posts the batch waiting (filed under the day its first touch came on).
    func flush() {
        guard let since = pendingSince else { return }
        writer.post(.touches(pending, wallMS: since))
        pending = TouchHeatmap()
        pendingSince = nil
        runtime.loop.arm(timer, at: nil)
    }
}
