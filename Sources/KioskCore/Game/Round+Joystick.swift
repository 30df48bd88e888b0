/// The joystick mode's state within a round: the joystick, the catcher it steers, the bubbles'
/// drift and what the catcher collected.
public struct JoystickPlay: Equatable, Sendable {
    public var stick: Joystick
    /// Centre of the catcher.
    public var catcher: Vector2
    public var catcherRadius: Double
    /// Ids of the bubbles the catcher collected, in order (a second finger's pops are not here).
    public var collected: [Int] = []
    /// Drift velocity of each bubble, px/s, by id.
    var drift: [Int: Vector2] = [:]
    /// Time is integrated in fixed steps from here, so a replay moves the same on every machine
    /// however its events fall.
    var lastTick: TimeStamp
    var nextSpawn: TimeStamp

    /// Simulation steps a second, like the display's frames.
    static let stepsPerSecond = 60.0
    /// One simulation step.
    static let step = Duration.seconds(1) / 60
}

extension Round {
    /// Length of a round with a countdown (timed and joystick).
    var countdown: Duration { mode == .joystick ? settings.joystick.duration : settings.timed.duration }

    /// Sets up the joystick and catcher at the start of a joystick round: the base at the lower
    /// left, the catcher in the middle of the field.
    mutating func startJoystick(at time: TimeStamp) {
        let j = settings.joystick
        let r = field.px(j.baseRadiusMM)
        let area = field.area
        let bounds = Rect(x: r, y: area.y + r, width: max(0, Double(field.size.width) - 2 * r),
                          height: max(0, Double(field.size.height) - area.y - 2 * r))
        let base = Vector2(min(bounds.maxX, max(bounds.x, area.x + r + field.px(6))),
                           max(bounds.y, min(bounds.maxY, area.maxY - r - field.px(6))))
        var play = JoystickPlay(stick: Joystick(base: base, radius: r, bounds: bounds),
                                catcher: area.center, catcherRadius: field.px(j.catcherMM) / 2,
                                lastTick: time, nextSpawn: time + j.spawnInterval)
        for b in bubbles { play.drift[b.id] = driftVelocity(of: b.id) }
        joystick = play
    }

    /// Each bubble drifts its own way: a direction and speed from its id (golden-angle spaced).
    func driftVelocity(of id: Int) -> Vector2 {
        let degrees = Double((id * 137 + 23) % 360)
        let speed = field.px(settings.joystick.driftMMPerS) * (0.6 + 0.4 * Double((id * 7) % 5) / 4)
        return Angle.unitVector(degrees: degrees) * speed
    }

    /// Drags steer the knob or move the base; a lift snaps the knob back. Other gestures (a
    /// second finger's taps and swipes) play by the usual rules: nil hands them back.
    mutating func handleJoystick(_ gesture: Gesture) -> [GameEvent]? {
        guard var play = joystick else { return nil }
        let finger = Joystick.Finger(device: gesture.device, slot: gesture.slot)
        let margin = field.px(settings.game.hitMarginMM)
        switch gesture.kind {
        case .dragStart:
            switch play.stick.part(at: gesture.start, margin: margin) {
            case .knob: play.stick.grabKnob(finger, at: gesture.position)
            case .base: play.stick.grabBase(finger, at: gesture.start); play.stick.moveBase(to: gesture.position)
            case nil: break
            }
        case .dragMove:
            if play.stick.steering == finger { play.stick.steer(to: gesture.position) }
            if play.stick.moving == finger { play.stick.moveBase(to: gesture.position) }
        case .dragEnd, .cancel:
            play.stick.release(finger)
        case .swipe:
            // A quick flick of the knob ends like a drag; other swipes may pop swipe bubbles.
            guard play.stick.release(finger) else { return nil }
        case .tap, .longPress:
            // A tap on the joystick is no miss; elsewhere it plays.
            return gesture.position.distance(to: play.stick.base) <= play.stick.radius ? [] : nil
        }
        joystick = play
        return []
    }

    /// Moves the catcher and the bubbles in fixed steps up to `time`, collects what the catcher
    /// touches, lets new bubbles in, and ends the round at the countdown.
    mutating func advanceJoystick(to time: TimeStamp) -> [GameEvent] {
        guard !isOver, var play = joystick else { return [] }
        var events: [GameEvent] = []
        let end = startTime + countdown
        let limit = min(time, end)
        let dt = 1 / JoystickPlay.stepsPerSecond
        let speed = field.px(settings.joystick.maxSpeedMMPerS)
        let area = field.area
        while play.lastTick + JoystickPlay.step <= limit {
            let now = play.lastTick + JoystickPlay.step
            play.lastTick = now
            // The catcher: speed follows the knob's deflection, direction its offset.
            let offset = play.stick.offset
            if offset.length > 0 {
                let v = offset * (1 / offset.length) * (speed * play.stick.deflection)
                let r = play.catcherRadius
                let c = play.catcher + v * dt
                play.catcher = Vector2(min(max(c.x, area.x + r), area.maxX - r), min(max(c.y, area.y + r), area.maxY - r))
            }
            // Bubbles drift and bounce off the field's edges.
            for i in bubbles.indices where !bubbles[i].isPopped {
                var v = play.drift[bubbles[i].id] ?? .zero
                var c = bubbles[i].center + v * dt
                let r = bubbles[i].radius
                if c.x < area.x + r { c.x = area.x + r; v.x = abs(v.x) }
                if c.x > area.maxX - r { c.x = area.maxX - r; v.x = -abs(v.x) }
                if c.y < area.y + r { c.y = area.y + r; v.y = abs(v.y) }
                if c.y > area.maxY - r { c.y = area.maxY - r; v.y = -abs(v.y) }
                bubbles[i].center = c
                play.drift[bubbles[i].id] = v
            }
            // Collect what the catcher touches, nearest first.
            let hits = bubbles.indices.filter {
                !bubbles[$0].isPopped && bubbles[$0].center.distance(to: play.catcher) <= bubbles[$0].radius + play.catcherRadius
            }.sorted { bubbles[$0].center.distance(to: play.catcher) < bubbles[$1].center.distance(to: play.catcher) }
            for i in hits {
                play.collected.append(bubbles[i].id)
                events.append(pop(i, points: catchPoints(bubbles[i]), at: now))
            }
            // New bubbles.
            while play.nextSpawn <= now {
                if remaining < settings.joystick.maxBubbles, let id = spawn(at: play.nextSpawn) {
                    play.drift[id] = driftVelocity(of: id)
                    events.append(.spawned(bubble: id))
                }
                play.nextSpawn = play.nextSpawn + max(.milliseconds(50), settings.joystick.spawnInterval)
            }
        }
        joystick = play
        if time >= end { events.append(finish(at: end)) }
        return events
    }

    /// A caught bubble is worth what popping it by hand is.
    func catchPoints(_ b: Bubble) -> Int {
        if case .tap(let required) = b.kind { return settings.score.tapBubble * required }
        if case .swipe = b.kind { return settings.score.swipeBubble }
        return settings.score.tapBubble
    }

    /// The next simulation step.
    var joystickDeadline: TimeStamp? {
        guard !isOver, let play = joystick else { return nil }
        return min(play.lastTick + JoystickPlay.step, startTime + countdown)
    }
}
