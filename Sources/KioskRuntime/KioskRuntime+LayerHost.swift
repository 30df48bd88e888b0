import KioskCore
import KioskLayers
import KioskPlatform

/// What the runtime offers its layers (`LayerHost`): a snapshot to read and commands to give.
extension KioskRuntime {
    public var displayName: String { display.name }
    public var inputName: String { input.name }
    public var displayConnector: DRMConnectorRef? { display.mainConnector }
    public var displayPhysicalAddress: PhysicalAddress? { display.mainMonitor?.hdmiPhysicalAddress.map(PhysicalAddress.init) }

    /// The high scores the start and round-over screens show (`KioskCommand.showScores`).
    public var scoreBoard: ScoreBoard { stage.scenes.scores }

    public var snapshot: KioskSnapshot {
        var s = KioskSnapshot(onScreen: state.onScreen, asleep: isAsleep, game: session.game, activity: state.activity,
                              startTime: state.started, roundsByDay: state.roundsByDay, bestAnnounced: state.bestAnnounced,
                              scoreBoard: scoreBoard, touchHeatmap: touchTest.heatmap, liveFigures: liveFigures)
        layers.contribute(to: &s)
        s.liveFigures.tvPowerOn = s.tv?.tvPower.map(\.isOn)
        return s
    }

    /// What the kiosk is doing now, for figures written out of the loop (metrics).
    public var liveFigures: KioskMetrics.LiveFigures {
        KioskMetrics.LiveFigures(displayUp: stage.mayDraw, screens: display.screenCount, touchscreens: input.deviceCount,
                                 screen: session.game.screen, frames: frames, frameTimes: frameTimes, latencies: latencies,
                                 displayAsleep: isAsleep,
                                 lastTouch: state.activity.lastTouch.map { wallClock.wallTime(at: $0) })
    }

    /// Announces an event a layer raised (a new high score) to every layer.
    public func post(_ event: KioskEvent, at time: TimeStamp) { notify(event, at: time) }

    @discardableResult
    public func perform(_ command: KioskCommand, by who: String) -> Bool {
        let now = loop.now
        switch command {
        case .display(on: true):
            wake(at: now, why: "switched on by \(who)")
        case .display(on: false):
            switchDisplayOff(by: who)
        case .touchTest(open: true):
            // A sleeping display wakes for it.
            guard !touchTest.isOpen else { return true }
            wake(at: now, why: "the touch test was opened by \(who)")
            openTouchTest(at: now)
        case .touchTest(open: false):
            if touchTest.isOpen { closeTouchTest(at: now, reason: "closed by \(who)") }
        case .reload:
            reload()
        case .operatorReset:
            // The same line and exit status as the gesture's.
            operatorReset(cause: who, at: now)
        case .showScores(let board):
            stage.scenes.scores = board
        case .volume, .brightness:
            return layers.perform(command, by: who)
        case .tvPower(let on):
            followTV(on: on)
        }
        return true
    }

    /// Shows `board` on the start and round-over screens, as `KioskCommand.showScores` does.
    public func show(_ board: ScoreBoard) { perform(.showScores(board), by: "the runtime") }

    /// `switchDisplay(on:by:)` and `switchTouchTest(open:by:)`, as fleet control asks.
    public func switchDisplay(on: Bool, by who: String) { perform(.display(on: on), by: who) }
    public func switchTouchTest(open: Bool, by who: String) { perform(.touchTest(open: open), by: who) }

    /// The screen's picture, the caller's alone.
    public func screenSnapshot() -> PixelBuffer { display.snapshot() }

    /// What fleet control's state says the screen is.
    public var fleetScreen: FleetState.Screen { state.onScreen.fleetScreen }
}
