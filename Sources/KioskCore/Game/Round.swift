/// Something the round did in answer to a gesture or to time passing; renderers and sounds
/// react to these.
public enum GameEvent: Equatable, Sendable {
    /// A tap bubble took a tap and still needs `tapsLeft`.
    case tapped(bubble: Int, tapsLeft: Int)
    /// A bubble popped, worth `points`.
    case popped(bubble: Int, points: Int)
    /// A swipe on a swipe bubble in the wrong direction.
    case wrongDirection(bubble: Int)
    /// A tap or swipe that hit no bubble.
    case missed(at: Vector2)
    /// A new bubble appeared (timed mode).
    case spawned(bubble: Int)
    /// The round ended with this score.
    case roundOver(score: Int)
    /// A new round began (by a person, or the attract demo).
    case roundStarted(demo: Bool)
    /// Nobody touched the screen for the idle timeout: back to the start screen.
    case idleReturn
    /// The round in play was given up for the touch-test screen: back to the start screen.
    case roundAbandoned
}

/// One round of play: the bubbles, the rules that pop them, score and time.
///
/// Time is a value passed in, never read from a clock, so replays run on virtual time.
public struct Round: Sendable {
    /// Classic pops a fixed set; timed keeps spawning until the countdown ends; joystick steers a
    /// catcher to collect drifting bubbles before the countdown ends (`Round+Joystick.swift`).
    public enum Mode: String, Sendable, CaseIterable { case classic, timed, joystick }

    public let mode: Mode
    /// Which round since the kiosk started this is, demo rounds included (1, 2, ...), as the
    /// game numbers them; 0 for a round made outside a game. Events name their round by it.
    public internal(set) var number = 0
    public let field: PlayField
    public private(set) var settings: Settings
    public internal(set) var bubbles: [Bubble] = []
    public private(set) var score = 0
    /// Points from combos so far (`[scoring] combo_bonus`), part of `score`.
    public private(set) var comboBonus = 0
    /// Points for clearing a classic round under par (`[scoring] time_bonus_per_s`), part of `score`.
    public private(set) var timeBonus = 0
    /// The combo's step at the last pop: 0 for a pop on its own, 1 for the 2nd pop in a row...
    public private(set) var combo = 0
    /// The longest combo of the round, in pops (1 when no two pops came in a row).
    public private(set) var bestCombo = 0
    private var lastPopAt: TimeStamp?
    public let startTime: TimeStamp
    public private(set) var endTime: TimeStamp?
    private var rng: SeededGenerator
    /// Drag decisions and the goal's place come from a stream of their own, so a seed gives
    /// the same positions, sizes and colours whatever the share of drag bubbles.
    private var dragRng: SeededGenerator
    /// The basket drag bubbles are dropped into (top-left corner and size in px); nil when the
    /// mix has no drag bubbles.
    public private(set) var goal: Rect?
    /// The contact whose drag just ended carrying a bubble: its swipe (a fast drop) is not a miss.
    private var carryEnded: (device: Int, slot: Int, time: TimeStamp)?
    private var nextSpawn: TimeStamp
    private var nextID = 0
    /// The joystick, catcher and drift of a joystick round; nil in the other modes.
    public internal(set) var joystick: JoystickPlay?

    public init(mode: Mode = .classic, field: PlayField, settings: Settings, seed: UInt64, at time: TimeStamp) {
        self.mode = mode
        self.field = field
        self.settings = settings
        self.rng = SeededGenerator(seed: seed)
        self.dragRng = SeededGenerator(seed: seed ^ 0x4452_4147_4745)
        self.startTime = time
        self.nextSpawn = time + settings.timed.spawnInterval
        let initial = switch mode {
        case .classic: settings.game.bubbles
        case .timed: settings.timed.startBubbles
        case .joystick: min(settings.joystick.startBubbles, settings.joystick.maxBubbles)
        }
        for _ in 0..<initial { _ = spawn(at: time) }
        if mode == .joystick { startJoystick(at: time) }
        if mode != .joystick, settings.game.dragShare > 0 {
            let placed = BubblePlacer(field: field, game: settings.game).goal(avoiding: bubbles, using: &dragRng)
            goal = placed.rect
            for m in placed.moved {
                if let i = bubbles.firstIndex(where: { $0.id == m.id }) { bubbles[i] = m }
            }
        }
    }

