extension RoundRecording {
    /// The recording text for a joystick round: the Start (or Joystick) button, then one finger
    /// pushes the knob towards each bubble in turn (`limit` caps how many), aiming where the
    /// bubble will have drifted to, and holds it as long as the catcher needs to get there at 80%
    /// of full speed. The catcher collects whatever it meets on the way.
    public func text(steering round: Round, limit: Int? = nil) -> String {
        var builder = RecordingBuilder(screen: transform.native)
        var t = start
        if let button = startButton {
            builder.tap(at: transform.panelPosition(ofGame: button), start: t)
            t += .milliseconds(700)
        }
        guard let play = round.joystick else { return builder.text() }
        // The round starts with the tap's lift (or with the recording's first event).
        let roundStart = startButton == nil ? t : start + .milliseconds(60)
        let base = play.stick.base
        let speed = round.field.px(round.settings.joystick.maxSpeedMMPerS) * 0.8
        var catcher = play.catcher
        let live = round.bubbles.filter { !$0.isPopped }
        for b in live.prefix(limit ?? live.count) {
            // Where the bubble will be when the catcher arrives (drift without bounces; twice
            // refined), kept inside the field.
            var aim = b.center
            let v = round.driftVelocity(of: b.id)
            for _ in 0..<3 {
                let arrive = (t - roundStart).inSeconds + 0.12 + catcher.distance(to: aim) / speed
                aim = b.center + v * arrive
                let a = round.field.area
                aim = Vector2(min(max(aim.x, a.x + b.radius), a.maxX - b.radius),
                              min(max(aim.y, a.y + b.radius), a.maxY - b.radius))
            }
            let d = aim - catcher
            guard d.length > 1 else { continue }
            let hold = Duration.milliseconds(min(6000, d.length / speed * 1000))
            let knob = base + d * (play.stick.radius * 0.8 / d.length)
            builder.drag(from: transform.panelPosition(ofGame: base), to: transform.panelPosition(ofGame: knob),
                         start: t, duration: .milliseconds(120), pause: hold)
            catcher = aim
            t += .milliseconds(120) + hold + .milliseconds(300)
        }
        return builder.text()
    }
}
