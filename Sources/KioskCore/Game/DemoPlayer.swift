/// The attract mode's ghost fingers: touch frames that pop a round's bubbles by themselves,
/// fed through the same gesture recogniser as real fingers.
public struct DemoPlayer: Sendable {
    /// The device index demo frames carry, apart from any real device.
    public static let device = -1

    private struct Stroke {
        var start: TimeStamp
        var durationMS: Double
        var from: Vector2
        var to: Vector2
        var trackingID: Int

        var end: TimeStamp { start.adding(milliseconds: durationMS) }

        func position(at t: TimeStamp) -> Vector2 {
            let f = max(0, min(1, t.milliseconds(since: start) / max(1, durationMS)))
            let eased = 1 - (1 - f) * (1 - f)  // ease-out: a flick slows down
            return from + (to - from) * eased
        }
    }

    private var strokes: [Stroke] = []
    private var next = 0
    private var lastFrame: TimeStamp
    /// Frame interval while a ghost finger is down (60 Hz, like a real panel).
    private let stepMS = 1000.0 / 60

    /// Plans strokes for every live bubble of `round`, starting shortly after `time`.
    public init(round: Round, at time: TimeStamp) {
        lastFrame = time
        var t = time.adding(milliseconds: 1200)
        var id = 1
        let swipeLength = round.field.px(25)
        for b in round.bubbles where !b.isPopped {
            for (from, to) in b.poppingStrokes(swipeLength: swipeLength, goal: round.goal) {
                let isTap = from == to
                let isDrag = b.kind == .drag  // carried to the basket, not flicked
                strokes.append(Stroke(start: t, durationMS: isTap ? 90 : isDrag ? 600 : 120, from: from, to: to,
                                      trackingID: id))
                id += 1
                if isTap { t = t.adding(milliseconds: 260) }
            }
            t = t.adding(milliseconds: 700)
        }
    }

    public var isFinished: Bool { next >= strokes.count }

    /// When the next ghost frame is due.
    public var nextDeadline: TimeStamp? {
        guard next < strokes.count else { return nil }
        let s = strokes[next]
        if lastFrame < s.start { return s.start }
        return min(s.end, lastFrame.adding(milliseconds: stepMS))
    }

    /// Ghost frames due by `time`, in order: one finger at a time, 60 frames a second.
    public mutating func frames(upTo time: TimeStamp) -> [TouchFrame] {
        var out: [TouchFrame] = []
        while let due = nextDeadline, due <= time {
            let s = strokes[next]
            lastFrame = due
            if due >= s.end {
                out.append(TouchFrame(time: due, device: Self.device, contacts: [
                    TouchPoint(slot: 0, trackingID: s.trackingID, position: s.to),
                ]))
                // The lift, in the same instant: an empty frame.
                out.append(TouchFrame(time: due, device: Self.device, contacts: []))
                next += 1
            } else {
                out.append(TouchFrame(time: due, device: Self.device, contacts: [
                    TouchPoint(slot: 0, trackingID: s.trackingID, position: s.position(at: due)),
                ]))
            }
        }
        return out
    }
}
