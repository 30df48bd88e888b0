import KioskCore

extension KioskRuntime {
    /// The high scores the start and round-over screens show; the score layer
    /// (`KioskScores.ScoreKeeper`) sets them from the store's answers. Empty: no table shown.
    public var scoreBoard: ScoreBoard {
        get { builder.scores }
        set { builder.scores = newValue }
    }
}
