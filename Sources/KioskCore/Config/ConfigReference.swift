/// The configuration reference, made from the key table: `doc/configuration.md` and the man
/// page `bubble-kiosk.conf(5)` (`bubble-kiosk check-config --reference markdown|man`), so
/// neither can describe a key the kiosk does not take, or miss one it does.
public enum ConfigReference {
    /// The two shapes the reference is written in.
    public enum Format: String, CaseIterable, Sendable {
        case markdown, man
    }

    /// The whole reference in `format`. The man page keeps `@VERSION@` for `make install` to fill in.
    public static func render(_ format: Format, schema: ConfigSchema = .standard, defaults: Settings = Settings()) -> String {
        switch format {
        case .markdown: return markdown(schema, defaults)
        case .man: return man(schema, defaults)
        }
    }

    /// What a section is for, and where the guides explain it (links relative to `doc/`).
    struct SectionNote {
        let summary: String
        let guides: [(title: String, link: String)]
    }

    /// One note per section; a section without one is listed with its keys alone.
    static let notes: [String: SectionNote] = [
        "display": SectionNote(summary: "The screen: its pixel density and rotation, which screens show the game, the shift against burn-in, when it sleeps, its backlight and the TV behind it.",
                               guides: [("On a kiosk: DRM/KMS and evdev", "hardware.md#on-a-kiosk-drmkms-and-evdev"),
                                        ("Screens that come and go", "hardware.md#screens-that-come-and-go"),
                                        ("Against burn-in", "hardware.md#against-burn-in"),
                                        ("Display sleep", "operating.md#display-sleep"),
                                        ("The TV over HDMI-CEC", "hardware.md#the-tv-over-hdmi-cec"),
                                        ("The backlight", "hardware.md#the-backlight")]),
        "input": SectionNote(summary: "Touchscreens: taking them exclusively, calibration, and the filter for stuck touches.",
                             guides: [("On a kiosk: DRM/KMS and evdev", "hardware.md#on-a-kiosk-drmkms-and-evdev"),
                                      ("Stuck touches and the operator gestures", "operating.md#stuck-touches-and-the-operator-gestures")]),
        "gestures": SectionNote(summary: "The thresholds of the gesture recogniser, in millimetres on the glass and milliseconds.",
                                guides: [("Gestures and their defaults", "game.md#gestures-and-their-defaults")]),
        "game": SectionNote(summary: "The classic round's layout and the mix of bubble kinds.",
                            guides: [("Game rules", "game.md#game-rules")]),
        "attract": SectionNote(summary: "The attract demo and the return to the start screen when people walk away.",
                               guides: [("Attract mode and idle return", "game.md#attract-mode-and-idle-return")]),
        "timed": SectionNote(summary: "The timed mode: bubbles keep coming until a countdown ends.",
                             guides: [("Game rules", "game.md#game-rules")]),
        "score": SectionNote(summary: "The points (also under `[scoring]`, with the same names).",
                             guides: [("Game rules", "game.md#game-rules")]),
        "operator": SectionNote(summary: "The operator's tools on the kiosk itself: the screenshot on SIGUSR1, the touch-test screen and the gestures that need no keyboard.",
                                guides: [("Stuck touches and the operator gestures", "operating.md#stuck-touches-and-the-operator-gestures"),
                                         ("The touch-test screen", "operating.md#the-touch-test-screen")]),
        "metrics": SectionNote(summary: "Fleet metrics for Prometheus, through node_exporter's textfile collector.",
                               guides: [("Fleet metrics", "fleet.md#fleet-metrics")]),
        "hooks": SectionNote(summary: "Programs run when something happens on the kiosk, each an event's command line, never run through a shell.",
                             guides: [("Hooks", "operating.md#hooks")]),
        "scoring": SectionNote(summary: "All the scoring rules in one section: the points of `[score]` under the same names, the bonuses and the high-score table.",
                               guides: [("Points and bonuses", "game.md#points-and-bonuses"), ("Scores and statistics", "scores.md#scores-and-statistics")]),
        "sounds": SectionNote(summary: "The sound effects and the ALSA device they play on.",
                              guides: [("Sounds", "operating.md#sounds")]),
        "joystick": SectionNote(summary: "The joystick mode: steer a catcher to collect drifting bubbles.",
                                guides: [("The joystick mode", "game.md#the-joystick-mode")]),
        "modes": SectionNote(summary: "Which modes the start screen offers.",
                             guides: [("Choosing a mode", "game.md#choosing-a-mode")]),
        "mqtt": SectionNote(summary: "Fleet control over MQTT and Home Assistant's discovery; off while `broker` is empty.",
                            guides: [("Fleet control over MQTT", "fleet.md#fleet-control-over-mqtt"),
                                     ("Home Assistant", "fleet.md#home-assistant")]),
        "kiosk": SectionNote(summary: "The machine: its console's keys, the restart into an upgraded binary, and the screens' language.",
                             guides: [("Keyboards and the console", "installing.md#keyboards-and-the-console"),
                                      ("Updates", "installing.md#updates"),
                                      ("Languages", "languages.md#languages")]),
        "branding": SectionNote(summary: "The operator's own start screen: a name, a line under it, a logo, and the colours.",
                                guides: [("Branding", "languages.md#branding")]),
        "text": SectionNote(summary: "Any words on screen, in place of the language's; `{name}` marks where a number goes.",
                            guides: [("Changing any words", "languages.md#changing-any-words")]),
    ]

