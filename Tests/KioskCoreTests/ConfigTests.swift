import KioskCore
import Testing
import KioskTestSupport

/// Loads texts as if they were files read in this order.
private func messages(_ result: ConfigResult) -> [String] {
    result.diagnostics.map(\.description)
}

@Suite struct ConfigTests {
    /// The points have two names, `[score]` and `[scoring]`: one setting each, the later line wins,
    /// and a bad value under either name is reported under that name.
    @Test func pointsCanBeSetUnderScoringToo() {
        let result = loadConfig(("a.conf", "[scoring]\ntap_bubble = 15\nswipe_bubble = 40\n"),
                          ("b.conf", "[score]\nswipe_bubble = 25\n[scoring]\nmiss = lots\n"))
        #expect(result.settings.score.tapBubble == 15)
        #expect(result.settings.score.swipeBubble == 25, "b.conf's [score] line came later")
        #expect(result.settings.score.miss == Settings().score.miss)
        #expect(messages(result).contains { $0.hasPrefix("b.conf:4: miss:") }, "\(messages(result))")
        // Each second name points at a key that exists; effective settings and reloads name the
        // setting once, under [score].
        let schema = ConfigSchema.standard
        let twins = schema.keys.filter { $0.sameAs != nil }
        #expect(twins.map(\.id) == ["scoring.tap_bubble", "scoring.swipe_bubble", "scoring.drag_bubble", "scoring.round_bonus", "scoring.miss"])
        #expect(twins.allSatisfy { twin in schema.keys.contains { $0.id == twin.sameAs && $0.sameAs == nil } })
        #expect(schema.render(result.settings).split(separator: "\n").filter { $0 == "tap_bubble = 15" }.count == 1)
        #expect(ReloadPolicy.changes(from: Settings(), to: result.settings)[.now] == ["score.tap_bubble", "score.swipe_bubble"])
    }

    // MARK: syntax

