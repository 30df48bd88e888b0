import KioskCore
import KioskLayers
import KioskPlatform

/// The touch-test screen and the game: while it is open touches go to it and not to the game;
/// the round in play is given up to the start screen when it opens. It closes by the same
/// operator gesture, or after `[operator] touch_test_timeout_s` without a touch.
/// `TouchTestScreen` owns the screen.
extension KioskRuntime {
    /// Whether the touch-test screen is showing.
    public var isTouchTestOpen: Bool { touchTest.isOpen }

    /// The touch-test screen as it is (tests; nil when closed).
    public var touchTestModel: TouchTestModel? { touchTest.model }

    /// Touch-downs of play since start, per cell (the touch-test screen's heatmap layer).
    public var touchHeatmap: TouchHeatmap { touchTest.heatmap }

    /// The contacts the stuck-touch filter drops now, where they are (the touch-test screen marks them).
    public var stuckTouches: [StuckTouch] { operatorConsole.stuckTouches }

    /// Opens the touch-test screen (nothing when it is open): the round in play is abandoned to
    /// the start screen, and touch frames go to the screen until it closes.
    public func openTouchTest(at time: TimeStamp) {
        guard !touchTest.isOpen else { return }
        emit(session.returnToStart(at: time), at: time)
        touchTest.open(newTouchTestModel(at: time), timeout: settings.operator.touchTestTimeout)
        state.activity.noted(at: time)
        // The screen takes every frame now, the lifts of a held touch too.
        touches.hold.release()
        log(.notice, "touch test open (closes after \(Int(settings.operator.touchTestTimeout.inSeconds.rounded())) s without a touch)")
        notify(.touchTest(open: true), at: time)
    }

    /// Closes the touch-test screen (nothing when it is closed) and shows the start screen.
    public func closeTouchTest(at time: TimeStamp, reason: String = "closed") {
        guard let model = touchTest.close() else { return }
        state.activity.noted(at: time)
        // The fingers still down (the five that closed it) must not tap the start screen.
        touches.hold.hold(devices: model.contacts.map(\.device))
        // The start screen's demo waits its usual time from now.
        emit(session.returnToStart(at: time), at: time)
        log(.notice, "touch test \(reason)")
        notify(.touchTest(open: false), at: time)
    }

    /// Opens the screen when it is closed, closes it when it is open (the operator gesture).
    public func toggleTouchTest(at time: TimeStamp) {
        if touchTest.isOpen { closeTouchTest(at: time) } else { openTouchTest(at: time) }
    }

    /// Marks a contact stuck on the touch-test screen (the stuck-touch filter's finding).
    public func markTouchTestStuck(device: Int, trackingID: Int) {
        touchTest.markStuck(device: device, trackingID: trackingID)
    }

    /// The touch path's touch-test stage: true when the screen is open and took the frame.
    func touchTestTakes(_ route: TouchRoute) -> Bool {
        touchTest.take(route.unfiltered, panel: route.panel, devices: input.touchDevices, stuck: stuckTouches,
                       timeout: settings.operator.touchTestTimeout)
    }

    /// Lets time pass on the screen; false when it is closed (the game's time passes instead).
    /// Closes it when nobody touched it for the timeout.
    func advanceTouchTest(to now: TimeStamp) -> Bool {
        guard touchTest.isOpen else { return false }
        let timeout = settings.operator.touchTestTimeout
        if touchTest.advance(to: now, timeout: timeout) { return true }
        closeTouchTest(at: now, reason: "closed: no touch for \(Int(timeout.inSeconds.rounded())) s")
        return false
    }

    /// The screen for the display as it is now, with the input's devices.
    func newTouchTestModel(at time: TimeStamp) -> TouchTestModel {
        var model = TouchTestModel(screen: display.size, transform: touches.transform, pxPerMM: session.game.field.pxPerMM,
                                   gestures: settings.gestures, at: time)
        model.devices = input.touchDevices
        return model
    }
}
