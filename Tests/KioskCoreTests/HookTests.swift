import Testing
@testable import KioskCore
import KioskTestSupport

/// `[hooks]` in the core: splitting command lines, the config keys, payloads, the limits.
@Suite struct HookCommandLineTests {
    func words(_ text: String) -> [String]? {
        guard case .success(let line) = HookCommandLine.parse(text) else { return nil }
        return line?.words ?? []
    }

    func problem(_ text: String) -> HookCommandLine.Problem? {
        if case .failure(let p) = HookCommandLine.parse(text) { return p }
        return nil
    }

    @Test func wordsSplitAtSpacesAndTabs() {
        #expect(words("/usr/local/bin/kiosk-led pulse") == ["/usr/local/bin/kiosk-led", "pulse"])
        #expect(words("  a \t b   c  ") == ["a", "b", "c"])
        #expect(words("") == [])
        #expect(words("   \t ") == [])
    }

    @Test func singleQuotesKeepEverything() {
        #expect(words("echo 'a  b' 'c\"d' '\\n'") == ["echo", "a  b", "c\"d", "\\n"])
        #expect(words("echo ''") == ["echo", ""])
        #expect(words("echo a'b c'd") == ["echo", "ab cd"])
        #expect(words("echo '$(rm -rf x)'") == ["echo", "$(rm -rf x)"])
    }

    @Test func doubleQuotesEscapeOnlyFourCharacters() {
        #expect(words(#"echo "a \"b\" c""#) == ["echo", #"a "b" c"#])
        #expect(words(#"echo "back\\slash" "\$HOME" "\`x\`""#) == ["echo", #"back\slash"#, "$HOME", "`x`"])
        // Any other backslash stays, as in sh.
        #expect(words(#"echo "a\nb" "c\'d""#) == ["echo", #"a\nb"#, #"c\'d"#])
        #expect(words(#"echo """#) == ["echo", ""])
        #expect(words(#"echo "it's""#) == ["echo", "it's"])
        #expect(words(#"echo "a"'b'c"#) == ["echo", "abc"])
    }

    @Test func backslashOutsideQuotesTakesTheNextCharacter() {
        #expect(words(#"echo a\ b \' \" \\"#) == ["echo", "a b", "'", "\"", "\\"])
        #expect(words(#"echo \$x"#) == ["echo", "$x"])
    }

    @Test func shellSyntaxIsPlainText() {
        #expect(words("echo ok; touch pwned") == ["echo", "ok;", "touch", "pwned"])
        #expect(words("a | b && c > f $(x) `y` *") == ["a", "|", "b", "&&", "c", ">", "f", "$(x)", "`y`", "*"])
        #expect(words("~/bin/x $HOME") == ["~/bin/x", "$HOME"])
    }

    @Test func unbalancedQuotesAndBadBytesAreRefused() {
        #expect(problem("echo 'a") == .unbalancedSingleQuote)
        #expect(problem("echo \"a") == .unbalancedDoubleQuote)
        #expect(problem(#"echo "a\""#) == .unbalancedDoubleQuote)
        #expect(problem(#"echo a\"#) == .trailingBackslash)
        #expect(problem("echo \u{1B}[2J") == .controlCharacter)
        #expect(problem("echo a\u{0}b") == .controlCharacter)
        #expect(problem("echo " + String(repeating: "x", count: 5000)) == .tooLong)
        #expect(problem("echo 'it''s'") == nil)
    }
}

@Suite struct HookConfigTests {
    @Test func everyEventHasAKeyAndDefaultsAreEmpty() {
        let defaults = HookSettings()
        for event in HookEvent.allCases {
            #expect(ConfigSchema.standard.key("hooks", event.rawValue) != nil, "\(event)")
            #expect(defaults.command(for: event).isEmpty)
        }
        #expect(defaults.timeout == .seconds(10) && defaults.maxRunning == 4 && defaults.perEventPerMinute == 60)
    }

    @Test func commandLinesLoadAndReadBack() {
        let r = loadConfig("""
            [hooks]
            pop = /usr/local/bin/kiosk-led pulse "two words"
            round_over = logger -t kiosk 'round over'
            timeout_s = 2.5
            """)
        #expect(!r.hasErrors, "\(r.diagnostics)")
        #expect(r.settings.hooks.pop == #"/usr/local/bin/kiosk-led pulse "two words""#)
        #expect(r.settings.hooks.command(for: .roundOver) == "logger -t kiosk 'round over'")
        #expect(r.settings.hooks.timeout == .seconds(2.5))
        #expect(loadConfig(ConfigSchema.standard.render(r.settings)).settings == r.settings)
    }

