import KioskCore
import KioskPlatform

/// The kiosk's own upgrade: watches the directory of its program file, notes when a new file
/// took the program's place (`InstalledProgram`), and keeps the one timer for
/// `UpdateRestartPolicy`'s next look. What the restart means for the rest (the log lines, the
/// exit) is the runtime's (`KioskRuntime+Update.swift`).
final class UpdateRestart {
    /// The program watched; nil watches nothing (not under a service manager, which alone would
    /// start the new program after the exit).
    private let program: InstalledProgram?
    private var notifications: FileNotifications?
    /// The one timer for the policy's next look ("update-restart"); its firing only wakes the
    /// loop: the iteration's work looks again.
    private let timer: EventLoop.TimerID
    private let loop: EventLoop
    /// When the new file came and last changed; nil until one did.
    private(set) var arrival: UpdateRestartPolicy.Arrival?
    /// The restart was decided: the kiosk exits with `ExitStatus.updated`.
    private(set) var restartAsked = false
    /// A new file came, at `path` (said once; later changes to it only move `arrival`).
    var arrived: (_ path: String) -> Void = { _ in }

    init(loop: EventLoop, program: InstalledProgram?) {
        self.loop = loop
        self.program = program
        timer = loop.addTimer("update-restart")
    }

    /// Watches the program's directory. A program replaced before this (between the exec and
    /// now) counts as arriving now.
    func start(at now: TimeStamp, log: Logger) {
        guard let program else { return }
        let (directory, name) = program.directoryAndName
        do {
            let watch = try FileNotifications(directory, loop: loop, log: log) { [unowned self] notices in
                // A file renamed over it (dpkg, strip) or written in its place (install); lost
                // notices may have hidden either.
                let touched = notices.contains {
                    $0.events.contains(.overflow) || ($0.name == name && !$0.events.isDisjoint(with: [.movedIn, .closedAfterWrite]))
                }
                if touched { look(at: loop.now) }
            }
            _ = try watch.add(directory, for: [.movedIn, .closedAfterWrite, .onlyDirectory])
            notifications = watch
        } catch {
            log(.warning, "cannot watch \(echoed(directory, limit: 200)) for a new bubble-kiosk binary: \(error); "
                + "an upgrade takes effect at the next restart")
        }
        look(at: now)
    }

    /// The file at the program's path is compared with the running one: a touch, or the same
    /// file written again, is no new program.
    private func look(at now: TimeStamp) {
        guard let program, program.isReplaced else { return }
        if arrival == nil {
            arrival = UpdateRestartPolicy.Arrival(first: now, latest: now)
            arrived(program.path)
        } else {
            arrival?.changed(at: now)
        }
    }

    /// The policy's moment to restart, or nil with the timer armed for its next look; nil too
    /// while no new file came.
    func decide(_ policy: UpdateRestartPolicy, _ facts: UpdateRestartPolicy.Facts,
                at now: TimeStamp) -> UpdateRestartPolicy.Moment? {
        guard let arrival, !restartAsked else { return nil }
        switch policy.decide(arrival, facts, at: now) {
        case .restart(let moment):
            loop.arm(timer, at: nil)
            return moment
        case .wait(let recheck):
            loop.arm(timer, at: recheck)
            return nil
        }
    }

    func askRestart() { restartAsked = true }
}
