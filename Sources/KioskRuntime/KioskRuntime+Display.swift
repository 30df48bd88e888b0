import Glibc
import KioskCore
import KioskPlatform
import KioskRender

/// Losing the display and getting it back: DRM master taken away, the VT switched; screens
/// unplugged and plugged; a display that changed size (a desktop window resized, another
/// monitor became main); and the watchdog that wants frames to reach the screen.
extension KioskRuntime {
    /// While no screen is connected, how often the connectors are probed besides the hotplug
    /// events (which a sandbox without netlink never sees), and without them.
    static let screenProbePeriod = Duration.seconds(30)
    static let screenProbePeriodWithoutEvents = Duration.seconds(5)

    /// Screens came or went: everything is painted again (the modes were set anew); with none
    /// left the kiosk waits, and the game goes on meanwhile.
    func screensChanged(at now: TimeStamp) {
        stage.presenter.repaintAll()
        if display.screenCount == 0 {
            waitForScreen(at: now)
        } else {
            loop.arm(stage.screenProbeTimer, at: nil)
            if let since = stage.screenWaitSince {
                stage.screenWaitSince = nil
                log(.notice, "display \(display.name): a screen after \(NumberText.decimal((now - since).inSeconds, places: 1)) s of waiting")
            }
        }
        loop.arm(stage.frameTimer, at: now)
        reportStatus()
    }

    /// No screen: said once per spell (the log, STATUS=, the metrics), and the connectors are
    /// probed now and then. Waiting is running as intended, so systemd hears READY=1 now.
    func waitForScreen(at now: TimeStamp) {
        if stage.screenWaitSince == nil {
            stage.screenWaitSince = now
            log(.warning, "no screen connected: waiting for a display; the game goes on")
            updateOnScreen()
            reporter.service.ready(status: serviceStatus)
        }
        let period = display.seesHotplug ? Self.screenProbePeriod : Self.screenProbePeriodWithoutEvents
        loop.arm(stage.screenProbeTimer, at: now + period)
    }

    func probeForScreens(at now: TimeStamp) {
        guard display.screenCount == 0 else { return }
        // Calls `screensChanged`, which arms the next probe while none is found.
        display.probeScreens()
    }

    /// The watchdog's keep-alive, sent only while handed-over frames reach the screen (or none
    /// is owed): a display that stopped completing flips gets the kiosk restarted.
    func keepAliveIfFramesShow(at now: TimeStamp) {
        if stage.presenter.delivery.isHealthy(at: now) {
            reporter.service.keepAlive()
        } else if stage.presenter.noteStuck(at: now) {
            log(.error, "display \(display.name): no frame reached the screen for \(Int(FrameDelivery.stuckAfter.inSeconds)) s; "
                + "no more watchdog keep-alives, so the service manager restarts the kiosk if it stays stuck")
        }
    }

    func displayLost(_ error: any Error, at now: TimeStamp) {
        log(.error, "\(display.name): \(error); retrying")
        stage.presenter.forgetInputInFlight()
        loop.arm(stage.ownership.retryTimer, at: stage.ownership.lost(at: now))
        notify(.displayLost(reason: "\(error)"), at: now)
    }

    func retryDisplay(at now: TimeStamp) {
        guard case .lost(let since, _) = displayState else { return }
        // Switched away meanwhile: the switch back takes the display again.
        if let console = stage.console, !console.isActive { return }
        do {
            try display.resume()
            stage.ownership.shown()
            stage.presenter.repaintAll()
            let seconds = ((now - since).inMilliseconds / 100).rounded() / 10
            log(.notice, "display \(display.name) is back after \(seconds) s")
        } catch {
            loop.arm(stage.ownership.retryTimer, at: stage.ownership.retryFailed(at: now))
        }
    }

    /// The display is another size now: the game, the touch mapping, the operator corners and
    /// the touch-test screen are laid out for it (the round in play is given up: see
    /// `KioskSession.relayout`), and the next frame is drawn whole. The density is asked again,
    /// as a window may have moved to another monitor.
    func displayResized(at now: TimeStamp) {
        let size = display.size
        let pxPerMM = Self.pxPerMM(display, settings)
        emit(session.relayout(for: size, pxPerMM: pxPerMM, at: now), at: now)
        stage.relayout(field: session.game.field, seed: options.seed)
        touches.transform = Self.touchTransform(display, settings, input)
        operatorConsole.relayout(settings, pxPerMM: pxPerMM, screen: size)
        if touchTest.isOpen { touchTest.relayout(newTouchTestModel(at: now)) }
        stage.presenter.repaintAll()
        loop.arm(stage.frameTimer, at: now)
        log(.info, "display \(display.name): now \(size) at \(NumberText.decimal(pxPerMM, places: 2)) px/mm; the game is laid out again")
    }

    // MARK: the VT

    func switchVT(at now: TimeStamp) {
        guard let console = stage.console else { return }
        switch console.handleSwitchSignal() {
        case .release:
            display.suspend()
            stage.presenter.forgetInputInFlight()
            if console.acknowledgeRelease() {
                stage.ownership.switchedAway()
                log(.info, "VT switched away: display released, the game goes on")
            } else {
                // No switch was pending (a stray signal): the screen is still ours.
                takeDisplayBack(at: now)
            }
        case .acquire:
            console.acknowledgeAcquire()
            log(.info, "VT back: taking the display again")
            takeDisplayBack(at: now)
        }
    }

    func takeDisplayBack(at now: TimeStamp) {
        do {
            try display.resume()
            stage.ownership.shown()
            stage.presenter.repaintAll()
        } catch {
            displayLost(error, at: now)
        }
    }
}
