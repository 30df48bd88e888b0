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
}
