/// The attract mode's ghost fingers: touch frames that pop a round's bubbles by themselves,
/// fed through the same gesture recogniser as real fingers.
public struct DemoPlayer: Sendable {
    /// The device index demo frames carry, apart from any real device.
    public static let device = -1

    private struct Stroke {
        var start: TimeStamp
        var duration: Duration
        var from: Vector2
        var to: Vector2
        var trackingID: Int
        /// How long the finger stays at `to` before it lifts (the joystick demo holds the knob).
        var hold = Duration.zero

        var end: TimeStamp { start + (duration + hold) }

        func position(at t: TimeStamp) -> Vector2 {
            let f = max(0, min(1, (t - start) / max(.milliseconds(1), duration)))
            let eased = 1 - (1 - f) * (1 - f)  // ease-out: a flick slows down
            return from + (to - from) * eased
        }
    }

    private var strokes: [Stroke] = []
    private var next = 0
    private var lastFrame: TimeStamp
    /// Frame interval while a ghost finger is down (60 Hz, like a real panel).
    private let step = Duration.seconds(1) / 60

    /// Plans strokes for every live bubble of `round`, starting shortly after `time`.
    public init(round: Round, at time: TimeStamp) {
        lastFrame = time
        var t = time + .milliseconds(1200)
        var id = 1
        if let play = round.joystick {
            strokes = Self.steering(play, round: round, from: t)
            return
        }
        let swipeLength = round.field.px(25)
        for b in round.bubbles where !b.isPopped {
            for (from, to) in b.poppingStrokes(swipeLength: swipeLength, goal: round.goal) {
                let isTap = from == to
                let isDrag = b.kind == .drag  // carried to the basket, not flicked
                strokes.append(Stroke(start: t, duration: .milliseconds(isTap ? 90 : isDrag ? 600 : 120), from: from, to: to,
                                      trackingID: id))
                id += 1
                if isTap { t = t + .milliseconds(260) }
            }
            t = t + .milliseconds(700)
        }
    }

    /// The joystick demo: the ghost finger pushes the knob towards one bubble after another
    /// (where each was when the round began), holds it a while, lets go, until the countdown ends.
    private static func steering(_ play: JoystickPlay, round: Round, from start: TimeStamp) -> [Stroke] {
        var out: [Stroke] = []
        let end = round.startTime + round.countdown
        let base = play.stick.base
        var catcher = play.catcher
        let speed = round.field.px(round.settings.joystick.maxSpeedMMPerS) * 0.8
        var t = start
        var id = 1
        var targets = round.bubbles.filter { !$0.isPopped }.map(\.center)
        if targets.isEmpty { targets = [round.field.area.center] }
        var k = 0
        while t < end {
            let goal = targets[k % targets.count]
            k += 1
            let d = goal - catcher
            guard d.length > 1 else { t = t + .milliseconds(500); continue }
            let dir = d * (1 / d.length)
            // Knob at 80% out; held as long as the catcher needs to get there.
            let hold = Duration.milliseconds(min(4000, max(300, d.length / speed * 1000)))
            out.append(Stroke(start: t, duration: .milliseconds(150), from: base, to: base + dir * (play.stick.radius * 0.8),
                              trackingID: id, hold: hold))
            catcher = goal
            id += 1
            t = t + (.milliseconds(150) + hold + .milliseconds(500))
        }
        return out
    }

    public var isFinished: Bool { next >= strokes.count }

    /// When the next ghost frame is due.
    public var nextDeadline: TimeStamp? {
        guard next < strokes.count else { return nil }
        let s = strokes[next]
        if lastFrame < s.start { return s.start }
        return min(s.end, lastFrame + step)
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
