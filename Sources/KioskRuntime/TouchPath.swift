import KioskCore
import KioskPlatform

/// A frame on its way to the game, as the stages see it.
struct TouchRoute {
    /// The frame in game coordinates, as the game would get it (the operator stage takes its
    /// contacts out of it).
    var frame: TouchFrame
    /// The frame before the operator stage (stuck contacts still in it).
    let unfiltered: TouchFrame
    /// The frame as the panel sent it, before calibration and rotation.
    let panel: TouchFrame?
}

/// One stage of the touch path: it may change the frame, or take it (true) so no later stage
/// sees it, as in a gesture arena.
struct TouchStage {
    let name: String
    let take: (inout TouchRoute) -> Bool
}

/// The way touches take from the panel to the game: the input, the panel-to-game mapping, the
/// touch held back until every finger lifted (the one that woke the display, or was down when
/// the touch-test screen closed), and the ordered stages (operator gestures, wake, held touch,
/// touch test, game).
final class TouchPath {
    let input: TouchInput
    /// Panel coordinates to game coordinates: calibration, then the display's rotation.
    var transform: TouchTransform
    var hold = TouchHold()
    /// The input's next event (a replay's).
    let timer: EventLoop.TimerID
    /// In order; set once the runtime starts.
    var stages: [TouchStage] = []

    init(input: TouchInput, transform: TouchTransform, loop: EventLoop) {
        self.input = input
        self.transform = transform
        timer = loop.addTimer("input")
    }

    /// A frame from the input through the stages until one takes it.
    func route(_ panel: TouchFrame) {
        let frame = transform.apply(panel)
        var route = TouchRoute(frame: frame, unfiltered: frame, panel: panel)
        for stage in stages where stage.take(&route) { return }
    }
}
