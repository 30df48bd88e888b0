import KioskCore
import KioskLayers
import KioskPlatform

/// What fleet control (`FleetLayer`, for an operator far away) may ask of the kiosk: the same
/// actions a person at the screen, a signal or the sleep schedule can take, said in the log
/// with who asked.
extension KioskRuntime {
    public var game: KioskGame { session.game }
    public var fleetScreen: FleetState.Screen { onScreen.fleetScreen }
    public var startTime: TimeStamp { started }

    /// Off: the display sleeps until a touch or `on` (past any schedule's end). On: it wakes, as
    /// after a touch (so a sleep schedule puts it back to sleep a minute later).
    public func switchDisplay(on: Bool, by who: String) {
        let now = loop.now
        if on {
            wake(at: now, why: "switched on by \(who)")
            return
        }
        if displaySleep.reason == .remote { return }
        if isTouchTestOpen { closeTouchTest(at: now, reason: "the display was switched off by \(who)") }
        if isAsleep {
            // Already dark (schedule, idle): stays so until switched on, not until the schedule ends.
            displaySleep.reason = .remote
            log(.info, "\(Self.asleep(.remote)): switched off by \(who) while asleep")
            reportStatus()
            return
        }
        log(.info, "display switched off by \(who)")
        fallAsleep(.remote, at: now, recheck: nil)
    }

    /// Opens or closes the touch-test screen (a sleeping display wakes for it).
    public func switchTouchTest(open: Bool, by who: String) {
        let now = loop.now
        if open {
            guard !isTouchTestOpen else { return }
            wake(at: now, why: "the touch test was opened by \(who)")
            openTouchTest(at: now)
        } else if isTouchTestOpen {
            closeTouchTest(at: now, reason: "closed by \(who)")
        }
    }

    /// The operator reset from afar: the same line and exit status as the gesture's.
    public func resetForOperator(by who: String) {
        operatorReset(cause: who, at: loop.now)
    }

    public func screenSnapshot() -> PixelBuffer { display.snapshot() }
}

extension OnScreen {
    /// The `screen` field of fleet control's state: what a person in front of the kiosk sees.
    public var fleetScreen: FleetState.Screen {
        switch self {
        case .noScreen, .displayLost, .switchedAway: return .noDisplay
        case .asleep: return .asleep
        case .touchTest: return .touchTest
        case .game(.start): return .start
        case .game(.playing(demo: true)): return .demo
        case .game(.playing(demo: false)): return .playing
        case .game(.roundOver): return .roundOver
        }
    }
}
