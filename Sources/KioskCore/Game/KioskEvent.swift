/// What happens in a running kiosk, as its layers see it (with `EventFacts`): the scene's
/// effects first, then the layers in the order they were attached. Layers run on the loop's
/// thread and must not block a frame: anything slow goes to a queue or a thread of its own.
public enum KioskEvent: Equatable, Sendable {
    /// A rule of the game fired: a pop, a round starting or ending, the idle return, ...
    case game(GameEvent)
    /// The screen changed (start, playing, round over).
    case screen(KioskGame.Screen)
    /// A real touchscreen reported a frame (after calibration and rotation).
    case touch(TouchFrame)
    /// The first frame is on the screen: the kiosk has started.
    case firstFrame
    /// The display was lost (DRM master taken away other than by a VT switch), with why.
    case displayLost(reason: String)
    /// Touchscreen `device` went away; `remaining` are still in use (nil when the input does
    /// not count devices).
    case touchscreenLost(device: Int, remaining: Int?)
    /// The touch-test screen opened or closed (`KioskRuntime.openTouchTest`).
    case touchTest(open: Bool)
    /// A contact stayed still past `[input] stuck_after_s` and is out of the game until it lifts.
    case stuckTouch(StuckTouch)
    /// An operator gesture fired: the touch-test screen asked for, or the reset (the kiosk
    /// stops with `ExitStatus.operatorReset` once its observers have seen it).
    case operatorGesture(OperatorGesture)
    /// The display was switched off (`asleep`: the sleep schedule or the idle start screen), or
    /// woke again (a touch, the schedule's end).
    case displaySleep(asleep: Bool)
    /// A round made the high-score table (raised by the score layer once the store committed it).
    case highScore(HighScore)
}

/// A round that made the high-score table, as the score store reported it.
public struct HighScore: Equatable, Sendable {
    public var mode: Round.Mode
    public var score: Int
    /// 1 the best.
    public var rank: Int
    /// The round's row in the score database.
    public var roundID: Int64

    public init(mode: Round.Mode, score: Int, rank: Int, roundID: Int64) {
        self.mode = mode
        self.score = score
        self.rank = rank
        self.roundID = roundID
    }

    /// The `high_score` hook's data: `BUBBLE_MODE`, `BUBBLE_SCORE`, `BUBBLE_RANK`, `BUBBLE_ROUND_ID`.
    public var hookFields: [(String, JSON)] {
        [("mode", .string(mode.rawValue)), ("score", .int(score)), ("rank", .int(rank)), ("round_id", .int(Int(roundID)))]
    }
}
