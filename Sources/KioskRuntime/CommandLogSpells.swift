import KioskCore
import KioskPlatform

/// The log lines of commands from afar, folded into spells (`LogSpells`): a dashboard slider
/// dragged or an automation in a loop logs its first command's lines and then one summary per
/// spell, not a line per command. The summaries come from a timer of its own.
final class CommandLogSpells {
    struct Line: Sendable {
        let level: Console.Level
        let text: String
    }

    private var spells = LogSpells<String, Line>()
    /// The spell whose command is being carried out now; its lines are held or let through.
    private var current: String?
    private let loop: EventLoop
    private let timer: EventLoop.TimerID
    /// Where the summaries go (the runtime's logger, set once the runtime is whole).
    var emit: (Console.Level, String) -> Void = { _, _ in }

    init(loop: EventLoop) {
        self.loop = loop
        timer = loop.addTimer("log-spells")
        loop.onFire(timer) { [unowned self] now in
            spells.due(at: now).forEach(summarise)
            loop.arm(timer, at: spells.nextDeadline)
        }
    }

    /// Carries out `body` (one command) as an event of the spell `key`, or, with `newEvent`
    /// false, as the later part of the latest one (a screenshot's result).
    func during(_ key: String, newEvent: Bool, _ body: () -> Void) {
        if newEvent, let owed = spells.event(key, at: loop.now) { summarise(owed) }
        let outer = current
        current = key
        defer {
            current = outer
            loop.arm(timer, at: spells.nextDeadline)
        }
        body()
    }

    /// True when the line belongs to a command whose spell holds it back.
    func holds(_ level: Console.Level, _ text: String) -> Bool {
        guard let key = current else { return false }
        return !spells.line(key, Line(level: level, text: text), at: loop.now)
    }

    private func summarise(_ summary: LogSpells<String, Line>.Summary) {
        let span = NumberText.plain((summary.span.inSeconds * 10).rounded() / 10)
        emit(summary.last.level, summary.last.text + " [the last of \(summary.count) line\(summary.count == 1 ? "" : "s") "
             + "from repeated \(summary.key) commands over \(span) s]")
    }
}
