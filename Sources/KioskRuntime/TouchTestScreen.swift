import KioskCore
import KioskPlatform
import KioskRender

/// The touch-test screen (issue 11): an installer sees every contact with its device, slot,
/// tracking id, game and panel position and pressure, trails, the recognised gestures, the
/// devices and a grid with the edge margin, so it shows at once whether touch lines up with the
/// picture. It owns the screen's model while open, its timer (the timeout and long presses), and
/// the heatmap of the touch-downs of play since start that it shows. Opening and closing it, and
/// what that does to the game, is the runtime's (`KioskRuntime+TouchTest.swift`).
public final class TouchTestScreen {
    /// The screen while it is open.
    public private(set) var model: TouchTestModel?
    /// Touch-downs of play since start (the touch test's own touches are not play).
    public private(set) var heatmap = TouchHeatmap()
    private var downs = TouchDownTracker()
    /// The words of its header and labels, in the kiosk's language.
    var words = MessageCatalogue.english
    /// Wakes the loop for the timeout and for long presses on the screen.
    private let timer: EventLoop.TimerID
    private let loop: EventLoop

    init(loop: EventLoop) {
        self.loop = loop
        timer = loop.addTimer("touch-test")
    }

    public var isOpen: Bool { model != nil }

    func open(_ fresh: TouchTestModel, timeout: Duration) {
        model = fresh
        arm(timeout: timeout)
    }

    /// The open screen laid out anew (the display changed size); nothing when it is closed.
    func relayout(_ fresh: TouchTestModel) {
        if model != nil { model = fresh }
    }

    /// Closes it; returns the screen as it was (nil when it was closed).
    func close() -> TouchTestModel? {
        defer {
            model = nil
            loop.arm(timer, at: nil)
        }
        return model
    }

    /// A frame before the operator input (stuck contacts still in it) and as the panel sent it:
    /// true when the screen is open and took it. Stuck contacts are shown, marked: the installer
    /// sees the drop of water.
    func take(_ unfiltered: TouchFrame, panel: TouchFrame?, devices: [TouchTestDevice], stuck: [StuckTouch],
              timeout: Duration) -> Bool {
        guard var screen = model else { return false }
        screen.devices = devices
        screen.process(unfiltered, panel: panel)
        for t in stuck where t.contact.device == unfiltered.device {
            screen.markStuck(device: t.contact.device, trackingID: t.contact.trackingID)
        }
        model = screen
        arm(timeout: timeout)
        return true
    }

    /// The touch-downs of a frame the game gets, into the heatmap.
    func countTouchDowns(_ frame: TouchFrame, on size: PixelSize) {
        for p in downs.newContacts(in: frame) { heatmap.add(p.position, in: size) }
    }

    /// A touchscreen went away: its contacts leave the screen.
    func deviceLost(_ device: Int, at time: TimeStamp, devices: [TouchTestDevice]) {
        downs.forget(device: device)
        model?.cancel(device: device, at: time)
        model?.devices = devices
    }

    /// Marks a contact stuck (the stuck-touch filter's finding).
    func markStuck(device: Int, trackingID: Int) {
        model?.markStuck(device: device, trackingID: trackingID)
    }

    /// A reload's `[gestures]` and calibration, or a display of another size.
    func configure(_ gestures: GestureSettings, transform: TouchTransform) {
        model?.configure(gestures, transform: transform)
    }

    /// Lets time pass on the open screen. False when nobody touched it for `timeout` (the
    /// runtime closes it); true otherwise, closed or not.
    func advance(to now: TimeStamp, timeout: Duration) -> Bool {
        guard var screen = model else { return true }
        if now >= screen.lastTouch + timeout { return false }
        screen.advance(to: now)
        model = screen
        arm(timeout: timeout)
        return true
    }

    /// The screen's scene, or nil when it is closed.
    func scene(timeout: Duration, at now: TimeStamp) -> Scene? {
        model.map { TouchTestScene.scene($0, heatmap: heatmap, timeout: timeout, words: words, at: now) }
    }

    /// When the open screen's picture next changes by itself.
    func nextChange(at now: TimeStamp) -> TimeStamp? { model?.nextChange(at: now) }

    /// The timeout after the last touch, or a long press's next step, whichever comes first.
    private func arm(timeout: Duration) {
        guard let screen = model else { return }
        loop.arm(timer, at: [screen.lastTouch + timeout, screen.nextDeadline].compactMap { $0 }.min())
    }
}
