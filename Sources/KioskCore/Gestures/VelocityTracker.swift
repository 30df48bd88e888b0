/// Estimates a contact's velocity from its recent samples.
///
/// A least-squares line through the samples of the last window (about 100 ms), not the last two
/// points: evdev positions jitter by a pixel or two, and two close samples turn that into
/// absurd speeds.
public struct VelocityTracker: Sendable {
    private var samples: [(time: TimeStamp, position: Vector2)] = []
    private let window: Duration
    /// A finger that sent no move for this long before lifting had stopped (Flutter uses 40 ms).
    private let stoppedAfter = Duration.milliseconds(40)

    public init(window: Duration) {
        self.window = window
    }

    public mutating func add(_ position: Vector2, at time: TimeStamp) {
        samples.append((time, position))
        // Keep memory bounded: drop what falls out of the window.
        let cutoff = time - window
        if let firstKept = samples.firstIndex(where: { $0.time >= cutoff }), firstKept > 0 {
            samples.removeFirst(firstKept)
        }
    }

    /// Velocity in px/s as of `now` (usually the lift time).
    public func velocity(at now: TimeStamp) -> Vector2 {
        guard let last = samples.last, now - last.time <= stoppedAfter else { return .zero }
        let cutoff = now - window
        let recent = samples.filter { $0.time >= cutoff }
        guard recent.count >= 2 else { return .zero }
        // Fit position = a + v * t with t in seconds relative to the newest sample.
        let n = Double(recent.count)
        var st = 0.0, stt = 0.0
        var sp = Vector2.zero, stp = Vector2.zero
        for s in recent {
            let t = Double(s.time.microseconds - last.time.microseconds) / 1_000_000
            st += t
            stt += t * t
            sp += s.position
            stp += t * s.position
        }
        let denominator = n * stt - st * st
        guard denominator > 1e-12 else { return .zero }
        return (n * stp - st * sp) / denominator
    }
}
