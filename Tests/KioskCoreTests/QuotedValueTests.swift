import KioskCore
import Testing

/// What a message may quote from a user: escaped by `echoed` and bounded as shown; config
/// values that reach paths, devices and command lines refuse what it would escape.
@Suite struct QuotedValueTests {
    @Test func escapesCountTowardsTheLimit() {
        // 100 bidi overrides used to become 800 characters under an 80-character limit.
        let bidi = echoed(String(repeating: "\u{202E}", count: 100))
        #expect(bidi.count <= 80, "\(bidi.count) characters")
        #expect(bidi == String(repeating: "\\u{202e}", count: 9) + "...")
        let c1 = echoed(String(repeating: "\u{9B}", count: 1000), limit: 200)
        #expect(c1.count <= 200)
        // Never half an escape before the ellipsis.
        #expect(echoed("ab\u{1B}\u{1B}", limit: 5) == "ab...")
        #expect(echoed("ab\u{1B}", limit: 4) == "ab\\e")
    }

    @Test func isEscapedByEchoIsWhatEchoedEscapes() {
        for value: UInt32 in [0x00, 0x09, 0x1B, 0x7F, 0x80, 0x85, 0x9B, 0x9F, 0x200E, 0x200F, 0x202A, 0x202E, 0x2066, 0x2069, 0xFEFF] {
            let scalar = Unicode.Scalar(value)!
            #expect(isEscapedByEcho(scalar), "U+\(String(value, radix: 16))")
            #expect(echoed(String(Character(scalar))) != String(Character(scalar)))
        }
        for text in ["a", "é", " ", "\\", "\u{A0}", "\u{2070}"] {
            #expect(!isEscapedByEcho(text.unicodeScalars.first!))
            #expect(echoed(text) == text)
        }
    }

    @Test(arguments: ["\u{9B}", "\u{85}", "\u{202E}", "\u{2066}", "\u{200F}"])
    func pathsDevicesAndHookCommandLinesRefuseC1AndBidi(_ bad: String) {
        var builder = ConfigBuilder()
        builder.add(text: """
            [sounds]
            device = plug\(bad)hw
            [metrics]
            textfile = /var/lib/\(bad)x.prom
            [operator]
            screenshot_path = /tmp/\(bad)shot.png
            [hooks]
            round_start = /bin/echo a\(bad)b
            """, file: "k.conf")
        let result = builder.finish()
        #expect(result.diagnostics.map(\.line) == [2, 4, 6, 8], "\(result.diagnostics)")
        #expect(result.diagnostics.allSatisfy { $0.severity == .error })
        for d in result.diagnostics {
            #expect(!d.description.unicodeScalars.contains { isEscapedByEcho($0) }, "\(d)")
        }
        #expect(result.settings.sounds.device == Settings().sounds.device)
        #expect(result.settings.metrics.textfile == nil)
        #expect(result.settings.operator.screenshotPath == nil)
        if case .success = HookCommandLine.parse("/bin/echo a\(bad)b") { Issue.record("hook command line accepted") }
    }
}

/// "Unreadable" is said, not inferred from a finding without a line number.
@Suite struct ConfigUnreadableTests {
    @Test func manyWarningsAreNotAnUnreadableFile() {
        var builder = ConfigBuilder()
        builder.add(text: "[game]\n" + (1...51).map { "nokey\($0) = 1\n" }.joined(), file: "many.conf")
        let result = builder.finish()
        // The 51st finding is counted on a line without a number...
        #expect(result.diagnostics.last?.line == nil)
        #expect(result.diagnostics.last?.message == "1 more findings not shown (0 errors, 1 warnings)")
        // ...which says nothing about whether the file could be read.
        #expect(result.unreadableFiles.isEmpty)
        #expect(!result.hasErrors)
    }

    @Test func anUnreadableFileIsRecordedAsSuch() {
        var builder = ConfigBuilder()
        builder.reportUnreadable("gone.conf", "cannot read: No such file or directory")
        let result = builder.finish()
        #expect(result.unreadableFiles == ["gone.conf"])
        #expect(result.hasErrors)
        #expect(result.diagnostics.map(\.description) == ["gone.conf: cannot read: No such file or directory"])
    }
}
