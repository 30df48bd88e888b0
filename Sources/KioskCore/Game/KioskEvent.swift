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
    /// The first frame is on the screen: the kiosk has started.
    case firstFrame
    /// The display was lost (DRM master taken away other than by a VT switch), with why.
    case displayLost(reason: String)
    /// Touchscreen `device` went away; `remaining` are still in use (nil when the input does
    /// not count devices).
    case touchscreenLost(device: Int, remaining: Int?)
    /// The display was switched off (`asleep`: the sleep schedule or the idle start screen), or
    /// woke again (a touch, the schedule's end).
    case displaySleep(asleep: Bool)
}
