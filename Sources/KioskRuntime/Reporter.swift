import KioskCore
import KioskPlatform

/// Where the kiosk's words go: the log (the lines of repeated commands from afar folded into
/// spells), the status and stats lines, and the service manager (`ServiceReporter`).
final class Reporter {
    /// Where log lines go (standard error, with journal levels, unless a test listens).
    var logger: Logger
    /// Where status and stats lines go (standard output unless a test listens).
    var output: (String) -> Void = { Console.line($0) }
    var service: ServiceReporter
    private let spells: CommandLogSpells

    init(logger: Logger, notifier: ServiceNotifier?, loop: EventLoop) {
        self.logger = logger
        service = ServiceReporter(notifier: notifier)
        spells = CommandLogSpells(loop: loop)
        spells.emit = { [unowned self] level, text in self.logger(level, text) }
    }

    func log(_ level: Console.Level, _ message: String) {
        if spells.holds(level, message) { return }
        logger(level, message)
    }

    func logging(spell key: String, newEvent: Bool, _ body: () -> Void) {
        spells.during(key, newEvent: newEvent, body)
    }
}
