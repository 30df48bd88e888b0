/// What happens in a running kiosk, as its observers see it: the scene's effects first, then
/// sound, hooks, scores and the service manager. Observers run on the loop's thread and must
/// not block a frame: anything slow goes to a queue or a thread of its own.
public enum KioskEvent: Equatable, Sendable {
    /// A rule of the game fired: a pop, a round starting or ending, the idle return, ...
    case game(GameEvent)
    /// The screen changed (start, playing, round over).
    case screen(KioskGame.Screen)
    /// A real touchscreen reported a frame (after calibration and rotation).
    case touch(TouchFrame)
}
