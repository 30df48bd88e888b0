import Glibc
import KioskCore
import KioskLayers
import KioskPlatform

/// The runtime's share of the operator input: the stuck-touch filter and the operator
/// gestures, their timer, and what the reset's log line reports.
struct OperatorState {
    var input: OperatorInput
    let timer: EventLoop.TimerID
    /// Rounds people started since the kiosk started (for the reset's line).
    var rounds = 0
}

/// Stuck and ghost touches, the operator gestures and the operator reset.
extension KioskRuntime {
    /// The contacts the stuck-touch filter drops now, where they are (the touch-test screen marks them).
    public var stuckTouches: [StuckTouch] { operatorState.input.stuckTouches }

    /// Registers what follows reloads and rounds. Called by `start`.
    func startOperator() {
        attach(ClosureLayer(event: { [unowned self] event, _ in
            if case .game(.roundStarted(demo: false)) = event { operatorState.rounds += 1 }
        }, reload: { [unowned self] settings in
            operatorState.input.configure(settings, pxPerMM: session.game.field.pxPerMM)
            armOperator()
        }))
    }

    /// A real device's frame through the stuck-touch filter and the operator gestures; returns
    /// it as the game should see it. The contacts they take are cancelled in the game first.
    func screenOperator(_ frame: TouchFrame) -> TouchFrame {
        let out = operatorState.input.process(frame)
        screenOperator(out, at: frame.time)
        return out.frame ?? frame
    }

    /// A device went away: the operator input forgets its contacts.
    func forgetOperator(device: Int, at time: TimeStamp) {
        operatorState.input.forget(device: device, at: time)
        armOperator()
    }

    func screenOperator(_ out: OperatorInput.Output, at time: TimeStamp) {
        for contact in out.cancelled { emit(session.cancel(contact, at: time), at: time) }
        for stuck in out.stuck {
            log(.warning, "input: stuck touch on \(deviceName(stuck.contact.device)) slot \(stuck.contact.slot) at "
                + "\(millimetres(stuck.position)) mm (\(Int(stuck.position.x.rounded())), \(Int(stuck.position.y.rounded()))) px, "
                + "still for \(Int((stuck.time - stuck.since).inSeconds.rounded())) s; ignored until it lifts")
            notify(.stuckTouch(stuck), at: stuck.time)
        }
        for gesture in out.gestures {
            notify(.operatorGesture(gesture), at: gesture.time)
            if gesture.action == .reset { operatorReset(gesture) }
        }
        armOperator()
    }

    private func armOperator() {
        loop.arm(operatorState.timer, at: operatorState.input.nextDeadline)
    }

    private func operatorReset(_ gesture: OperatorGesture) {
        operatorReset(cause: "\(gesture.kind.rawValue) gesture on \(deviceName(gesture.device))", at: gesture.time)
    }

    /// Who, what, when in one line, then the normal clean exit with status 10.
    func operatorReset(cause: String, at time: TimeStamp) {
        let up = Int((time - started).inSeconds)
        let rounds = operatorState.rounds
        log(.notice, "operator reset: \(cause) at \(displaySleep.wallClock.stamp(at: time)), "
            + "up \(NumberText.duration(seconds: up)), \(rounds) round\(rounds == 1 ? "" : "s") played; "
            + "exiting with status \(ExitStatus.operatorReset.rawValue) for a fresh start")
        exitStatus = .operatorReset
        service.stopping(status: "operator reset")
        loop.stop()
    }

    /// The device by its path and kernel name where the input knows them (`evdev`), else the input's name.
    func deviceName(_ device: Int) -> String {
        if let evdev = input as? EvdevTouchInput, let d = evdev.devices.first(where: { $0.index == device }) {
            return "device \(device) (\(echoed(d.path, limit: 100)) \"\(echoed(d.name, limit: 100))\")"
        }
        return "device \(device) (\(echoed(input.name, limit: 200)))"
    }

    private func millimetres(_ p: Vector2) -> String {
        let mm = p / session.game.field.pxPerMM
        return "(\(NumberText.decimal(mm.x, places: 1)), \(NumberText.decimal(mm.y, places: 1)))"
    }
}
