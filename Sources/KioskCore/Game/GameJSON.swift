/// The JSON shapes of the command-line contract (`state`, `play`, `gestures`).
/// Scripts rely on these keys: extend, never rename.
public enum GameJSON {
    /// `bubble-kiosk state`: the layout of a round.
    public static func state(_ round: Round) -> JSON {
        var pairs: [(String, JSON)] = [
            ("width", .int(round.field.size.width)),
            ("height", .int(round.field.size.height)),
            ("px_per_mm", .rounded(round.field.pxPerMM, 4)),
            ("bubbles", .array(round.bubbles.map(bubbleLayout))),
        ]
        if let g = round.goal { pairs.append(("goal", goal(g))) }
        return .object(pairs)
    }

    /// The basket drag bubbles go into: top-left corner and size in px.
    static func goal(_ g: Rect) -> JSON {
        .object([("x", .rounded(g.x)), ("y", .rounded(g.y)), ("width", .rounded(g.width)), ("height", .rounded(g.height))])
    }

    static func bubbleLayout(_ b: Bubble) -> JSON {
        var pairs: [(String, JSON)] = [
            ("id", .int(b.id)),
            ("kind", .string(b.kindName)),
            ("x", .rounded(b.center.x)),
            ("y", .rounded(b.center.y)),
            ("diameter", .rounded(b.diameter)),
        ]
        switch b.kind {
        case .tap(let n): pairs.append(("taps", .int(n)))
        case .swipe(let angle): pairs.append(("angle_deg", .rounded(angle, 1)))
        case .drag: break
        }
        return .object(pairs)
    }

    /// `bubble-kiosk play`: the outcome of a replayed round.
    public static func outcome(_ round: Round) -> JSON {
        var pairs: [(String, JSON)] = [
            ("score", .int(round.score)),
            ("popped", .int(round.popped)),
            ("remaining", .int(round.remaining)),
            ("round_over", .bool(round.isOver)),
            ("combo_bonus", .int(round.comboBonus)),
            ("time_bonus", .int(round.timeBonus)),
            ("best_combo", .int(round.bestCombo)),
            ("bubbles", .array(round.bubbles.map { b in
                .object([
                    ("id", .int(b.id)),
                    ("popped", .bool(b.isPopped)),
                    ("taps_left", .int(b.tapsLeft)),
                    ("kind", .string(b.kindName)),
                ])
            })),
        ]
        if let g = round.goal { pairs.append(("goal", goal(g))) }
        if let play = round.joystick { pairs += joystickOutcome(play) }
        return .object(pairs)
    }

    /// The joystick mode's part of `play`: where the catcher ended, what it collected (bubble ids
    /// in order), and the joystick as it was left (knob offset and readout).
    static func joystickOutcome(_ play: JoystickPlay) -> [(String, JSON)] {
        [
            ("catcher", .object([("x", .rounded(play.catcher.x)), ("y", .rounded(play.catcher.y))])),
            ("collected", .array(play.collected.map { .int($0) })),
            ("joystick", .object([
                ("x", .rounded(play.stick.base.x)), ("y", .rounded(play.stick.base.y)),
                ("radius", .rounded(play.stick.radius)),
                ("knob_x", .rounded(play.stick.knob.x)), ("knob_y", .rounded(play.stick.knob.y)),
                ("angle_deg", .int(play.stick.readoutDegrees)), ("distance_px", .rounded(play.stick.distance, 1)),
            ])),
        ]
    }

    /// `bubble-kiosk gestures`: one gesture, time relative to `origin`.
    public static func gesture(_ g: Gesture, origin: TimeStamp) -> JSON {
        var pairs: [(String, JSON)] = [
            ("t_ms", .rounded((g.time - origin).inMilliseconds, 3)),
            ("slot", .int(g.slot)),
            ("kind", .string(g.kind.rawValue)),
            ("x", .rounded(g.position.x)),
            ("y", .rounded(g.position.y)),
        ]
        if g.device != 0 { pairs.append(("device", .int(g.device))) }
        switch g.kind {
        case .tap:
            pairs.append(("count", .int(g.count)))
        case .swipe:
            pairs.append(("angle_deg", .rounded(g.angleDegrees, 1)))
            pairs.append(("distance_px", .rounded(g.distance, 1)))
            pairs.append(("velocity_px_s", .rounded(g.speed, 1)))
            pairs += [("start_x", .rounded(g.start.x)), ("start_y", .rounded(g.start.y))]
        case .dragStart, .dragMove, .dragEnd:
            pairs += [("start_x", .rounded(g.start.x)), ("start_y", .rounded(g.start.y))]
        case .longPress, .cancel:
            break
        }
        return .object(pairs)
    }
}
