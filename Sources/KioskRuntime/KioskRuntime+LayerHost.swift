import KioskCore
import KioskLayers
import KioskPlatform

/// What the runtime offers its layers (`LayerHost`) beyond the loop and the settings.
extension KioskRuntime {
    /// The high scores the start and round-over screens show; the score layer
    /// (`KioskScores.ScoreKeeper`) sets them from the store's answers. Empty: no table shown.
    public var scoreBoard: ScoreBoard {
        get { builder.scores }
        set { builder.scores = newValue }
    }

    public func show(_ board: ScoreBoard) { scoreBoard = board }

    public var displayName: String { display.name }
    public var inputName: String { input.name }

    public var liveFigures: KioskMetrics.LiveFigures {
        KioskMetrics.LiveFigures(displayUp: mayDraw,
                                 screens: display.screenCount, touchscreens: input.deviceCount,
                                 screen: session.game.screen, frames: frames,
                                 frameTimesMS: frameTimes, latenciesMS: latencies)
    }

    /// Announces an event a layer raised (a new high score) to every layer.
    public func post(_ event: KioskEvent, at time: TimeStamp) { notify(event, at: time) }
}
