/// Builds what the screen shows for a kiosk session at a moment: the start screen, the round
/// with its heads-up bar, the round-over screen, finger markers, and pop effects in flight.
///
/// Effects are driven by `GameEvent`s and drawn from a generator seeded with the game's seed,
/// so a replay shows the same sparks.
public struct SceneBuilder: Sendable {
    public let field: PlayField
    /// High scores for the start and round-over screens (from the score store; empty: none shown).
    public var scores = ScoreBoard()
    /// The words on screen, in the kiosk's language (with the operator's `[text]`).
    public var words = MessageCatalogue.english
    /// The operator's logo's size in pixels, once it is loaded; nil: no logo.
    public var logoSize: PixelSize?
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
        var scene = Scene(size: field.size, pxPerMM: field.pxPerMM, background: game.settings.branding.backgroundColor, items: items)
        scene.language = words.language.tag
        return scene
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
                      align: TextAlignment = .center, color: RGBColor) -> SceneItem {
        SceneItem(id: .ui(name), shape: .text(TextShape(position: p, string: s, sizePx: field.px(mm), color: color,
                                                         alignment: align, bold: bold)))
    }

    /// The colours of the text: the operator's main colour, and a quieter one for hints and lists
    /// (the game's own pale blue unless the main colour was changed).
    private func colors(_ game: KioskGame) -> (main: RGBColor, quiet: RGBColor) {
        let b = game.settings.branding
        let main = b.textColor
        let quiet = b.text == BrandingSettings().text ? RGBColor(hex: 0xC8_D4_E8) : main.mixed(with: b.backgroundColor, amount: 0.25)
        return (main, quiet)
    }

    /// Where text that starts a line goes, and how it is aligned: the left in English, the right
    /// in Arabic and Hebrew. `inset` is measured from that side.
    private func lineStart(inset: Double) -> (x: Double, align: TextAlignment) {
        words.isRightToLeft ? (width - inset, .right) : (inset, .left)
    }

    private var width: Double { Double(field.size.width) }
    private var height: Double { Double(field.size.height) }

    private func startScreen(_ game: KioskGame) -> [SceneItem] {
        let b = game.button
        let buttons = game.modeButtons
        let branding = game.settings.branding
        let hint = !branding.subtitle.isEmpty ? branding.subtitle
            : words.text(buttons.count > 1 ? .hintChoose
                : buttons[0].mode == .joystick ? .hintJoystick
                : game.settings.game.dragShare > 0 ? .hintDrag : .hintTap)
        let (main, quiet) = colors(game)
        let titleBaseline = b.y - field.px(28)
        var items: [SceneItem] = []
        // The logo sits above the title's capitals (about 0.75 of its 16 mm), below a small margin.
        if let size = logoSize, let rect = BrandingSettings.logoRect(
            size, centreX: width / 2, top: field.px(4), bottom: titleBaseline - field.px(16 * 0.75 + 3), maxWidth: width * 0.6) {
            items.append(SceneItem(id: .ui("logo"), shape: .image(ImageShape(rect: rect, name: ImageShape.logo))))
        }
        items += [
            text("title", branding.title.isEmpty ? words.text(.title) : branding.title,
                 at: Vector2(width / 2, titleBaseline), mm: 16, color: main),
            text("hint", hint, at: Vector2(width / 2, b.y - field.px(12)), mm: 6, bold: false, color: quiet),
        ]
        if buttons.count == 1 {
            items.append(SceneItem(id: .ui("button"), shape: .button(ButtonShape(
                rect: b, title: words.text(.start), color: branding.accentColor))))
        } else {
            items += JoystickScene.modeButtons(buttons, words: words, accent: branding.accentColor)
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
        let entry = colors(game).quiet
        // Read from the start side: today's list first, each rank before its score.
        let rtl = words.isRightToLeft
        let first = rtl ? width * 0.7 : width * 0.3, second = rtl ? width * 0.3 : width * 0.7
        let (rankAlign, scoreAlign): (TextAlignment, TextAlignment) = rtl ? (.left, .right) : (.right, .left)
        let side = rtl ? -1.0 : 1.0
        for (name, title, scores, x) in [("today", words.text(.today), lists.today, first),
                                         ("all-time", words.text(.allTime), lists.allTime, second)] {
            items.append(text("scores-\(name)", title, at: Vector2(x, top), mm: 5.5, color: heading))
            for (i, score) in scores.prefix(shown).enumerated() {
                // Ranks and scores on either side of the column's middle, aligned to it.
                let y = top + line * Double(i + 1)
                items.append(text("scores-\(name)-\(i)-rank", words.number(i + 1) + ".", at: Vector2(x - side * field.px(1), y),
                                  mm: 5, bold: false, align: rankAlign, color: entry))
                items.append(text("scores-\(name)-\(i)", words.number(score), at: Vector2(x + side * field.px(1.5), y), mm: 5,
                                  bold: false, align: scoreAlign, color: entry))
            }
        }
        return items
    }

    private func roundOverScreen(_ game: KioskGame) -> [SceneItem] {
        let b = game.button
        let score = game.round?.score ?? 0
        let (main, quiet) = colors(game)
        var items = [
            text("title", words.text(.roundOver), at: Vector2(width / 2, b.y - field.px(28)), mm: 14, color: main),
            text("final-score", words.text(.score, ["score": score]), at: Vector2(width / 2, b.y - field.px(12)), mm: 9, color: main),
            SceneItem(id: .ui("button"), shape: .button(ButtonShape(
                rect: b, title: words.text(.playAgain), color: game.settings.branding.accentColor))),
        ]
        var below = b.y + b.height + field.px(10)
        if let c = scores.celebration, let round = game.round, c.roundStart == round.startTime {
            items.append(text("high-score", words.text(.newHighScore, ["rank": c.rank]), at: Vector2(width / 2, below), mm: 8,
                              color: RGBColor(hex: 0xFF_D6_0A)))
            below += field.px(8)
        }
        if let round = game.round, round.comboBonus != 0 || round.timeBonus != 0 {
            var parts: [String] = []
            if round.comboBonus != 0 { parts.append(words.text(.comboBonus, ["points": round.comboBonus])) }
            if round.timeBonus != 0 { parts.append(words.text(.timeBonus, ["points": round.timeBonus])) }
            items.append(text("bonuses", parts.joined(separator: words.text(.bonusSeparator)), at: Vector2(width / 2, below), mm: 5,
                              bold: false, color: quiet))
        }
        return items
    }

    private func roundItems(_ round: Round, demo: Bool, at time: TimeStamp) -> [SceneItem] {
        let bar = field.px(round.settings.game.hudHeightMM)
        let branding = round.settings.branding
        // The game's own bar is a darker navy; an operator's accent colours it instead.
        let barColor = branding.accent == BrandingSettings().accent ? RGBColor(hex: 0x0B_12_20, alpha: 0.85)
            : branding.accentColor.withAlpha(0.85)
        var items = [SceneItem(id: .ui("hud"), shape: .panel(PanelShape(
            rect: Rect(x: 0, y: 0, width: width, height: bar), color: barColor)))]
        let mid = bar / 2 + field.px(2.5)
        let main = branding.textColor
        // The score on the side reading starts from, the clock on the other.
        let start = lineStart(inset: field.px(5))
        let end = words.isRightToLeft ? (x: field.px(5), align: TextAlignment.left) : (x: width - field.px(5), align: TextAlignment.right)
        items.append(text("score", words.text(.score, ["score": round.score]), at: Vector2(start.x, mid), mm: 7,
                          align: start.align, color: main))
        let seconds = Int(round.clock(at: time).inSeconds.rounded(round.mode == .classic ? .down : .up))
        items.append(text("clock", words.numbers.clock(seconds: seconds), at: Vector2(end.x, mid), mm: 7, align: end.align, color: main))
        if demo {
            items.append(text("demo", words.text(.demo), at: Vector2(width / 2, mid), mm: 6, bold: false,
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
