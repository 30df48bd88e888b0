/// Everything between touch frames and the game: the gesture recogniser, the kiosk's screens
/// and the attract demo's ghost fingers. The event loop feeds it frames and time; replays and
/// tests do the same on virtual time.
public struct KioskSession: Sendable {
    public private(set) var game: KioskGame
    private var recognizer: GestureRecognizer
    private var demo: DemoPlayer?
    /// The contacts down on each device (the demo's under `DemoPlayer.device`), for finger markers.
    public private(set) var contacts: [Int: [TouchPoint]] = [:]

    public init(game: KioskGame) {
        self.game = game
        recognizer = GestureRecognizer(settings: game.settings.gestures, pxPerMM: game.field.pxPerMM,
                                       screen: game.field.size)
    }

    /// Takes over a reloaded configuration (see `KioskGame.reload`); contacts down keep going
    /// under the new gesture thresholds.
    public mutating func reload(_ loaded: Settings) {
        game.reload(loaded)
        recognizer.thresholds = GestureThresholds(game.settings.gestures, pxPerMM: game.field.pxPerMM)
    }

    /// Starts the attract demo now, whatever the screen shows.
    public mutating func startDemo(at time: TimeStamp) -> [GameEvent] {
        let events = game.startRound(at: time, demo: true)
        follow(events, at: time)
        return events
    }

    /// The display goes to sleep: the attract demo (if it plays) ends and the start screen
    /// shows, so nothing moves while nobody can see it.
    public mutating func sleep(at time: TimeStamp) -> [GameEvent] {
        guard game.isDemo else { return [] }
        stopDemo(at: time)
        return game.returnToStart(at: time)
    }

    /// The display woke: the start screen's idle time (the demo's countdown) starts again.
    public mutating func wake(at time: TimeStamp) {
        game.touched(at: time)
    }

    /// A real device's frame.
    public mutating func process(_ frame: TouchFrame) -> [GameEvent] {
        var events: [GameEvent] = []
        if !frame.contacts.isEmpty {
            game.touched(at: frame.time)
            if game.isDemo {
                // Any real touch takes over at once from the ghost fingers.
                stopDemo(at: frame.time)
                if game.modes.count > 1 {
                    // Several modes: the start screen, to choose one. The touch that stopped
                    // the demo chooses nothing (a resync: ignored until it lifts).
                    events += game.returnToStart(at: frame.time)
                    var taken = frame
                    taken.resync = true
                    contacts[frame.device] = frame.contacts
                    return events + recognise(taken, fromDemo: false)
                }
                events += game.startRound(at: frame.time)
            }
        }
        contacts[frame.device] = frame.contacts.isEmpty ? nil : frame.contacts
        events += recognise(frame, fromDemo: false)
        return events
    }

    /// A device went away or lost events: cancel its contacts' gestures.
    /// A swipe lifted just before (still waiting out the bounce time) still plays.
    public mutating func cancel(device: Int, at time: TimeStamp) -> [GameEvent] {
        contacts[device] = nil
        var gestures: [Gesture] = []
        recognizer.cancelAll(device: device, at: time) { gestures.append($0) }
        var events: [GameEvent] = []
        for g in gestures { events += handle(g) }
        follow(events, at: time)
        return events
    }

    /// The screen changed size (a desktop window resized): the game is laid out for it. The
    /// bubbles of a round in play, the demo's too, were placed for the old size and would sit
    /// off the new screen or crowd it, so the round is given up (`roundAbandoned`) and the start
    /// screen shows, laid out anew; gestures are told on the new screen from the next touch.
    public mutating func relayout(for size: PixelSize, pxPerMM: Double, at time: TimeStamp) -> [GameEvent] {
        game.layOut(for: size, pxPerMM: pxPerMM)
        recognizer = GestureRecognizer(settings: game.settings.gestures, pxPerMM: pxPerMM, screen: size)
        return returnToStart(at: time)
    }

    /// Back to the start screen (see `KioskGame.returnToStart`): the demo stops and every
    /// contact is forgotten without a gesture, so a finger still down does nothing until it lifts.
    public mutating func returnToStart(at time: TimeStamp) -> [GameEvent] {
        demo = nil
        contacts = [:]
        recognizer = GestureRecognizer(thresholds: recognizer.thresholds, screen: recognizer.screen)
        return game.returnToStart(at: time)
    }

    /// One contact is taken from the game while down (stuck, or part of an operator gesture):
    /// its gestures are cancelled (a carried bubble goes back, no tap fires) and its finger
    /// marker goes. The frames that follow must leave it out (`OperatorInput` does).
    public mutating func cancel(_ contact: ContactRef, at time: TimeStamp) -> [GameEvent] {
        if var down = contacts[contact.device] {
            down.removeAll { $0.slot == contact.slot && $0.trackingID == contact.trackingID }
            contacts[contact.device] = down.isEmpty ? nil : down
        }
        var gestures: [Gesture] = []
        recognizer.cancel(device: contact.device, slot: contact.slot, trackingID: contact.trackingID, at: time) {
            gestures.append($0)
        }
        var events: [GameEvent] = []
        for g in gestures { events += handle(g) }
        follow(events, at: time)
        return events
    }

    /// Lets time pass: ghost frames, long presses, timed rounds, timeouts.
    public mutating func advance(to time: TimeStamp) -> [GameEvent] {
        var events: [GameEvent] = []
        if var d = demo {
            for frame in d.frames(upTo: time) {
                contacts[DemoPlayer.device] = frame.contacts.isEmpty ? nil : frame.contacts
                events += recognise(frame, fromDemo: true)
            }
            // A timed demo keeps popping the bubbles that came since.
            if d.isFinished, game.isDemo, let r = game.round, r.mode == .timed, r.remaining > 0 {
                d = DemoPlayer(round: r, at: time)
            }
            demo = game.isDemo ? d : nil
        }
        var due: [Gesture] = []
        recognizer.advance(to: time) { due.append($0) }
        for g in due { events += handle(g) }
        events += game.advance(to: time)
        follow(events, at: time)
        return events
    }

    /// When `advance` next has something to do; nil when nothing moves until input arrives.
    public var nextDeadline: TimeStamp? {
        [recognizer.nextDeadline, demo?.nextDeadline, game.nextDeadline].compactMap { $0 }.min()
    }

    private mutating func recognise(_ frame: TouchFrame, fromDemo: Bool) -> [GameEvent] {
        var gestures: [Gesture] = []
        recognizer.process(frame) { gestures.append($0) }
        var events: [GameEvent] = []
        for g in gestures { events += handle(g) }
        follow(events, at: frame.time)
        return events
    }

    private mutating func handle(_ g: Gesture) -> [GameEvent] {
        game.handle(g, fromDemo: g.device == DemoPlayer.device)
    }

    /// Starts or stops the ghost fingers as the game's screens change.
    private mutating func follow(_ events: [GameEvent], at time: TimeStamp) {
        if events.contains(.roundStarted(demo: true)), let round = game.round {
            demo = DemoPlayer(round: round, at: time)
        } else if !game.isDemo && demo != nil {
            stopDemo(at: time)
        }
    }

    private mutating func stopDemo(at time: TimeStamp) {
        demo = nil
        contacts[DemoPlayer.device] = nil
        recognizer.cancelAll(device: DemoPlayer.device, at: time) { _ in }
    }
}
