import KioskCore
import KioskPlatform

/// `bubble-kiosk check-config [FILE]`: validates the config and prints the effective settings.
struct CheckConfigCommand: KioskCommand {
    static let name = "check-config"
    static let usage = """
        usage: bubble-kiosk check-config [FILE] [--example] [--reference markdown|man] [--pot]

        Reads \(ConfigLoader.systemDirectory)/\(ConfigLoader.mainFileName) and then \
        \(ConfigLoader.dropInDirectoryName)/*.conf
        in name order (later files win), or only FILE when given. \(ConfigLoader.directoryVariable)
        replaces \(ConfigLoader.systemDirectory).

        Prints the effective settings as a config file on stdout and exits 0, or every error
        as FILE:LINE: message on stderr and exits 1. Unknown sections and keys, and keys set
        twice in one file, are warnings on stderr. A comment at the top says when the display
        next sleeps and wakes by [display] sleep_schedule, on this machine's clock and zone.

          --example     print an example config: every key commented out with its default
          --reference markdown|man
                        print the reference of every section and key (type and range,
                        default, what it does, when a reload applies it): doc/configuration.md
                        or the man page bubble-kiosk.conf(5), as the source keeps them
          --pot         print the gettext template of every on-screen message, with its
                        [text] key (po/bubble-kiosk.pot, which msgmerge brings po/*.po up to)
        """

    static func run(_ args: ArraySlice<String>) throws -> Int32 {
        let arguments = try Arguments(args, valued: ["config", "reference"], flags: ["example", "pot"])
        if arguments.has("pot") {
            guard arguments.positionals.isEmpty, arguments.value("config") == nil, arguments.value("reference") == nil,
                  !arguments.has("example") else {
                throw UsageError("--pot takes no FILE and no other option")
            }
            Console.out(MessageTemplate.pot())
            return 0
        }
        if let name = arguments.value("reference") {
            guard let format = ConfigReference.Format(rawValue: name) else {
                throw UsageError("--reference takes markdown or man, got '\(echoed(name))'")
            }
            guard arguments.positionals.isEmpty, arguments.value("config") == nil, !arguments.has("example") else {
                throw UsageError("--reference takes no FILE and no --example")
            }
            Console.out(ConfigReference.render(format))
            return 0
        }
        if arguments.has("example") {
            guard arguments.positionals.isEmpty, arguments.value("config") == nil else {
                throw UsageError("--example takes no FILE")
            }
            Console.out(ConfigSchema.standard.renderExample())
            return 0
        }
        // `--config FILE` is accepted too, so the option other commands take works here as well.
        var files = arguments.positionals
        if let file = arguments.value("config") { files.append(file) }
        guard files.count <= 1 else {
            throw UsageError("expected at most one FILE, got \(files.count)")
        }

        let result = ConfigLoader.load(configPath: files.first)
        for diagnostic in result.diagnostics {
            Console.errorLine(diagnostic.description)
        }
        if result.hasErrors { return 1 }
        Console.out(header(result, explicitFile: files.first) + "\n" + ConfigSchema.standard.render(result.settings))
        return 0
    }

    /// A comment naming the sources, so a pasted copy still says where it came from, and when
    /// the schedule next puts the display to sleep.
    private static func header(_ result: ConfigResult, explicitFile: String?) -> String {
        let outlook = "# \(scheduleLine(result.settings))\n"
        if result.files.isEmpty {
            return "# Effective bubble-kiosk settings: built-in defaults (no config files in \(ConfigLoader.directory()))\n"
                + outlook
        }
        let list = result.files.map { "#   \($0)\n" }.joined()
        return "# Effective bubble-kiosk settings: built-in defaults, overridden by\n" + list + outlook
    }

    /// `display sleep by the schedule: next Mon 2026-12-07 22:00 CET until ...`, on the
    /// machine's clock (`devices` prints it too).
    static func scheduleLine(_ settings: Settings) -> String {
        "display sleep by the schedule: " + settings.display.sleepSchedule.outlook(at: SystemWallClock.now(), clock: SystemWallClock())
    }
}