    @Test func parsesSectionsKeysValuesAndComments() {
        let text = """
            # a whole-line comment

            [game]   # comment after a header
              bubbles=12  # twelve
            \tmargin_mm =\t2.5
               # indented comment
            [display]
            tag = a#b
            empty =
            """
        let parsed = ConfigParser.parse(text, file: "t.conf")
        #expect(parsed.diagnostics == [])
        #expect(parsed.sections == [
            ConfigSectionHeader(name: "game", file: "t.conf", line: 3),
            ConfigSectionHeader(name: "display", file: "t.conf", line: 7),
        ])
        #expect(parsed.entries == [
            ConfigEntry(section: "game", key: "bubbles", value: "12", file: "t.conf", line: 4),
            ConfigEntry(section: "game", key: "margin_mm", value: "2.5", file: "t.conf", line: 5),
            ConfigEntry(section: "display", key: "tag", value: "a#b", file: "t.conf", line: 8),
            ConfigEntry(section: "display", key: "empty", value: "", file: "t.conf", line: 9),
        ])
    }

    @Test func toleratesWindowsLineEndingsAndByteOrderMark() {
        let parsed = ConfigParser.parse("\u{FEFF}[game]\r\nbubbles = 3\r\n", file: "w.conf")
        #expect(parsed.diagnostics == [])
        #expect(parsed.entries == [ConfigEntry(section: "game", key: "bubbles", value: "3", file: "w.conf", line: 2)])
    }

    @Test func reportsLinesThatAreNeitherSectionNorKeyValue() {
        let text = """
            [game]
            what is this
            [game
            = 5
            Max Taps = 3
            [Game]
            bubbles = 1
            [timed]
            max_bubbles = 4
            """
        let parsed = ConfigParser.parse(text, file: "k.conf")
        #expect(parsed.diagnostics.map(\.description) == [
            "k.conf:2: expected '[section]' or 'key = value', got 'what is this'",
            "k.conf:3: expected '[section]' or 'key = value', got '[game'",
            "k.conf:4: expected '[section]' or 'key = value', got '= 5'",
            "k.conf:5: invalid key name 'Max Taps': use lowercase letters, digits and '_'",
            "k.conf:6: invalid section name 'Game': use lowercase letters, digits and '_'",
        ])
        // Keys under the broken header are skipped rather than filed under [game].
        #expect(parsed.entries == [
            ConfigEntry(section: "timed", key: "max_bubbles", value: "4", file: "k.conf", line: 9),
        ])
    }

    @Test func shortensLongGarbageInMessages() {
        let parsed = ConfigParser.parse(String(repeating: "x", count: 100), file: "g.conf")
        let shown = String(repeating: "x", count: 57) + "..."
        #expect(parsed.diagnostics.map(\.description) == ["g.conf:1: expected '[section]' or 'key = value', got '\(shown)'"])
    }

    @Test func keyBeforeAnySectionIsAnErrorWithAHint() {
        let result = loadConfig((name: "k.conf", text: "bubbles = 5\nzzz = 1\n[game]\nmargin_mm = 2\n"))
        #expect(messages(result) == [
            "k.conf:1: key 'bubbles' comes before any [section] line; it belongs under [game]",
            "k.conf:2: key 'zzz' comes before any [section] line",
        ])
        #expect(result.hasErrors)
        #expect(result.settings.game.bubbles == 10)
        #expect(result.settings.game.marginMM == 2)
    }

    // MARK: values

    @Test func noFilesMeansBuiltInDefaults() {
        let result = loadConfig()
        #expect(result.settings == Settings())
        #expect(result.diagnostics == [])
        #expect(result.files == [])
        #expect(!result.hasErrors)
    }

    @Test func appliesValuesOfEveryKind() {
        let result = loadConfig((name: "a.conf", text: """
            [display]
            px_per_mm = 6.5
            [gestures]
            tap_max_ms = 400
            [game]
            bubbles = 25
            swipe_share = 1
            bubble_max_mm = +31.25
            [timed]
            duration_s = 90.5
            [score]
            miss = -3
            """))
        var expected = Settings()
        expected.display.pxPerMM = 6.5
        expected.gestures.tapMax = .milliseconds(400)
        expected.game.bubbles = 25
        expected.game.swipeShare = 1
        expected.game.bubbleMaxMM = 31.25
        expected.timed.duration = .seconds(90.5)
        expected.score.miss = -3
        #expect(result.diagnostics == [])
        #expect(result.settings == expected)
        #expect(result.files == ["a.conf"])
    }

    @Test func badValueNamesKeyAndValueAndKeepsTheDefault() {
        let text = String(repeating: "# filler\n", count: 10) + "[game]\nbubbles = ten\nmargin_mm = 7\n"
        let result = loadConfig((name: "kiosk.conf", text: text))
        #expect(messages(result) == ["kiosk.conf:12: bubbles: expected a whole number from 1 to 200, got 'ten'"])
        #expect(result.hasErrors)
        #expect(result.settings.game.bubbles == 10)
        #expect(result.settings.game.marginMM == 7)
    }

    @Test(arguments: [
        ("bubbles", "3.0", "a whole number from 1 to 200"),
        ("bubbles", "0", "a whole number from 1 to 200"),
        ("bubbles", "201", "a whole number from 1 to 200"),
        ("bubbles", "", "a whole number from 1 to 200"),
        ("bubbles", "99999999999999999999", "a whole number from 1 to 200"),
        ("bubble_min_mm", "1e3", "a number from 5 to 200"),
        ("bubble_min_mm", "nan", "a number from 5 to 200"),
        ("bubble_min_mm", "inf", "a number from 5 to 200"),
        ("bubble_min_mm", "0x10", "a number from 5 to 200"),
        ("bubble_min_mm", "7.", "a number from 5 to 200"),
        ("bubble_min_mm", "4.99", "a number from 5 to 200"),
        ("swipe_share", "1.01", "a number from 0 to 1"),
        ("swipe_share", "-0.1", "a number from 0 to 1"),
        ("swipe_tolerance_deg", "91", "a number from 1 to 90"),
        ("max_taps", "10", "a whole number from 1 to 9"),
    ])
    func rejectsValuesOutsideTheKind(key: String, value: String, expected: String) {
        let result = loadConfig((name: "v.conf", text: "[game]\n\(key) = \(value)\n"))
        #expect(messages(result) == ["v.conf:2: \(key): expected \(expected), got '\(value)'"])
        #expect(result.settings == Settings())
    }

    @Test func acceptsRangeBoundsAndPlainDecimals() {
        let low = loadConfig((name: "l.conf", text: "[game]\nbubbles = 1\nswipe_share = 0\nbubble_min_mm = 5\nhit_margin_mm = .5\n"))
        #expect(low.diagnostics == [])
        #expect(low.settings.game.bubbles == 1)
        #expect(low.settings.game.swipeShare == 0)
        #expect(low.settings.game.bubbleMinMM == 5)
        #expect(low.settings.game.hitMarginMM == 0.5)
        let high = loadConfig((name: "h.conf", text: "[game]\nbubbles = 200\nswipe_share = 1.0\n[score]\ntap_bubble = -10000\n"))
        #expect(high.diagnostics == [])
        #expect(high.settings.game.bubbles == 200)
        #expect(high.settings.game.swipeShare == 1)
        #expect(high.settings.score.tapBubble == -10000)
    }

    @Test func bounceTimeRunsFromOffToOneHundredMilliseconds() {
        #expect(Settings().gestures.bounce == .milliseconds(25))
        for value in ["0", "100", "12.5"] {
            let ok = loadConfig((name: "b.conf", text: "[gestures]\nbounce_ms = \(value)\n"))
            #expect(ok.diagnostics == [], "\(value)")
            #expect(ok.settings.gestures.bounce == .milliseconds(Double(value)!))
        }
        for value in ["-1", "101", "25ms"] {
            let bad = loadConfig((name: "b.conf", text: "[gestures]\nbounce_ms = \(value)\n"))
            #expect(messages(bad) == ["b.conf:2: bounce_ms: expected a number from 0 to 100, got '\(value)'"])
            #expect(bad.settings.gestures.bounce == .milliseconds(25))
        }
    }

    @Test func pixelDensityTakesAutoOrANumber() {
        let result = loadConfig(
            (name: "a.conf", text: "[display]\npx_per_mm = 5\n"),
            (name: "b.conf", text: "[display]\npx_per_mm = auto\n"))
        #expect(result.diagnostics == [])
        #expect(result.settings.display.pxPerMM == nil)
        let bad = loadConfig(
            (name: "a.conf", text: "[display]\npx_per_mm = 5\n"),
            (name: "b.conf", text: "[display]\npx_per_mm = 0.4\n"))
        #expect(messages(bad) == ["b.conf:2: px_per_mm: expected a number from 0.5 to 40 or 'auto', got '0.4'"])
        #expect(bad.settings.display.pxPerMM == 5)
    }

    // MARK: unknown and duplicate keys

    @Test func unknownKeysAreWarningsWithDidYouMean() {
        let result = loadConfig((name: "u.conf", text: """
            [game]
            bubles = 4
            bubbels = 4
            colour = red
            [timed]
            bubbles = 3
            """))
        #expect(messages(result) == [
            "u.conf:2: warning: unknown key 'bubles' in [game] (did you mean 'bubbles'?)",
            "u.conf:3: warning: unknown key 'bubbels' in [game] (did you mean 'bubbles'?)",
            "u.conf:4: warning: unknown key 'colour' in [game]",
            "u.conf:6: warning: unknown key 'bubbles' in [timed] (did you mean 'bubbles' in [game]?)",
        ])
        #expect(!result.hasErrors)
        #expect(result.settings == Settings())
    }

    @Test func unknownSectionsAreWarningsAndTheirKeysIgnored() {
        let result = loadConfig((name: "s.conf", text: "[gmae]\nbubbles = 2\n[sound]\nvolume = 3\n[game]\nmax_taps = 2\n"))
        #expect(messages(result) == [
            "s.conf:1: warning: unknown section [gmae] (did you mean [game]?)",
            "s.conf:3: warning: unknown section [sound] (did you mean [sounds]?)",
        ])
        #expect(!result.hasErrors)
        #expect(result.settings.game.bubbles == 10)
        #expect(result.settings.game.maxTaps == 2)
    }

    @Test func duplicateKeyInOneFileWarnsAndTheLaterWins() {
        let result = loadConfig((name: "d.conf", text: "[game]\nbubbles = 5\n[timed]\n[game]\nbubbles = 6\nbubbles = 7\n"))
        #expect(messages(result) == [
            "d.conf:5: warning: duplicate key 'bubbles' in [game], also on line 2; the later line wins",
            "d.conf:6: warning: duplicate key 'bubbles' in [game], also on line 5; the later line wins",
        ])
        #expect(result.settings.game.bubbles == 7)
    }

    @Test func rejectedDuplicateKeepsTheEarlierValue() {
        let result = loadConfig((name: "d.conf", text: "[game]\nbubbles = 5\nbubbles = many\n"))
        #expect(messages(result) == [
            "d.conf:3: warning: duplicate key 'bubbles' in [game], also on line 2; the later line wins",
            "d.conf:3: bubbles: expected a whole number from 1 to 200, got 'many'",
        ])
        #expect(result.settings.game.bubbles == 5)
    }

    // MARK: several files

    @Test func laterFilesWinAndBadValuesKeepEarlierFiles() {
        let result = loadConfig(
            (name: "kiosk.conf", text: "[game]\nbubbles = 20\nmargin_mm = 6\n"),
            (name: "10-a.conf", text: "[game]\nbubbles = 300\nmargin_mm = 7\n"),
            (name: "20-b.conf", text: "[game]\nbubbles = 21\n"))
        // The same key in different files is the point of drop-ins, not a duplicate.
        #expect(messages(result) == ["10-a.conf:2: bubbles: expected a whole number from 1 to 200, got '300'"])
        #expect(result.settings.game.bubbles == 21)
        #expect(result.settings.game.marginMM == 7)
        #expect(result.files == ["kiosk.conf", "10-a.conf", "20-b.conf"])
    }

    @Test func reportedProblemsKeepTheirPlace() {
        var builder = ConfigBuilder()
        builder.add(text: "[game]\nbubbles = 0\n", file: "a.conf")
        builder.report(.error("b.conf", nil, "cannot read: Permission denied"))
        builder.add(text: "[game]\nmax_taps = 2\n", file: "c.conf")
        let result = builder.finish()
        #expect(messages(result) == [
            "a.conf:2: bubbles: expected a whole number from 1 to 200, got '0'",
            "b.conf: cannot read: Permission denied",
        ])
        #expect(result.settings.game.maxTaps == 2)
        #expect(result.files == ["a.conf", "c.conf"])
    }

    // MARK: cross-checks

    @Test func bubbleSizesMustBeOrderedBlamingTheLaterLine() {
        let maxFirst = loadConfig((name: "f.conf", text: "[game]\nbubble_max_mm = 25\nbubble_min_mm = 26\nbubbles = 4\n"))
        #expect(messages(maxFirst) == ["f.conf:3: bubble_min_mm: must be at most bubble_max_mm (25, set on line 2), got '26'"])
        #expect(maxFirst.settings.game.bubbleMinMM == 18)
        #expect(maxFirst.settings.game.bubbleMaxMM == 30)
        #expect(maxFirst.settings.game.bubbles == 4)

        let minFirst = loadConfig((name: "f.conf", text: "[game]\nbubble_min_mm = 26\nbubble_max_mm = 25\n"))
        #expect(messages(minFirst) == ["f.conf:3: bubble_max_mm: must be at least bubble_min_mm (26, set on line 2), got '25'"])
        #expect(minFirst.settings.game.bubbleMinMM == 18)
        #expect(minFirst.settings.game.bubbleMaxMM == 30)
    }

    @Test func orderingAgainstADefaultOrAnotherFile() {
        let againstDefault = loadConfig((name: "f.conf", text: "[game]\nbubble_min_mm = 31\n"))
        #expect(messages(againstDefault) == ["f.conf:2: bubble_min_mm: must be at most bubble_max_mm (30, the default), got '31'"])
        #expect(againstDefault.settings.game.bubbleMinMM == 18)

        let acrossFiles = loadConfig(
            (name: "a.conf", text: "[game]\nbubble_min_mm = 20\n"),
            (name: "b.conf", text: "\n[game]\nbubble_max_mm = 19\n"))
        #expect(messages(acrossFiles) == ["b.conf:3: bubble_max_mm: must be at least bubble_min_mm (20, set in a.conf:2), got '19'"])
        #expect(acrossFiles.settings.game.bubbleMinMM == 18)
        #expect(acrossFiles.settings.game.bubbleMaxMM == 30)

        let timed = loadConfig((name: "t.conf", text: "[timed]\nstart_bubbles = 13\n"))
        #expect(messages(timed) == ["t.conf:2: start_bubbles: must be at most max_bubbles (12, the default), got '13'"])
        #expect(timed.settings.timed.startBubbles == 5)
    }

    // MARK: rendering and the schema

    @Test func rendersEverySectionAndKeyAsConfigText() {
        let text = ConfigSchema.standard.render(Settings())
        #expect(text.hasPrefix("[display]\npx_per_mm = auto\nrotation = 0\noutputs = first\npixel_shift = true\nsleep_after_idle_min = 0\nsleep_schedule = \nbacklight = auto\n"
            + "brightness = auto\ndim_after_idle_min = 0\ndim_brightness = 20\ncec = auto\ncec_name = bubble-kiosk\n\n[input]\ngrab = false\n"
            + "calibration_matrix = 1 0 0 0 1 0\nstuck_after_s = 20\nstuck_radius_mm = 4\n\n[gestures]\ntap_slop_mm = 3\ntap_max_ms = 500\n"))
        #expect(text.contains("\n\n[game]\nbubbles = 10\nbubble_min_mm = 18\nbubble_max_mm = 30\n"))
        #expect(text.contains("\nswipe_share = 0.5\n"))
        #expect(text.contains("\n\n[score]\ntap_bubble = 10\nswipe_bubble = 20\nround_bonus = 50\nmiss = 0\n"))
        #expect(text.contains("\n\n[operator]\nscreenshot_path = auto\ntouch_test_timeout_s = 60\ntouch_test_gesture = five-finger-hold\n"
            + "reset_gesture = four-corners\ncorner_mm = 25\ncorner_hold_s = 2\nreset_within_s = 10\n"))
        // The layers operators configure append their sections after these.
        #expect(Array(ConfigSchema.standard.sections.prefix(8)) == ["display", "input", "gestures", "game", "attract",
                                                                    "timed", "score", "operator"])
        #expect(text.contains("\n\n[metrics]\ntextfile = auto\ninterval_s = 5\n"))
        #expect(text.contains("\n\n[hooks]\nstart = \nround_start = \n"))
        #expect(ConfigSchema.standard.sections.contains("hooks"))
        #expect(text.contains("\n\n[scoring]\ncombo_window_ms = 1500\ncombo_bonus = 0\ncombo_max_steps = 5\n"))
        #expect(text.contains("\n\n[sounds]\nenabled = true\nvolume = 0.8\ndevice = default\npop = auto\n"))
        #expect(ConfigSchema.standard.sections.contains("sounds"))
    }

    @Test func renderedSettingsReadBackUnchanged() {
        var settings = Settings()
        settings.display.pxPerMM = 3.75
        settings.gestures.velocityWindow = .milliseconds(80)
        settings.game.swipeShare = 0.125
        settings.timed.maxBubbles = 30
        settings.score.miss = -2
        let result = loadConfig((name: "r.conf", text: ConfigSchema.standard.render(settings)))
        #expect(result.diagnostics == [])
        #expect(result.settings == settings)
    }

    @Test func everyKeyHasValidDefaultAndItsOwnField() {
        let schema = ConfigSchema.standard
        let defaults = Settings()
        for key in schema.keys {
            #expect(ConfigParser.isIdentifier(key.section) && ConfigParser.isIdentifier(key.name), "\(key.id)")
            #expect(!key.doc.isEmpty, "\(key.id)")
            var settings = defaults
            #expect(key.apply(key.render(defaults), to: &settings) == nil, "default of \(key.id) is out of range")
            // Set only this key to a range bound that differs from its default; exactly this
            // key's rendering must change, which catches two keys sharing one key path.
            let bounds: (String, String)
            switch key.kind {
            case .int(_, let range): bounds = (String(range.lowerBound), String(range.upperBound))
            case .double(_, let range), .optionalDouble(_, let range), .duration(_, _, let range, whole: false):
                bounds = ("\(range.lowerBound)", "\(range.upperBound)")
            case .duration(_, _, let range, whole: true):
                bounds = ("\(Int(range.lowerBound))", "\(Int(range.upperBound))")
            case .bool: bounds = ("true", "false")
            case .choice(_, let values): bounds = (String(values.first!), String(values.last!))
            case .keyword(_, let words): bounds = (words.first!, words.last!)
            case .numbers(let path, _, _, _):
                // Halved defaults: in range, and (for the calibration) still a usable matrix.
                let halved = defaults[keyPath: path].map { "\($0 / 2)" }.joined(separator: " ")
                bounds = (halved, halved)
            case .path: bounds = ("/var/tmp/shot.png", "auto")
            case .text where key.section == "mqtt":
                // Each [mqtt] text key takes its own shape of value, and nothing.
                let values = ["broker": "mqtts://broker.example:8883", "username": "kiosk",
                              "node_id": "hall-1", "topic_prefix": "museum/hall-1", "discovery_prefix": ""]
                bounds = (values[key.name] ?? "?", "x")
            case .text where key.id == "display.cec": bounds = ("/dev/cec1", "off")
            case .text where key.id == "display.cec_name": bounds = ("Hall 2 kiosk", "x")
            case .text where key.id == "kiosk.language": bounds = ("ar", "auto")
            case .text where key.id == "branding.logo": bounds = ("/srv/logo.png", "")
            case .text where key.section == "branding" && !["title", "subtitle"].contains(key.name): bounds = ("#A0b1C2", "#000000")
            case .text: bounds = ("/var/tmp/sound.wav", "none")
            case .refused:
                // Known, never taken: only nothing passes, and no setting moves.
                var untouched = defaults
                #expect(key.apply("secret", to: &untouched) != nil && untouched == defaults, "\(key.id)")
                continue
            case .commandLine: bounds = ("/usr/bin/logger -t 'bubble kiosk'", "")
            case .schedule: bounds = ("22:00-07:00,12:00-13:30", "")
            }
            var changed = defaults
            #expect(key.apply(bounds.0, to: &changed) == nil, "\(key.id) = \(bounds.0)")
            if key.render(changed) == key.render(defaults) {
                changed = defaults
                #expect(key.apply(bounds.1, to: &changed) == nil, "\(key.id) = \(bounds.1)")
            }
            let differing = schema.keys.filter { $0.render(changed) != $0.render(defaults) }.map(\.id)
            // swipe_share is the tap and swipe weights' split: the three move together.
            let mix: Set = ["game.swipe_share", "game.tap_weight", "game.swipe_weight"]
            // The points are one setting under two names, [score] and [scoring]: both change.
            let points = ["tap_bubble", "swipe_bubble", "drag_bubble", "round_bonus", "miss"]
            let twins: Set = ["score.\(key.name)", "scoring.\(key.name)"]
            if mix.contains(key.id) {
                #expect(differing.contains(key.id) && differing.allSatisfy { mix.contains($0) })
            } else if points.contains(key.name) && twins.contains(key.id) {
                #expect(Set(differing) == twins)
            } else {
                #expect(differing == [key.id])
            }
        }
        for ordering in schema.orderings {
            let low = schema.key(ordering.section, ordering.lower)
            let high = schema.key(ordering.section, ordering.upper)
            #expect(low != nil && high != nil)
            if let low, let high {
                #expect(low.number(in: defaults)! <= high.number(in: defaults)!)
            }
        }
    }

    @Test func diagnosticsPrintAsFileLineMessage() {
        #expect(ConfigDiagnostic.error("a.conf", 3, "bad").description == "a.conf:3: bad")
        #expect(ConfigDiagnostic.warning("a.conf", 4, "odd").description == "a.conf:4: warning: odd")
        #expect(ConfigDiagnostic.error("a.conf", nil, "cannot read: x").description == "a.conf: cannot read: x")
    }

    /// The example config is generated from the schema; a key added without regenerating it fails here.
    @Test func exampleConfigIsCurrentAndLoadsToDefaults() throws {
        let path = String(#filePath.split(separator: "/", omittingEmptySubsequences: false).dropLast(3)
            .joined(separator: "/")) + "/systemd/kiosk.conf.example"
        let text = try #require(readText(path), "cannot read \(path)")
        #expect(text == ConfigSchema.standard.renderExample(),
                "regenerate with: bubble-kiosk check-config --example > systemd/kiosk.conf.example")
        // Uncommenting every setting must give the defaults without a single message.
        let uncommented = text.split(separator: "\n", omittingEmptySubsequences: false).map { line in
            line.hasPrefix("#") && line.contains(" = ") && !line.hasPrefix("# ") ? line.dropFirst() : line
        }.joined(separator: "\n")
        let result = loadConfig((name: "example", text: uncommented))
        #expect(result.diagnostics == [])
        #expect(result.settings == Settings())
        #expect(uncommented.split(separator: "\n").filter { $0.contains(" = ") && !$0.hasPrefix("#") }.count
                == ConfigSchema.standard.keys.count)
    }

    /// The version fleet control reports is the one packages are built with.
    @Test func versionIsTheVersionFiles() throws {
        let path = String(#filePath.split(separator: "/", omittingEmptySubsequences: false).dropLast(3)
            .joined(separator: "/")) + "/VERSION"
        let text = try #require(readText(path), "cannot read \(path)")
        #expect(text.split(separator: "\n").first.map(String.init) == KioskVersion.current)
    }

    /// The Debian packages' version (debian/changelog's latest entry) is VERSION plus a revision.
    @Test func debianChangelogIsAtTheVersionFiles() throws {
        let path = String(#filePath.split(separator: "/", omittingEmptySubsequences: false).dropLast(3)
            .joined(separator: "/")) + "/debian/changelog"
        let text = try #require(readText(path), "cannot read \(path)")
        let first = text.split(separator: "\n").first.map(String.init) ?? ""
        #expect(first.hasPrefix("bubble-kiosk (\(KioskVersion.current)-"), "debian/changelog starts: \(first)")
    }
}
