/// The kiosk's screens around the rounds: start screen, playing, round over, and the way back
/// to the start screen when people walk away.
///
/// A state machine owned by one value, switched on in `handle` and `advance`, in the manner of a
/// small game loop. Time is passed in.
public struct KioskGame: Sendable {
    /// What the screen shows.
    public enum Screen: Equatable, Sendable {
        case start
        /// A round in play; `demo` when the attract mode plays it by itself.
        case playing(demo: Bool)
        case roundOver
    }

    public private(set) var field: PlayField
    public private(set) var settings: Settings
    public private(set) var screen: Screen = .start
    public private(set) var round: Round?
    /// When the screen last changed (animations and timeouts count from here).
    public private(set) var screenSince: TimeStamp
    /// When a real person last touched the screen.
    public private(set) var lastRealTouch: TimeStamp
    /// The next real round's seed, and where later ones come from.
    private var nextRoundSeed: UInt64
    private var roundSeeds: SeededGenerator
    /// Demo rounds draw from a stream of their own, so the demo never changes which rounds
    /// people get.
    private var demoSeeds: SeededGenerator
    /// Demo rounds played so far: the demo shows each offered mode in turn.
    public private(set) var demoRounds = 0
    /// Rounds started so far, demo rounds included: the latest round's `number`.
    public private(set) var roundsStarted = 0

    /// - Parameter seed: the first real round is the one `bubble-kiosk state --seed` prints for
    ///   it; later rounds follow from it. Real runs take it from the clock.
    public init(field: PlayField, settings: Settings, seed: UInt64, at time: TimeStamp) {
        self.field = field
        self.settings = settings
        nextRoundSeed = seed
        roundSeeds = SeededGenerator(seed: seed)
        demoSeeds = SeededGenerator(seed: ~seed)
        screenSince = time
        lastRealTouch = time
    }

    /// The capsule button of the start and round-over screens, centred.
    public var button: Rect {
        let w = min(field.px(80), Double(field.size.width) * 0.8)
        let h = min(field.px(24), Double(field.size.height) * 0.25)
        return Rect(x: (Double(field.size.width) - w) / 2, y: (Double(field.size.height) - h) / 2 + field.px(10),
                    width: w, height: h)
    }

    public var isDemo: Bool { screen == .playing(demo: true) }

    /// The modes the start screen offers, in button order (`ModeSettings.offered`).
    public var modes: [Round.Mode] { settings.offeredModes }

    /// The start screen's buttons: the one Start button when one mode is offered, else one
    /// large button per mode in a row through the Start button's place.
    public var modeButtons: [(mode: Round.Mode, rect: Rect)] {
        let modes = self.modes
        guard modes.count > 1 else { return [(modes[0], button)] }
        let b = button
        let gap = field.px(6)
        let n = Double(modes.count)
        let w = min(field.px(64), (Double(field.size.width) * 0.92 - gap * (n - 1)) / n)
        let left = (Double(field.size.width) - (w * n + gap * (n - 1))) / 2
        return modes.enumerated().map { i, m in
            (m, Rect(x: left + Double(i) * (w + gap), y: b.y, width: w, height: b.height))
        }
    }

    /// The start screen's button for `mode`, nil when the mode is not offered.
    public func button(for mode: Round.Mode) -> Rect? {
        modeButtons.first { $0.mode == mode }?.rect
    }

    /// Takes over a reloaded configuration: what may change at once applies to the round in
    /// progress too; the layout and mode of rounds from the next one (`ReloadPolicy`).
    public mutating func reload(_ loaded: Settings) {
        settings = ReloadPolicy.merged(settings, loaded, upTo: .nextRound)
        field = PlayField(size: field.size, pxPerMM: field.pxPerMM, game: settings.game)
        round?.reload(loaded)
    }

    /// A screen of another size (a desktop window resized): rounds from now are laid out for it.
    /// Only with the round in play given up right after, as `KioskSession.relayout` does.
    public mutating func layOut(for size: PixelSize, pxPerMM: Double) {
        field = PlayField(size: size, pxPerMM: pxPerMM, game: settings.game)
    }

    /// Notes real touch activity (any frame with contacts) for the idle timeout.
    public mutating func touched(at time: TimeStamp) {
        lastRealTouch = time
    }