    /// Takes over the rules of a reloaded configuration that apply at once (`ReloadPolicy`).
    public mutating func reload(_ loaded: Settings) {
        settings = ReloadPolicy.merged(settings, loaded, upTo: .now)
    }

    public var isOver: Bool { endTime != nil }
    public var popped: Int { bubbles.count { $0.isPopped } }
    public var remaining: Int { bubbles.count { !$0.isPopped } }

    /// Time left in a timed or joystick round, or time played in a classic one, at `time`.
    public func clock(at time: TimeStamp) -> Duration {
        let played = max(.zero, (endTime ?? time) - startTime)
        return mode == .classic ? played : max(.zero, countdown - played)
    }

    /// The live bubble under a point, with the finger margin; the nearest centre wins.
    public func bubble(at point: Vector2) -> Int? {
        let margin = field.px(settings.game.hitMarginMM)
        var best: (index: Int, distance: Double)?
        for (i, b) in bubbles.enumerated() where !b.isPopped {
            let d = b.position.distance(to: point)
            if d <= b.radius + margin, d < (best?.distance ?? .infinity) { best = (i, d) }
        }
        return best?.index
    }

    /// The bubble the contact (device, slot) carries.
    public func carried(device: Int, slot: Int) -> Int? {
        bubbles.firstIndex { $0.carry.map { $0.device == device && $0.slot == slot } ?? false }
    }

    /// Applies a gesture. Taps and swipes play; drags carry drag bubbles; long presses change nothing.
    public mutating func handle(_ gesture: Gesture) -> [GameEvent] {
        guard !isOver else { return [] }
        var events: [GameEvent] = []
        if mode == .joystick {
            // Time first: the catcher moved with the knob as it was until now.
            events = advanceJoystick(to: gesture.time)
            if isOver { return events }
            if let handled = handleJoystick(gesture) { return events + handled }
        }
        switch gesture.kind {
        case .tap:
            guard let i = bubble(at: gesture.position) else {
                events.append(miss(at: gesture.position))
                break
            }
            guard case .tap(let required) = bubbles[i].kind else { break }
            bubbles[i].tapsLeft -= 1
            if bubbles[i].tapsLeft <= 0 {
                events.append(pop(i, points: settings.score.tapBubble * required, at: gesture.time))
            } else {
                events.append(.tapped(bubble: bubbles[i].id, tapsLeft: bubbles[i].tapsLeft))
            }
        case .swipe:
            if let e = carryEnded, e.device == gesture.device, e.slot == gesture.slot, e.time == gesture.time {
                // The same lift as a drop: the bubble went to the goal or home, nothing missed.
                carryEnded = nil
                break
            }
            // The swipe must start on the bubble; its direction is start-to-end.
            guard let i = bubble(at: gesture.start) else {
                events.append(miss(at: gesture.start))
                break
            }
            guard case .swipe(let angle) = bubbles[i].kind else { break }
            if Angle.difference(gesture.angleDegrees, angle) <= settings.game.swipeToleranceDeg {
                events.append(pop(i, points: settings.score.swipeBubble, at: gesture.time))
            } else {
                events.append(.wrongDirection(bubble: bubbles[i].id))
            }
        case .dragStart:
            // Picked up where the finger went down; a bubble another finger holds stays with it.
            guard carried(device: gesture.device, slot: gesture.slot) == nil,
                  let i = bubble(at: gesture.start), case .drag = bubbles[i].kind, bubbles[i].carry == nil else { break }
            let offset = gesture.start - bubbles[i].center
            bubbles[i].carry = Carry(device: gesture.device, slot: gesture.slot, offset: offset,
                                     position: gesture.position - offset, since: gesture.time)
            bubbles[i].lastDrop = nil
        case .dragMove:
            guard let i = carried(device: gesture.device, slot: gesture.slot), let c = bubbles[i].carry else { break }
            bubbles[i].carry?.position = gesture.position - c.offset
        case .dragEnd:
            guard let i = carried(device: gesture.device, slot: gesture.slot), let c = bubbles[i].carry else { break }
            let at = gesture.position - c.offset
            carryEnded = (gesture.device, gesture.slot, gesture.time)
            if let g = goal, g.contains(at) {
                bubbles[i].carry = nil
                bubbles[i].center = at
                events.append(pop(i, points: settings.score.dragBubble, at: gesture.time))
            } else {
                release(i, from: at, at: gesture.time)
            }
        case .cancel:
            // The contact is gone (unplugged, events dropped): the bubble goes home.
            guard let i = carried(device: gesture.device, slot: gesture.slot), let c = bubbles[i].carry else { break }
            release(i, from: c.position, at: gesture.time)
        case .longPress:
            break
        }
        if mode == .classic && remaining == 0 {
            score += settings.score.roundBonus
            timeBonus = Self.timeBonus(after: gesture.time - startTime, scoring: settings.scoring)
            score += timeBonus
            events.append(finish(at: gesture.time))
        }
        return events
    }

