import Glibc
import KioskCore
import KioskLayers
import KioskPlatform

/// Stuck and ghost touches, the operator gestures and the operator reset: what the operator
/// console's findings do to the game, the log and the layers.
extension KioskRuntime {
    /// The contacts the console took are cancelled in the game, stuck ones said and announced,
    /// gestures announced and carried out.
    func operatorFound(_ out: OperatorInput.Output, at time: TimeStamp) {
        for contact in out.cancelled { emit(session.cancel(contact, at: time), at: time) }
        for stuck in out.stuck {
            log(.warning, "input: stuck touch on \(deviceName(stuck.contact.device)) slot \(stuck.contact.slot) at "
                + "\(millimetres(stuck.position)) mm (\(Int(stuck.position.x.rounded())), \(Int(stuck.position.y.rounded()))) px, "
                + "still for \(Int((stuck.time - stuck.since).inSeconds.rounded())) s; ignored until it lifts")
            notify(.stuckTouch(stuck), at: stuck.time)
            markTouchTestStuck(device: stuck.contact.device, trackingID: stuck.contact.trackingID)
        }
        for gesture in out.gestures {
            notify(.operatorGesture(gesture), at: gesture.time)
            switch gesture.action {
            case .touchTest: toggleTouchTest(at: gesture.time)
            case .reset: operatorReset(cause: "\(gesture.kind.rawValue) gesture on \(deviceName(gesture.device))", at: gesture.time)
            }
        }
    }

    /// Who, what, when in one line, then the normal clean exit with status 10.
    func operatorReset(cause: String, at time: TimeStamp) {
        let up = Int((time - state.started).inSeconds)
        let rounds = state.rounds
        log(.notice, "operator reset: \(cause) at \(wallClock.stamp(at: time)), "
            + "up \(NumberText.duration(seconds: up)), \(rounds) round\(rounds == 1 ? "" : "s") played; "
            + "exiting with status \(ExitStatus.operatorReset.rawValue) for a fresh start")
        operatorConsole.askReset()
        reporter.service.stopping(status: "operator reset")
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
