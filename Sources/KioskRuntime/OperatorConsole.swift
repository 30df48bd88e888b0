import KioskCore
import KioskPlatform

/// The operator's share of the touch path: the stuck-touch filter and the operator gestures
/// (`OperatorInput`), their timer, and whether the operator reset was asked for. What the
/// runtime does with their findings (contacts taken from the game, a stuck touch said, a
/// gesture announced) goes through `found`.
final class OperatorConsole {
    private var input: OperatorInput
    private let timer: EventLoop.TimerID
    private let loop: EventLoop
    /// The operator reset was asked for (a gesture, a command from afar): the kiosk exits with
    /// `ExitStatus.operatorReset`.
    private(set) var resetAsked = false
    /// What the filter and the detector found in a frame or as time passed.
    var found: (OperatorInput.Output, TimeStamp) -> Void = { _, _ in }

    init(loop: EventLoop, input: OperatorInput) {
        self.loop = loop
        self.input = input
        timer = loop.addTimer("operator")
        loop.onFire(timer) { [unowned self] now in
            let out = self.input.advance(to: now)
            report(out, at: now)
        }
    }

    /// The contacts the stuck-touch filter drops now, where they are.
    var stuckTouches: [StuckTouch] { input.stuckTouches }

    /// A real device's frame through the filter and the gestures; returns it as the game should
    /// see it (their contacts are cancelled in the game first, through `found`).
    func screen(_ frame: TouchFrame) -> TouchFrame {
        let out = input.process(frame)
        report(out, at: frame.time)
        return out.frame ?? frame
    }

    /// A device went away: its contacts are forgotten.
    func forget(device: Int, at time: TimeStamp) {
        input.forget(device: device, at: time)
        arm()
    }

    /// A reload's `[operator]`, `[input]` and `[gestures]`.
    func configure(_ settings: Settings, pxPerMM: Double) {
        input.configure(settings, pxPerMM: pxPerMM)
        arm()
    }

    /// A display of another size: the corners are where its corners are.
    func relayout(_ settings: Settings, pxPerMM: Double, screen: PixelSize) {
        input = OperatorInput(settings: settings, pxPerMM: pxPerMM, screen: screen)
        arm()
    }

    func askReset() { resetAsked = true }

    private func report(_ out: OperatorInput.Output, at time: TimeStamp) {
        found(out, time)
        arm()
    }

    private func arm() { loop.arm(timer, at: input.nextDeadline) }
}