    /// Lets time pass: timed mode spawns bubbles and ends at the countdown.
    public mutating func advance(to time: TimeStamp) -> [GameEvent] {
        if mode == .joystick { return advanceJoystick(to: time) }
        guard !isOver, mode == .timed else { return [] }
        var events: [GameEvent] = []
        let end = startTime + settings.timed.duration
        while nextSpawn <= min(time, end) {
            if remaining < settings.timed.maxBubbles, let id = spawn(at: nextSpawn) {
                events.append(.spawned(bubble: id))
            }
            nextSpawn = nextSpawn + max(.milliseconds(50), settings.timed.spawnInterval)
        }
        if time >= end { events.append(finish(at: end)) }
        return events
    }

    /// When `advance` next has something to do (for the event loop's timer).
    public var nextDeadline: TimeStamp? {
        if mode == .joystick { return joystickDeadline }
        guard !isOver, mode == .timed else { return nil }
        return min(nextSpawn, startTime + settings.timed.duration)
    }

    /// A carried bubble let go short of the goal: back where it rests, easing there on screen.
    private mutating func release(_ i: Int, from position: Vector2, at time: TimeStamp) {
        bubbles[i].carry = nil
        bubbles[i].lastDrop = Drop(from: position, time: time)
    }

    mutating func spawn(at time: TimeStamp) -> Int? {
        let placer = BubblePlacer(field: field, game: settings.game)
        let share = settings.game.dragShare
        let drag = mode != .joystick && share > 0 && dragRng.unit() < share
        guard let b = placer.make(id: nextID, avoiding: bubbles, goal: goal, drag: drag, at: time, using: &rng)
        else { return nil }
        bubbles.append(b)
        nextID += 1
        return b.id
    }

    mutating func pop(_ i: Int, points base: Int, at time: TimeStamp) -> GameEvent {
        bubbles[i].tapsLeft = 0
        bubbles[i].poppedAt = time
        if let last = lastPopAt, time - last <= settings.scoring.comboWindow {
            combo += 1
        } else {
            combo = 0
        }
        lastPopAt = time
        bestCombo = max(bestCombo, combo + 1)
        let bonus = Self.comboBonus(step: combo, scoring: settings.scoring)
        comboBonus += bonus
        score += base + bonus
        return .popped(bubble: bubbles[i].id, points: base + bonus)
    }

    /// The extra points of a pop at combo step `step` (0: a pop on its own).
    public static func comboBonus(step: Int, scoring: ScoringSettings) -> Int {
        scoring.comboBonus * min(max(step, 0), scoring.comboMaxSteps)
    }

    /// The time bonus of a classic round cleared after `elapsed`: whole seconds under par.
    public static func timeBonus(after elapsed: Duration, scoring: ScoringSettings) -> Int {
        let under = (scoring.parTime - elapsed).inSeconds.rounded(.down)
        return under > 0 ? Int(under) * scoring.timeBonusPerSecond : 0
    }

    private mutating func miss(at point: Vector2) -> GameEvent {
        score = max(0, score + settings.score.miss)
        return .missed(at: point)
    }

    mutating func finish(at time: TimeStamp) -> GameEvent {
        endTime = time
        return .roundOver(score: score)
    }
}