    // MARK: - Shared prose

    /// The file's format, in paragraphs; backticks mark literal text in both formats.
    static let formatProse = [
        "One human-edited file format: `[section]`, `key = value`, `#` comments (a `#` that starts the line, or follows a blank and comes before one: `#1A2B3C` is a colour). The kiosk reads "
            + "`/etc/bubble-kiosk/kiosk.conf`, then `/etc/bubble-kiosk/kiosk.conf.d/*.conf` (later files win, "
            + "as in systemd), or only the file given with `--config FILE`. No file is needed: every key has a "
            + "built-in default. The installed `/etc/bubble-kiosk/kiosk.conf` (`systemd/kiosk.conf.example` in "
            + "the source) lists every key commented out with its default.",
        "A bad value is reported as `FILE:LINE: message` and the default is used for that key; the rest still "
            + "applies. Every number has a range (below). A config file must be a regular file of at most 1 MiB "
            + "(`FILE: too large (N bytes, at most 1 MiB)`, `FILE: not a regular file (a FIFO)`). At most 50 "
            + "findings are listed per file; one more line counts the rest. Unknown keys are warnings. Paths, "
            + "texts (`[sounds] device`) and hook command lines refuse control characters, C1 controls "
            + "(U+0080-U+009F) and the bidi and zero-width format characters; a message quoting a value shows "
            + "them escaped (`\\u{202e}`), and no log line is longer than 300 characters.",
        "Values: numbers are plain decimals (no `0x10`, `1e3` or `inf`); booleans are `true` or `false` (also "
            + "`yes`/`no`, `on`/`off`, `1`/`0`); `auto` leaves a value to be decided at run time. Sizes are "
            + "millimetres on the glass (`_mm`), times milliseconds (`_ms`), seconds (`_s`) or minutes (`_min`), "
            + "as the key's name ends.",
        "`bubble-kiosk check-config` prints the effective settings, or every error as `FILE:LINE: message` "
            + "and exits 1; `check-config --example` prints every key commented out with its default.",
    ]

    static let reloadProse = [
        "`systemctl reload bubble-kiosk` (SIGHUP) reads the same files again without restarting the process "
            + "or the round in progress, and logs one line saying what changed and when it applies. Each key "
            + "below says when a change applies: at once (in the round in progress too), from the next round, "
            + "or after a restart (`systemctl restart bubble-kiosk`). A reload whose files have errors changes "
            + "nothing: every error is logged, then `reload refused: the configuration has errors; keeping the "
            + "running settings`.",
    ]

