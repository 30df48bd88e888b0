/// Builds what the screen shows for a kiosk session at a moment: the start screen, the round
/// with its heads-up bar, the round-over screen, finger markers, and pop effects in flight.
///
/// Effects are driven by `GameEvent`s and drawn from a generator seeded with the game's seed,
/// so a replay shows the same sparks.
public struct SceneBuilder: Sendable {
    public let field: PlayField
    /// High scores for the start and round-over screens (from the score store; empty: none shown).
    public var scores = ScoreBoard()
    private var pops: [(bubble: Bubble, animation: PopAnimation)] = []
    private var sprays: [ParticleSpray] = []
    private var nextSprayID = 0
    private var rng: SeededGenerator

    public init(field: PlayField, seed: UInt64) {
        self.field = field
        rng = SeededGenerator(seed: seed ^ 0x5350_5241_5953)  // a stream of its own, apart from layout
    }

    /// Starts the effects for what just happened.
    public mutating func note(_ events: [GameEvent], round: Round?, at time: TimeStamp) {
        for event in events {
            switch event {
            case .popped(let id, _):
                guard let b = round?.bubbles.first(where: { $0.id == id }) else { continue }
                pops.append((b, PopAnimation(start: time)))
                sprays.append(ParticleSpray(id: nextSprayID, origin: b.center, color: .bubble(b.colorIndex),
                                            start: time, generator: &rng, pxPerMM: field.pxPerMM,
                                            startRadius: b.radius * 0.8))
                nextSprayID += 1
            case .roundStarted, .idleReturn, .roundAbandoned:
                pops.removeAll()
                sprays.removeAll()
            default:
                break
            }
        }
    }

    /// True while an effect is in flight: the loop must draw frames until it ends.
    public func isAnimating(at time: TimeStamp) -> Bool {
        pops.contains { !$0.animation.isFinished(at: time) } || sprays.contains { !$0.isFinished(at: time) }
    }

    /// When the picture next changes by itself: the next animation frame, or the clock's next second.
    public func nextChange(_ game: KioskGame, at time: TimeStamp, frame: Duration = .seconds(1) / 60) -> TimeStamp? {
        if isAnimating(at: time) { return time + frame }
        guard case .playing = game.screen, let round = game.round, !round.isOver else { return nil }
        // A drag bubble lifting, or settling home after a drop.
        if round.bubbles.contains(where: { !$0.isPopped && $0.isMoving(at: time) }) {
            return time + frame
        }
        // The clock shows whole seconds: wake at the next tick of the round's clock.
        let elapsed = time - round.startTime
        return round.startTime + .seconds(elapsed.inSeconds.rounded(.down) + 1)
    }

    /// The scene at `time`. Also drops effects that have ended.
    public mutating func scene(_ session: KioskSession, at time: TimeStamp) -> Scene {
        pops.removeAll { $0.animation.isFinished(at: time) }
        sprays.removeAll { $0.isFinished(at: time) }
        let game = session.game
        var items: [SceneItem] = []
        switch game.screen {
        case .start:
            items += startScreen(game)
        case .playing(let demo):
            if let round = game.round { items += roundItems(round, demo: demo, at: time) }
        case .roundOver:
            items += roundOverScreen(game)
        }
        for pop in pops {
            // A bursting bubble shows no digit: its count reached zero.
            var popping = bubbleShape(pop.bubble)
            popping.content = .none
            if let shape = pop.animation.apply(to: popping, at: time) {
                items.append(SceneItem(id: .bubble(pop.bubble.id), shape: .bubble(shape)))
            }
        }
        for spray in sprays { items += spray.particles(at: time) }
        items += fingers(session)
        return Scene(size: field.size, pxPerMM: field.pxPerMM, items: items)
    }

    func bubbleShape(_ b: Bubble, at time: TimeStamp? = nil) -> BubbleShape {
        let content: BubbleContent
        switch b.kind {
        case .tap: content = .taps(max(b.tapsLeft, 0))
        case .swipe(let angle): content = .arrow(degrees: angle)
        case .drag: content = .grip
        }
        guard let t = time else {
            return BubbleShape(center: b.center, diameter: b.diameter, color: .bubble(b.colorIndex), content: content)
        }
        return BubbleShape(center: b.shownCenter(at: t), diameter: b.diameter, color: .bubble(b.colorIndex),
                           content: content, lift: b.lift(at: t))
    }

    private func text(_ name: String, _ s: String, at p: Vector2, mm: Double, bold: Bool = true,
                      align: TextAlignment = .center, color: RGBColor = .white) -> SceneItem {
        SceneItem(id: .ui(name), shape: .text(TextShape(position: p, string: s, sizePx: field.px(mm), color: color,
                                                         alignment: align, bold: bold)))
    }

    private var width: Double { Double(field.size.width) }
    private var height: Double { Double(field.size.height) }

    private func startScreen(_ game: KioskGame) -> [SceneItem] {
        let b = game.button
        let buttons = game.modeButtons
        let hint = buttons.count > 1 ? "Choose how to play."
            : buttons[0].mode == .joystick ? "Steer the catcher with the joystick."
            : game.settings.game.dragShare > 0 ? "Tap the numbers. Swipe the arrows. Drag to the basket."
            : "Tap the numbers. Swipe the arrows."
        var items = [
            text("title", "Bubble Pop", at: Vector2(width / 2, b.y - field.px(28)), mm: 16),
            text("hint", hint, at: Vector2(width / 2, b.y - field.px(12)), mm: 6,
                 bold: false, color: RGBColor(hex: 0xC8_D4_E8)),
        ]
        if buttons.count == 1 {
            items.append(SceneItem(id: .ui("button"), shape: .button(ButtonShape(rect: b, title: "Start"))))
        } else {
            items += JoystickScene.modeButtons(buttons)
        }
        return items + highScoreLists(game)
    }

