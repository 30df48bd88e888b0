import KioskCore
import KioskPlatform
import KioskRender

/// The display the kiosk draws on and whether it may: the frames (`Presenter`), the scenes
/// (`SceneBuilder`), the VT and DRM master (`DisplayOwnership`), screens coming and going, and
/// the timers for the next frame and the next look for a screen. What losing and getting back
/// the display does to the rest is the runtime's (`KioskRuntime+Display.swift`).
final class DisplayStage {
    let display: Display
    /// Frames to the display: pacing, damage, frame times and latency.
    let presenter: Presenter
    /// The game's scenes (and the high-score lists they show).
    var scenes: SceneBuilder
    /// Whether the kiosk may draw, and the lost display's retries.
    var ownership: DisplayOwnership
    /// The VT the kiosk owns, when it runs on one.
    let console: ConsoleOwner?
    /// Since when no screen has been connected (nil while one is).
    var screenWaitSince: TimeStamp?
    /// The next frame; and, while no screen is connected, the next look in case a hotplug
    /// event was missed.
    let frameTimer: EventLoop.TimerID
    let screenProbeTimer: EventLoop.TimerID
    /// The loop watching the display's descriptors.
    var watches: [LoopRegistration] = []
    /// How far the game's picture on the screen is moved against burn-in (`PixelShift`): the
    /// offset of the last game frame presented, which touches follow.
    var shownOffset = PixelOffset.zero

    init(display: Display, console: ConsoleOwner?, field: PlayField, loop: EventLoop, seed: UInt64, frameInterval: Duration) {
        self.display = display
        self.console = console
        presenter = Presenter(size: display.size, frameInterval: frameInterval)
        scenes = SceneBuilder(field: field, seed: seed)
        ownership = DisplayOwnership(retryTimer: loop.addTimer("display-retry"))
        frameTimer = loop.addTimer("frame")
        screenProbeTimer = loop.addTimer("screen-probe")
    }

    /// The display is the kiosk's and a screen is connected: frames can be shown.
    var mayDraw: Bool { ownership.state == .showing && display.screenCount > 0 }

    /// What can be shown, before the sleep, the touch test and the game are asked.
    var blocked: OnScreen? {
        if display.screenCount == 0 { return .noScreen }
        switch ownership.state {
        case .lost: return .displayLost
        case .switchedAway: return .switchedAway
        case .showing: return nil
        }
    }

    /// A new layout (the display changed size): fresh scenes that keep the high-score lists.
    func relayout(field: PlayField, seed: UInt64) {
        var fresh = SceneBuilder(field: field, seed: seed)
        fresh.scores = scenes.scores
        fresh.words = scenes.words
        fresh.logoSize = scenes.logoSize
        scenes = fresh
    }
}