    static let environmentProse = "`BUBBLE_KIOSK_CONFIG_DIR` replaces `/etc/bubble-kiosk` (for development and tests)."

    static func generatedBy(_ format: String) -> String {
        "Generated by `bubble-kiosk check-config --reference \(format)` from the config-key table "
            + "(`Sources/KioskCore/Config/ConfigKeys.swift`); regenerate it rather than editing it."
    }

    /// When a reload applies a change of `key`, as the reference says it.
    static func reloadText(_ key: ConfigKey) -> String {
        switch ReloadPolicy.effect(of: key) {
        case .now: return "at once"
        case .nextRound: return "from the next round"
        case .restart: return "after a restart"
        }
    }

    /// The key's default as written in the file; `nothing` for an empty value.
    static func defaultText(_ key: ConfigKey, _ defaults: Settings) -> String? {
        let value = key.render(defaults)
        return value.isEmpty ? nil : value
    }

    /// The cross-checks of `section`'s keys, one sentence each.
    static func crossChecks(_ section: String, _ schema: ConfigSchema) -> [String] {
        schema.orderings.filter { $0.section == section }.map { "`\($0.lower)` must not exceed `\($0.upper)`." }
            + schema.pairings.filter { $0.section == section }.map { "`\($0.first)` and `\($0.second)` go together: both or neither." }
    }

    // MARK: - Markdown

    static func markdown(_ schema: ConfigSchema, _ defaults: Settings) -> String {
        var out = "# The configuration file: every key\n\n"
        out += wrapped("This is `bubble-kiosk.conf(5)`, installed as a man page too (`man bubble-kiosk.conf`). "
            + "How the settings are used is in the guides: [operating the kiosk](operating.md), "
            + "[the game](game.md), [screens and touchscreens](hardware.md), [the fleet](fleet.md).") + "\n"
        out += "<!-- " + generatedBy("markdown") + " -->\n\n"
        out += "## The file\n\n"
        out += (formatProse + [environmentProse]).map { wrapped($0) + "\n" }.joined()
        out += "## Reloading\n\n"
        out += reloadProse.map { wrapped($0) + "\n" }.joined()
        out += "## Sections\n\n"
        for section in schema.sections {
            out += "- [`[\(section)]`](#\(section))"
            if let note = notes[section] { out += ": " + note.summary }
            out += "\n"
        }
        for section in schema.sections {
            out += "\n## `[\(section)]`\n\n"
            if let note = notes[section] {
                out += wrapped(note.summary + " More in "
                    + note.guides.map { "[\($0.title)](\($0.link))" }.joined(separator: ", ") + ".") + "\n"
            }
            out += "| key | what it does | default | accepts | a reload applies it |\n"
            out += "| --- | --- | --- | --- | --- |\n"
            for key in schema.keys where key.section == section {
                let value = defaultText(key, defaults).map { "`\($0)`" } ?? "(nothing)"
                let cells = ["`\(key.name)`", markdownCell(key.doc), markdownCell(value),
                             markdownCell(key.expectation), reloadText(key)]
                out += "| " + cells.joined(separator: " | ") + " |\n"
            }
            let checks = crossChecks(section, schema)
            if !checks.isEmpty { out += "\n" + wrapped(checks.joined(separator: " ")) }
        }
        return out
    }

    /// A paragraph broken into lines of at most `width` columns (a longer word stands alone), so
    /// the file reads and diffs well as text. No line starts with what Markdown would take for
    /// a heading, a list item, a quote or a table row.
    static func wrapped(_ text: String, width: Int = 100) -> String {
        var lines: [String] = []
        var line = ""
        for word in text.split(separator: " ") {
            let startsBlock = word.first.map { "#-+*>|".contains($0) || $0.isNumber && word.hasSuffix(".") } ?? false
            if !line.isEmpty && line.count + 1 + word.count > width && !startsBlock {
                lines.append(line)
                line = String(word)
            } else {
                line += (line.isEmpty ? "" : " ") + word
            }
        }
        if !line.isEmpty { lines.append(line) }
        return lines.map { $0 + "\n" }.joined()
    }

