import KioskCore
import KioskLayers
import KioskPlatform

/// The touch-test screen's state in the runtime, and the heatmap of touches since start.
final class TouchTestState {
    /// The screen while it is open.
    var model: TouchTestModel?
    /// Touch-downs of play since start (the touch test's own touches are not play).
    var heatmap = TouchHeatmap()
    var downs = TouchDownTracker()
    /// Wakes the loop for the timeout and for long presses on the screen.
    let timer: EventLoop.TimerID

    init(timer: EventLoop.TimerID) { self.timer = timer }
}

/// The touch-test screen (issue 11): an installer sees every contact with its device, slot,
/// tracking id, game and panel position and pressure, trails, the recognised gestures, the
/// devices and a grid with the edge margin, so it shows at once whether touch lines up with the
/// picture. While it is open touches go to it and not to the game; the round in play is given up
/// to the start screen when it opens. It closes by the same operator gesture, or after
/// `[operator] touch_test_timeout_s` without a touch.
extension KioskRuntime {
    /// Whether the touch-test screen is showing.
    public var isTouchTestOpen: Bool { touchTest.model != nil }

    /// The touch-test screen as it is (tests; nil when closed).
    public var touchTestModel: TouchTestModel? { touchTest.model }

    /// Touch-downs of play since start, per cell (the touch-test screen's heatmap layer).
    public var touchHeatmap: TouchHeatmap { touchTest.heatmap }

    /// Opens the touch-test screen (nothing when it is open): the round in play is abandoned to
    /// the start screen, and touch frames go to the screen until it closes.
    public func openTouchTest(at time: TimeStamp) {
        guard touchTest.model == nil else { return }
        emit(session.returnToStart(at: time), at: time)
        touchTest.model = newTouchTestModel(at: time)
        // The screen takes every frame now, the lifts of a held touch too.
        touchHold.release()
        log(.notice, "touch test open (closes after \(Int(settings.operator.touchTestTimeout.inSeconds.rounded())) s without a touch)")
        notify(.touchTest(open: true), at: time)
        armTouchTestTimer()
    }

    /// Closes the touch-test screen (nothing when it is closed) and shows the start screen.
    public func closeTouchTest(at time: TimeStamp, reason: String = "closed") {
        guard let model = touchTest.model else { return }
        touchTest.model = nil
        // The fingers still down (the five that closed it) must not tap the start screen.
        touchHold.hold(devices: model.contacts.map(\.device))
        loop.arm(touchTest.timer, at: nil)
        // The start screen's demo waits its usual time from now.
        emit(session.returnToStart(at: time), at: time)
        log(.notice, "touch test \(reason)")
        notify(.touchTest(open: false), at: time)
    }

    /// Opens the screen when it is closed, closes it when it is open (the operator gesture).
    public func toggleTouchTest(at time: TimeStamp) {
        if isTouchTestOpen { closeTouchTest(at: time) } else { openTouchTest(at: time) }
    }

    /// Marks a contact stuck on the touch-test screen (the stuck-touch filter's finding).
    public func markTouchTestStuck(device: Int, trackingID: Int) {
        touchTest.model?.markStuck(device: device, trackingID: trackingID)
    }

    /// The operator gestures open and close the screen; stuck contacts are marked on it; a
    /// reload's `[gestures]` and calibration reach it. Called by `start`, after the operator input.
    func followOperatorGestures() {
        attach(ClosureLayer(event: { [unowned self] event, facts in
            switch event {
            case .operatorGesture(let g) where g.action == .touchTest: toggleTouchTest(at: facts.time)
            case .stuckTouch(let t): markTouchTestStuck(device: t.contact.device, trackingID: t.contact.trackingID)
            default: break
            }
        }, reload: { [unowned self] settings in touchTest.model?.configure(settings.gestures, transform: touchTransform) }))
    }

    /// Called in `deliver` with the frame before the operator input (stuck contacts still in
    /// it) and as the panel sent it: true when the touch-test screen is open and took it.
    func touchTestTakes(_ unfiltered: TouchFrame, panel: TouchFrame?) -> Bool {
        guard var model = touchTest.model else { return false }
        model.devices = input.touchDevices
        // The screen shows stuck contacts too, marked: the installer sees the drop of water.
        model.process(unfiltered, panel: panel)
        for t in stuckTouches where t.contact.device == unfiltered.device {
            model.markStuck(device: t.contact.device, trackingID: t.contact.trackingID)
        }
        touchTest.model = model
        armTouchTestTimer()
        return true
    }

    /// The touch-downs of a frame the game gets, into the heatmap.
    func countTouchDowns(_ frame: TouchFrame) {
        for p in touchTest.downs.newContacts(in: frame) { touchTest.heatmap.add(p.position, in: display.size) }
    }

    /// A touchscreen went away: its contacts leave the screen.
    func touchTestDeviceLost(_ device: Int, at time: TimeStamp) {
        touchTest.downs.forget(device: device)
        touchTest.model?.cancel(device: device, at: time)
        touchTest.model?.devices = input.touchDevices
    }

    /// Lets time pass on the screen; false when it is closed (the game's time passes instead).
    /// Closes it when nobody touched it for the timeout.
    func advanceTouchTest(to now: TimeStamp) -> Bool {
        guard var model = touchTest.model else { return false }
        if now >= touchTestTimeout(model) {
            closeTouchTest(at: now, reason: "closed: no touch for \(Int(settings.operator.touchTestTimeout.inSeconds.rounded())) s")
            return false
        }
        model.advance(to: now)
        touchTest.model = model
        armTouchTestTimer()
        return true
    }

    /// The touch-test screen's scene, or nil when it is closed.
    func touchTestScene(at now: TimeStamp) -> Scene? {
        touchTest.model.map {
            TouchTestScene.scene($0, heatmap: touchTest.heatmap, timeout: settings.operator.touchTestTimeout, at: now)
        }
    }

    /// When the picture next changes by itself: the touch-test screen's, else the game's.
    func nextPictureChange(at now: TimeStamp) -> TimeStamp? {
        if let model = touchTest.model { return model.nextChange(at: now) }
        return builder.nextChange(session.game, at: now)
    }

    /// The screen for the display as it is now, with the input's devices.
    func newTouchTestModel(at time: TimeStamp) -> TouchTestModel {
        var model = TouchTestModel(screen: display.size, transform: touchTransform, pxPerMM: session.game.field.pxPerMM,
                                   gestures: settings.gestures, at: time)
        model.devices = input.touchDevices
        return model
    }

    /// When the open screen closes by itself: `[operator] touch_test_timeout_s` after the last touch.
    private func touchTestTimeout(_ model: TouchTestModel) -> TimeStamp {
        model.lastTouch + settings.operator.touchTestTimeout
    }

    private func armTouchTestTimer() {
        guard let model = touchTest.model else { return }
        loop.arm(touchTest.timer, at: [touchTestTimeout(model), model.nextDeadline].compactMap { $0 }.min())
    }
}