    /// Starts a round now (a mode's button, or the attract demo). Without `mode`: the first
    /// offered mode; the demo plays the offered modes in turn.
    public mutating func startRound(at time: TimeStamp, demo: Bool = false, mode chosen: Round.Mode? = nil) -> [GameEvent] {
        let offered = modes
        var mode = chosen ?? offered[0]
        let seed: UInt64
        if demo {
            // A single offered mode: the demo stays classic, as it always was, unless that one
            // mode is the joystick.
            mode = offered.count > 1 ? offered[demoRounds % offered.count] : (offered[0] == .joystick ? .joystick : .classic)
            demoRounds += 1
            seed = demoSeeds.next()
        } else {
            seed = nextRoundSeed
            nextRoundSeed = roundSeeds.next()
        }
        var fresh = Round(mode: mode, field: field, settings: settings, seed: seed, at: time)
        roundsStarted += 1
        fresh.number = roundsStarted
        round = fresh
        setScreen(.playing(demo: demo), at: time)
        return [.roundStarted(demo: demo)]
    }

    /// Shows a round played elsewhere (a replay): playing, or the round-over screen once it ended.
    public mutating func show(_ round: Round, at time: TimeStamp) {
        self.round = round
        setScreen(round.isOver ? .roundOver : .playing(demo: false), at: time)
    }

    /// A gesture; `fromDemo` for the attract mode's ghost fingers.
    public mutating func handle(_ gesture: Gesture, fromDemo: Bool = false) -> [GameEvent] {
        if !fromDemo { touched(at: gesture.time) }
        switch screen {
        case .start, .roundOver:
            guard !fromDemo, gesture.kind == .tap else { return [] }
            let margin = field.px(settings.game.hitMarginMM)
            if screen == .roundOver {
                // Play again: the mode just played.
                guard button.inflated(by: margin).contains(gesture.position) else { return [] }
                return startRound(at: gesture.time, mode: round.map { modes.contains($0.mode) ? $0.mode : modes[0] })
            }
            // Mode buttons are 6 mm apart: the margin reaches less than halfway into the gap.
            let reach = modeButtons.count > 1 ? min(margin, field.px(2.5)) : margin
            guard let hit = modeButtons.first(where: { $0.rect.inflated(by: reach).contains(gesture.position) })
            else { return [] }
            return startRound(at: gesture.time, mode: hit.mode)
        case .playing(let demo):
            if demo && !fromDemo {
                // A real person takes over at once: a fresh round of their own.
                return startRound(at: gesture.time)
            }
            guard demo == fromDemo, var r = round else { return [] }
            var events = r.handle(gesture)
            round = r
            if r.isOver { events += finishRound(at: gesture.time) }
            return events
        }
    }

    /// Lets time pass: timed rounds, the round-over screen's timeout, the idle return.
    public mutating func advance(to time: TimeStamp) -> [GameEvent] {
        var events: [GameEvent] = []
        if case .playing = screen, var r = round {
            events += r.advance(to: time)
            round = r
            if r.isOver { events += finishRound(at: r.endTime ?? time) }
        }
        if let due = nextDeadline, time >= due {
            switch screen {
            case .roundOver:
                setScreen(.start, at: time)
            case .playing(demo: false):
                // Nobody touched for a while: they walked away mid-round.
                round = nil
                setScreen(.start, at: time)
                events.append(.idleReturn)
            case .start:
                events += startRound(at: time, demo: true)
            case .playing(demo: true):
                break
            }
        }
        return events
    }

    /// Back to the start screen now, whatever it shows (the touch-test screen opens or
    /// closes): a round in play is given up (`roundAbandoned`), and the start screen's own
    /// timeout (the demo) counts from now.
    public mutating func returnToStart(at time: TimeStamp) -> [GameEvent] {
        let playing = if case .playing = screen { true } else { false }
        if screen != .start { round = nil }
        setScreen(.start, at: time)
        return playing ? [.roundAbandoned] : []
    }

    /// When `advance` next has something to do without input.
    public var nextDeadline: TimeStamp? {
        switch screen {
        case .start:
            guard settings.attract.demo else { return nil }
            return max(screenSince, lastRealTouch) + settings.attract.demoAfter
        case .playing(demo: true):
            return nil
        case .roundOver:
            return screenSince + settings.attract.roundOver
        case .playing(demo: false):
            let idle = lastRealTouch + settings.attract.idleTimeout
            return [idle, round?.nextDeadline].compactMap { $0 }.min()
        }
    }

    private mutating func finishRound(at time: TimeStamp) -> [GameEvent] {
        if isDemo {
            // The demo loops: straight back to the start screen for the next visitor.
            round = nil
            setScreen(.start, at: time)
            return []
        }
        setScreen(.roundOver, at: time)
        return []
    }

    private mutating func setScreen(_ s: Screen, at time: TimeStamp) {
        screen = s
        screenSince = time
    }
}

extension Rect {
    /// This rectangle grown by `d` on every side.
    public func inflated(by d: Double) -> Rect {
        Rect(x: x - d, y: y - d, width: width + 2 * d, height: height + 2 * d)
    }
}