    /// Today's and all-time best scores of the mode the Start button starts, in two columns
    /// below the button; nothing when there are none or they would not fit.
    private func highScoreLists(_ game: KioskGame) -> [SceneItem] {
        let rows = game.settings.scoring.boardRows
        let mode = game.modes[0]
        let lists = scores[mode]
        guard rows > 0, !lists.today.isEmpty || !lists.allTime.isEmpty else { return [] }
        let line = field.px(6.5)
        let top = game.button.y + game.button.height + field.px(10)
        // Header plus as many rows as fit above the bottom margin.
        let fitting = Int(((height - field.px(3) - top) / line).rounded(.down))
        let shown = min(rows, max(lists.today.count, lists.allTime.count), fitting)
        guard shown > 0 else { return [] }
        var items: [SceneItem] = []
        let heading = RGBColor(hex: 0xFF_D6_0A)
        let entry = RGBColor(hex: 0xC8_D4_E8)
        for (name, title, scores, x) in [("today", "Today", lists.today, width * 0.3),
                                         ("all-time", "All time", lists.allTime, width * 0.7)] {
            items.append(text("scores-\(name)", title, at: Vector2(x, top), mm: 5.5, color: heading))
            for (i, score) in scores.prefix(shown).enumerated() {
                // Ranks right-aligned, scores left-aligned, on either side of the column's middle.
                let y = top + line * Double(i + 1)
                items.append(text("scores-\(name)-\(i)-rank", "\(i + 1).", at: Vector2(x - field.px(1), y), mm: 5,
                                  bold: false, align: .right, color: entry))
                items.append(text("scores-\(name)-\(i)", "\(score)", at: Vector2(x + field.px(1.5), y), mm: 5,
                                  bold: false, align: .left, color: entry))
            }
        }
        return items
    }

    private func roundOverScreen(_ game: KioskGame) -> [SceneItem] {
        let b = game.button
        let score = game.round?.score ?? 0
        var items = [
            text("title", "Round over!", at: Vector2(width / 2, b.y - field.px(28)), mm: 14),
            text("final-score", "Score \(score)", at: Vector2(width / 2, b.y - field.px(12)), mm: 9),
            SceneItem(id: .ui("button"), shape: .button(ButtonShape(rect: b, title: "Play again"))),
        ]
        var below = b.y + b.height + field.px(10)
        if let c = scores.celebration, let round = game.round, c.roundStart == round.startTime {
            items.append(text("high-score", "New high score! #\(c.rank)", at: Vector2(width / 2, below), mm: 8,
                              color: RGBColor(hex: 0xFF_D6_0A)))
            below += field.px(8)
        }
        if let round = game.round, round.comboBonus != 0 || round.timeBonus != 0 {
            var parts: [String] = []
            if round.comboBonus != 0 { parts.append("combos +\(round.comboBonus)") }
            if round.timeBonus != 0 { parts.append("time bonus +\(round.timeBonus)") }
            items.append(text("bonuses", parts.joined(separator: ", "), at: Vector2(width / 2, below), mm: 5,
                              bold: false, color: RGBColor(hex: 0xC8_D4_E8)))
        }
        return items
    }

    private func roundItems(_ round: Round, demo: Bool, at time: TimeStamp) -> [SceneItem] {
        let bar = field.px(round.settings.game.hudHeightMM)
        var items = [SceneItem(id: .ui("hud"), shape: .panel(PanelShape(
            rect: Rect(x: 0, y: 0, width: width, height: bar), color: RGBColor(hex: 0x0B_12_20, alpha: 0.85))))]
        let mid = bar / 2 + field.px(2.5)
        items.append(text("score", "Score \(round.score)", at: Vector2(field.px(5), mid), mm: 7, align: .left))
        let seconds = Int(round.clock(at: time).inSeconds.rounded(round.mode == .classic ? .down : .up))
        let clock = "\(seconds / 60):" + (seconds % 60 < 10 ? "0" : "") + "\(seconds % 60)"
        items.append(text("clock", clock, at: Vector2(width - field.px(5), mid), mm: 7, align: .right))
        if demo {
            items.append(text("demo", "Demo - touch to play", at: Vector2(width / 2, mid), mm: 6, bold: false,
                              color: RGBColor(hex: 0xFF_D6_0A)))
        }
        if let g = round.goal {
            let over = round.bubbles.contains { b in b.carry.map { g.contains($0.position) } ?? false }
            items.append(SceneItem(id: .ui("goal"), shape: .goal(GoalShape(rect: g, active: over))))
        }
        // Lifted bubbles go over the others, held ones last.
        var resting: [SceneItem] = [], lifted: [SceneItem] = [], held: [SceneItem] = []
        for b in round.bubbles where !b.isPopped {
            let shape = bubbleShape(b, at: time)
            let item = SceneItem(id: .bubble(b.id), shape: .bubble(shape))
            if b.carry != nil { held.append(item) } else if shape.lift > 0 { lifted.append(item) } else { resting.append(item) }
        }
        items += resting + lifted + held
        if let play = round.joystick { items += JoystickScene.items(play, field: field) }
        return items
    }

    private func fingers(_ session: KioskSession) -> [SceneItem] {
        var items: [SceneItem] = []
        for device in session.contacts.keys.sorted() {
            for c in session.contacts[device] ?? [] {
                items.append(SceneItem(id: .finger(c.slot, device: device), shape: .finger(FingerShape(
                    center: c.position, radius: field.px(6), ghost: device == DemoPlayer.device))))
            }
        }
        return items
    }
}
