import KioskCore
import KioskLayers
import KioskPlatform

/// Keeps the touch heatmap in the play statistics: the runtime's map of the touch-downs of play
/// since start (`KioskSnapshot.touchHeatmap`, not the touch-test screen's) is handed to the score
/// writer in batches, what it counted since the last one, a minute after the first touch of a
/// batch and at exit, never a write per touch. The timer is armed only while a batch waits, so
/// an idle kiosk does not wake for it. Part of the score layer (`ScoreKeeper`).
final class TouchRecorder {
    static let batch = Duration.seconds(60)

    private unowned let host: LayerHost
    private let writer: ScoreWriter
    /// The runtime's map as of the last batch.
    private var posted = TouchHeatmap()
    /// The local day the waiting batch's first touch came on.
    private var pendingSince: LocalDay?
    private let timer: EventLoop.TimerID

    init(host: LayerHost, writer: ScoreWriter) {
        self.host = host
        self.writer = writer
        timer = host.loop.addTimer("touch-heatmap")
        host.loop.onFire(timer) { [unowned self] _ in flush() }
    }

    func follow(_ event: KioskEvent, at time: TimeStamp) {
        // The runtime counted the frame's touch-downs before telling of it.
        guard case .touch = event, pendingSince == nil, host.snapshot.touchHeatmap != posted else { return }
        pendingSince = host.wallClock.local(at: time).day
        host.loop.arm(timer, at: time + Self.batch)
    }

    /// Posts the batch waiting (filed under the day its first touch came on).
    func flush() {
        guard let day = pendingSince else { return }
        let now = host.snapshot.touchHeatmap
        writer.post(.touches(now.counted(since: posted), day: day))
        posted = now
        pendingSince = nil
        host.loop.arm(timer, at: nil)
    }
}
