import KioskCore
import KioskPlatform
import KioskRuntime

/// Keeps the touch heatmap in the play statistics: the runtime's map of the touch-downs of play
/// since start (not the touch-test screen's, `KioskRuntime.touchHeatmap`) is handed to the score
/// writer in batches, what it counted since the last one, a minute after the first touch of a
/// batch and at exit, never a write per touch. The timer is armed only while a batch waits, so
/// an idle kiosk does not wake for it.
final class TouchRecorder {
    static let batchMS = 60_000.0

    private let runtime: KioskRuntime
    private let writer: ScoreWriter
    private let wallClock: () -> Int64
    /// The runtime's map as of the last batch.
    private var posted = TouchHeatmap()
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
        // The runtime counted the frame's touch-downs before telling of it.
        guard case .touch = event, pendingSince == nil, runtime.touchHeatmap != posted else { return }
        pendingSince = wallClock()
        runtime.loop.arm(timer, at: time.adding(milliseconds: Self.batchMS))
    }

    /// Posts the batch waiting (filed under the day its first touch came on).
    func flush() {
        guard let since = pendingSince else { return }
        let now = runtime.touchHeatmap
        writer.post(.touches(now.counted(since: posted), wallMS: since))
        posted = now
        pendingSince = nil
        runtime.loop.arm(timer, at: nil)
    }
}