    /// Text for a table cell: a `|` would end the cell.
    static func markdownCell(_ text: String) -> String {
        text.split(separator: "|", omittingEmptySubsequences: false).joined(separator: "\\|")
    }

    // MARK: - Man page

    static func man(_ schema: ConfigSchema, _ defaults: Settings) -> String {
        var out = ".\\\" " + generatedBy("man") + "\n"
        out += ".TH BUBBLE\\-KIOSK.CONF 5 \"\" \"bubble\\-kiosk @VERSION@\" \"File Formats\"\n"
        out += ".SH NAME\nbubble\\-kiosk.conf \\- configuration of the bubble\\-kiosk touchscreen game\n"
        out += ".SH SYNOPSIS\n.I /etc/bubble\\-kiosk/kiosk.conf\n.br\n.I /etc/bubble\\-kiosk/kiosk.conf.d/*.conf\n"
        out += ".SH DESCRIPTION\n"
        out += formatProse.map(roffProse).joined(separator: ".PP\n")
        out += ".SH RELOADING\n"
        out += reloadProse.map(roffProse).joined(separator: ".PP\n")
        out += ".SH SECTIONS AND KEYS\n"
        out += "Each key with what it does, its default, what it accepts and when a reload applies a change.\n"
        for section in schema.sections {
            out += ".SS \"[\(section)]\"\n"
            if let note = notes[section] { out += roffProse(note.summary) }
            for key in schema.keys where key.section == section {
                out += ".TP\n.B \(roffEscape(key.name))\n"
                out += roffProse(sentence(key.doc) + " Default: " + (defaultText(key, defaults).map { "`\($0)`" } ?? "nothing")
                    + ". Accepts " + key.expectation + ". A reload applies it " + reloadText(key) + ".")
            }
            let checks = crossChecks(section, schema)
            if !checks.isEmpty { out += ".PP\n" + roffProse(checks.joined(separator: " ")) }
        }
        out += ".SH ENVIRONMENT\n" + roffProse(environmentProse)
        out += ".SH FILES\n"
        out += ".TP\n.I /etc/bubble\\-kiosk/kiosk.conf\nThe configuration: every key with its default, commented out.\n"
        out += ".TP\n.I /etc/bubble\\-kiosk/kiosk.conf.d/*.conf\nDrop\\-ins, read in name order after kiosk.conf; later files win.\n"
        out += ".SH SEE ALSO\n.BR bubble\\-kiosk (1),\n.BR systemctl (1)\n"
        return out
    }

    /// `text` ending in a full stop.
    static func sentence(_ text: String) -> String {
        text.hasSuffix(".") ? text : text + "."
    }

    /// A paragraph as roff: literal text (in backticks) in bold, one line, safe at its start.
    static func roffProse(_ text: String) -> String {
        var out = ""
        var literal = false
        var part = ""
        func flush() {
            out += literal ? "\\fB" + roffEscape(part, literal: true) + "\\fR" : roffEscape(part)
            part = ""
        }
        for c in text {
            if c == "`" {
                flush()
                literal.toggle()
            } else {
                part.append(c)
            }
        }
        flush()
        // A line that begins with a dot or an apostrophe would be read as a request.
        if out.hasPrefix(".") || out.hasPrefix("'") { out = "\\&" + out }
        return out + "\n"
    }

    /// Escapes roff's escape character; in literal text a hyphen is a minus, so it copies as one.
    static func roffEscape(_ text: String, literal: Bool = false) -> String {
        var out = ""
        for c in text {
            switch c {
            case "\\": out += "\\e"
            case "-" where literal: out += "\\-"
            default: out.append(c)
            }
        }
        return out
    }
}