    @Test func unbalancedQuotesAreNamedWithFileAndLine() {
        let r = loadConfig("[hooks]\n\npop = /bin/echo 'oops\nidle = /bin/echo \"x\n")
        #expect(r.diagnostics.map(\.description) == [
            "k.conf:3: pop: not a command line: a single quote (') is not closed, got '/bin/echo 'oops'",
            "k.conf:4: idle: not a command line: a double quote (\") is not closed, got '/bin/echo \"x'",
        ])
        #expect(r.settings.hooks.pop.isEmpty, "the default stays")
    }

    @Test func hooksApplyAtOnceOnReload() {
        for key in ConfigSchema.standard.keys where key.section == "hooks" {
            #expect(ReloadPolicy.effect(of: key) == .now, "\(key.id)")
        }
    }
}

@Suite struct HookPayloadTests {
    @Test func fieldsBecomeVariablesAndOneJSONLine() {
        let p = HookPayload(.pop, time: WallTime(microseconds: 1_764_572_400_123_400), fields: [
            ("mode", .string("classic")), ("score", .int(30)), ("points", .int(20)), ("kind", .string("swipe")),
            ("ratio", .number(0.5)), ("demo", .bool(false)), ("none", .null),
        ])
        #expect(p.environment == ["BUBBLE_EVENT=pop", "BUBBLE_TIME=1764572400.123", "BUBBLE_MODE=classic",
                                  "BUBBLE_SCORE=30", "BUBBLE_POINTS=20", "BUBBLE_KIND=swipe", "BUBBLE_RATIO=0.5",
                                  "BUBBLE_DEMO=false", "BUBBLE_NONE="])
        #expect(p.json == #"{"event":"pop","time":1764572400.123,"mode":"classic","score":30,"points":20,"kind":"swipe","ratio":0.5,"demo":false,"none":null}"# + "\n")
    }

    @Test func badFieldNamesAndDuplicatesAreLeftOut() {
        let p = HookPayload(.highScore, time: .epoch, fields: [("Score", .int(1)), ("a=b", .int(2)), ("", .int(3)),
                                                          ("event", .string("x")), ("rank", .int(1)), ("rank", .int(2))])
        #expect(p.environment == ["BUBBLE_EVENT=high_score", "BUBBLE_TIME=0.0", "BUBBLE_RANK=1"])
    }

    @Test func valuesStayLiteral() {
        let evil = "$(rm -rf x); touch pwned\n`id`"
        let p = HookPayload(.reset, time: .epoch, fields: [("reason", .string(evil))])
        #expect(p.environment.last == "BUBBLE_REASON=" + evil)
        #expect(p.json.hasSuffix(#""reason":"$(rm -rf x); touch pwned\n`id`"}"# + "\n"))
        #expect(p.json.filter { $0 == "\n" }.count == 1, "one line")
        #expect(HookPayload(.reset, time: .epoch, fields: [("r", .string("a\u{0}b"))]).environment.last == "BUBBLE_R=ab")
    }
}

@Suite struct HookLimiterTests {
    @Test func aMinuteHoldsAtMostPerMinuteRuns() {
        var l = HookLimiter(maxRunning: 100, perMinute: 3)
        let t0 = TimeStamp(microseconds: 1_000_000)
        var decisions: [HookLimiter.Decision] = []
        for i in 0..<5 { decisions.append(l.admit(.pop, at: (t0 + .milliseconds(Double(i) * 100)), running: 0).decision) }
        #expect(decisions == [.run, .run, .run, .rateLimited, .rateLimited])
        #expect(l.rateLimitedCount(.pop) == 2)
        // Another event has its own budget.
        #expect(l.admit(.roundOver, at: t0, running: 0).decision == .run)
        // A minute after the first run, one slot is free again.
        #expect(l.admit(.pop, at: (t0 + .milliseconds(60_050)), running: 0).decision == .run)
        #expect(l.admit(.pop, at: (t0 + .milliseconds(60_060)), running: 0).decision == .rateLimited)
        #expect(l.admit(.pop, at: (t0 + .milliseconds(60_250)), running: 0).decision == .run)
    }

    @Test func busyDropsDoNotUseTheRate() {
        var l = HookLimiter(maxRunning: 2, perMinute: 2)
        let t = TimeStamp(microseconds: 5_000_000)
        #expect(l.admit(.pop, at: t, running: 2).decision == .busy)
        #expect(l.admit(.pop, at: t, running: 2).decision == .busy)
        #expect(l.busyCount(.pop) == 2)
        #expect(l.admit(.pop, at: t, running: 1).decision == .run)
        #expect(l.admit(.pop, at: t, running: 0).decision == .run)
        #expect(l.admit(.pop, at: t, running: 0).decision == .rateLimited)
    }

    @Test func dropsAreLoggedOnPowersOfTwo() {
        var l = HookLimiter(maxRunning: 1, perMinute: 1)
        let t = TimeStamp(microseconds: 1)
        _ = l.admit(.pop, at: t, running: 0)
        let logged = (1...9).map { _ in l.admit(.pop, at: t, running: 0).log }
        #expect(logged == [true, true, false, true, false, false, false, true, false])
    }
}
