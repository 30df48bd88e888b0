import Glibc
import KioskCore
import KioskPlatform
import KioskRender

/// Losing the display and getting it back: DRM master taken away, the VT switched; and a
/// display that changed size (a desktop window resized).
extension KioskRuntime {
    func displayLost(_ error: any Error, at now: TimeStamp) {
        log(.error, "\(display.name): \(error); retrying")
        presenter.forgetInputInFlight()
        loop.arm(ownership.retryTimer, at: ownership.lost(at: now))
        notify(.displayLost(reason: "\(error)"), at: now)
    }

    func retryDisplay(at now: TimeStamp) {
        guard case .lost(let since, _) = displayState else { return }
        // Switched away meanwhile: the switch back takes the display again.
        if let console, !console.isActive { return }
        do {
            try display.resume()
            ownership.shown()
            presenter.repaintAll()
            let seconds = ((now - since).inMilliseconds / 100).rounded() / 10
            log(.notice, "display \(display.name) is back after \(seconds) s")
        } catch {
            loop.arm(ownership.retryTimer, at: ownership.retryFailed(at: now))
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
        let field = session.game.field
        var fresh = SceneBuilder(field: field, seed: options.seed)
        fresh.scores = builder.scores
        builder = fresh
        touchTransform = Self.touchTransform(display, settings)
        operatorState.input = OperatorInput(settings: settings, pxPerMM: pxPerMM, screen: size)
        if isTouchTestOpen { touchTest.model = newTouchTestModel(at: now) }
        presenter.repaintAll()
        loop.arm(frameTimer, at: now)
        log(.info, "display \(display.name): now \(size) at \(NumberText.decimal(pxPerMM, places: 2)) px/mm; the game is laid out again")
    }

    // MARK: the VT

    func switchVT(at now: TimeStamp) {
        guard let console else { return }
        switch console.handleSwitchSignal() {
        case .release:
            display.suspend()
            presenter.forgetInputInFlight()
            if console.acknowledgeRelease() {
                ownership.switchedAway()
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
            ownership.shown()
            presenter.repaintAll()
        } catch {
            displayLost(error, at: now)
        }
    }
}
