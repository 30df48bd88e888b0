/// Writes an evemu recording that plays a round as a person would: taps the Start button, then
/// pops bubbles one after the other (taps for tap bubbles, a swipe along the arrow for swipe
/// bubbles, a drag into the goal for drag bubbles). For replays, demos, and driving a real touchscreen through uinput in tests.
public struct RoundRecording: Sendable {
    /// Maps game positions onto the panel, for screens mounted rotated.
    public var transform: TouchTransform
    /// Where the Start button is, in game coordinates; nil to leave it out.
    public var startButton: Vector2?
    /// Time of the first touch from the recording's start.
    public var start = Duration.milliseconds(500)

    public init(transform: TouchTransform, startButton: Vector2?) {
        self.transform = transform
        self.startButton = startButton
    }

    /// The recording text; `bubbles` are popped in order, `limit` caps how many.
    public func text(popping bubbles: [Bubble], limit: Int? = nil, swipeLengthPx: Double, goal: Rect? = nil) -> String {
        var builder = RecordingBuilder(screen: transform.native)
        var t = start
        if let button = startButton {
            builder.tap(at: transform.panelPosition(ofGame: button), start: t)
            t += .milliseconds(700)  // let the round appear
        }
        let live = bubbles.filter { !$0.isPopped }
        for b in live.prefix(limit ?? live.count) {
            for (from, to) in b.poppingStrokes(swipeLength: swipeLengthPx, goal: goal) {
                if case .drag = b.kind {
                    // Carried at a walking pace and held still a moment before the lift.
                    builder.drag(from: transform.panelPosition(ofGame: from), to: transform.panelPosition(ofGame: to),
                                 start: t, duration: .milliseconds(450), pause: .milliseconds(120))
                    t += .milliseconds(850)
                } else if from == to {
                    builder.tap(at: transform.panelPosition(ofGame: from), start: t)
                    t += .milliseconds(150)
                } else {
                    builder.swipe(from: transform.panelPosition(ofGame: from), to: transform.panelPosition(ofGame: to),
                                  start: t, duration: .milliseconds(90))
                    t += .milliseconds(350)
                }
            }
            if case .tap = b.kind { t += .milliseconds(250) }
        }
        return builder.text()
    }
}
