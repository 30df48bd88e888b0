import Foundation
import KioskCore
import KioskTestSupport
import Testing

/// Damaged configs and recordings for the fuzz tests, drawn from the project's seeded generator:
/// a failure prints its seed and case number, and the same pair rebuilds the same input.
struct InputMutator {
    private var rng: SeededGenerator

    init(seed: UInt64) { rng = SeededGenerator(seed: seed) }

    /// Numbers and texts that have broken parsers before: overflow, NaN, control bytes, length.
    static let extremes = [
        "1e308", "-1e308", "nan", "NaN", "inf", "-inf", "", "0", "-0", "-1", "0.0000001",
        "99999999999999999999", "9223372036854775807", "-9223372036854775808", "9223372036854775808",
        "2147483647", "-2147483648", "10000000000000000 0 0 0 1 0", "0 0 0 0 0 0", "1 0 0 0 1 0",
        "10 10 10 10 10 10", "-10 0 10 0 -10 10", "1 0 5 0 1 0", "\u{1B}[2J", "a\u{0}b", "\u{7F}\u{9B}",
        String(repeating: "9", count: 5000), String(repeating: "x", count: 3000), "auto", "true", "1.5.5", "0x10",
    ]

    /// Fixture recordings that parse (the `malformed-*` ones are broken on purpose already).
    static let recordings = ["format-1.1.evemu", "protocol-a-btn-touch-release.evemu", "protocol-a-tracking-ids.evemu",
                             "protocol-b-syn-dropped.evemu", "protocol-b-two-fingers.evemu", "qemu-usb-tablet.evemu",
                             "single-touch-press-release-one-frame.evemu", "single-touch.evemu"]

    mutating func int(_ range: ClosedRange<Int>) -> Int { Int.random(in: range, using: &rng) }
    mutating func chance(_ p: Double) -> Bool { Double.random(in: 0..<1, using: &rng) < p }
    mutating func pick<T>(_ items: [T]) -> T { items[int(0...items.count - 1)] }

    /// A value for a config key: an extreme, a random number of any size, or random bytes.
    mutating func value() -> String {
        switch int(0...5) {
        case 0, 1: return pick(Self.extremes)
        case 2: return String(Double.random(in: -1e6...1e6, using: &rng))
        case 3: return String(int(-100_000...100_000))
        case 4: return (0..<int(1...6)).map { _ in String(Double.random(in: -20...20, using: &rng)) }.joined(separator: " ")
        default: return randomText(int(0...40))
        }
    }

    mutating func randomText(_ count: Int) -> String {
        String(String.UnicodeScalarView((0..<count).map { _ in Unicode.Scalar(UInt8(int(1...255))) }))
    }

    /// A config of a few keys of `ConfigSchema.standard`, most in their own section, with
    /// extreme values and now and then a damaged line.
    mutating func config() -> String {
        let keys = ConfigSchema.standard.keys
        var text = ""
        for _ in 0..<int(1...8) {
            let key = pick(keys)
            switch int(0...9) {
            case 0: text += randomText(int(0...60)) + "\n"
            case 1: text += "[\(key.section)]\n\(key.name)\(value())\n"
            case 2: text += "[\(pick(Self.extremes))]\n\(key.name) = \(value())\n"
            default: text += "[\(key.section)]\n\(key.name) = \(value())\n"
            }
        }
        return text
    }

    /// A fixture with a few lines damaged: numbers in `E:` and `A:` lines made extreme, lines
    /// cut, dropped, repeated or replaced with junk.
    mutating func recording(from text: String) -> String {
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let numbers = ["9223372036854.999999", "9999999999.999999", "10000000000.000000", "0.000000", "-1.000000",
                       "1e308", "2147483647", "-2147483648", "2147483648", "-001", "0", "ffff", "nan",
                       "99999999999999999999", "4294967295", "1.5"]
        for _ in 0..<int(1...5) {
            let i = int(0...lines.count - 1)
            var fields = lines[i].split(separator: " ", omittingEmptySubsequences: false).map(String.init)
            switch int(0...9) {
            case 0...3 where fields.count > 1:
                // E: and A: lines are most of a file; aim at their numbers.
                fields[int(1...fields.count - 1)] = pick(numbers)
                lines[i] = fields.joined(separator: " ")
            case 4: lines[i] = String(lines[i].prefix(int(0...lines[i].count)))
            case 5: lines.remove(at: i)
            case 6: lines.insert(pick(lines), at: i)
            case 7: lines[i] += "\u{1B}[2J" + randomText(int(0...3))
            case 8: lines[i] = randomText(int(0...50))
            default: lines[i] = "A: " + (0..<6).map { _ in pick(numbers) }.joined(separator: " ")
            }
            if lines.isEmpty { lines = [""] }
        }
        return lines.joined(separator: "\n")
    }
}

/// Checks one run of the binary on fuzzed input: an exit code of 0, 1 or 2 (never a signal or
/// a hang), and every stderr line located at a file or a known line, escaped and short.
private func checkRun(_ r: CommandRunner.Result, files: [String], _ context: @autoclosure () -> String) {
    #expect(r.signal == nil && !r.timedOut && [0, 1, 2].contains(r.status),
            "status \(r.status) signal \(r.signal.map(String.init) ?? "none") \(context())\n\(r.stderr.suffix(2000))")
    for line in r.stderr.split(separator: "\n") {
        let located = files.contains { line.hasPrefix($0 + ":") }
        let known = line.hasPrefix("usage: ") || line.hasPrefix("bubble-kiosk ")
        #expect(located || known, "unexpected stderr line '\(line.prefix(300))' \(context())")
        #expect(line.count <= 400, "stderr line of \(line.count) characters \(context())")
        #expect(!line.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F || (0x80..<0xA0).contains($0.value) },
                "control character in '\(line.prefix(300))' \(context())")
    }
}

/// Seeds from `BUBBLE_KIOSK_FUZZ_SEED` when set (to replay a failure), else fixed ones.
private func fuzzSeed(_ fallback: UInt64) -> UInt64 {
    ProcessInfo.processInfo.environment["BUBBLE_KIOSK_FUZZ_SEED"].flatMap { UInt64($0) } ?? fallback
}

@Suite struct HostileFileTests {
    @Test func checkConfigRefusesDevZero() throws {
        let r = try CommandRunner.run(["check-config", "/dev/zero"], timeout: 20)
        #expect(r.signal == nil && r.status == 1)
        #expect(r.stderr == "/dev/zero: not a regular file (a character device)\n")
    }

    @Test func fifosAreRefusedWithoutWaitingForAWriter() throws {
        let dir = try CommandRunner.temporaryDirectory()
        let fifo = dir.appendingPathComponent("fifo").path
        #expect(mkfifo(fifo, 0o600) == 0)
        let config = try CommandRunner.run(["check-config", fifo], timeout: 20)
        #expect(!config.timedOut && config.status == 1, "\(config.stderr)")
        #expect(config.stderr == "\(fifo): not a regular file (a FIFO)\n")
        let play = try CommandRunner.run(["gestures", fifo, "--size", "800x480"], timeout: 20)
        #expect(!play.timedOut && play.status == 2, "\(play.stderr)")
        #expect(play.stderr == "\(fifo): cannot read recording: not a regular file (a FIFO)\n")
        // An operator's command answers for the settings asked for, or not at all.
        let state = try CommandRunner.run(["state", "--seed", "1", "--size", "80x80", "--config", fifo], timeout: 20)
        #expect(!state.timedOut && state.status == 1)
        #expect(state.stderr == "\(fifo): not a regular file (a FIFO)\n"
                + "bubble-kiosk state: \(fifo): the file given with --config cannot be read\n", "\(state.stderr)")
        for args in [["scores"], ["scores", "--json"], ["scores", "--mode", "timed"]] {
            let r = try CommandRunner.run(args + ["--state-dir", dir.path, "--config", fifo], timeout: 20)
            #expect(!r.timedOut && r.status == 1, "\(args): \(r.stderr)")
        }
        let missing = try CommandRunner.run(["scores", "--state-dir", dir.path, "--config", dir.path + "/nothing.conf"], timeout: 20)
        #expect(missing.status == 1 && missing.stdout.isEmpty, "\(missing.stderr)")
        #expect(missing.stderr.hasSuffix("bubble-kiosk scores: \(dir.path)/nothing.conf: the file given with --config cannot be read\n"),
                "\(missing.stderr)")
    }

    @Test func aTooLargeConfigIsOneClearLine() throws {
        let dir = try CommandRunner.temporaryDirectory()
        let file = dir.appendingPathComponent("big.conf")
        let text = "[game]\nbubbles = 5\n" + String(repeating: "# padding\n", count: 110_000)
        try text.write(to: file, atomically: true, encoding: .utf8)
        let r = try CommandRunner.run(["check-config", file.path], timeout: 30)
        #expect(r.status == 1)
        #expect(r.stderr == "\(file.path): too large (\(text.utf8.count) bytes, at most 1 MiB)\n")
    }

    @Test func aDirectoryIsNoRecording() throws {
        let dir = try CommandRunner.temporaryDirectory()
        let r = try CommandRunner.run(["play", dir.path, "--seed", "1", "--size", "800x480"], timeout: 20)
        #expect(r.status == 2)
        #expect(r.stderr == "\(dir.path): cannot read recording: not a regular file (a directory)\n")
    }

    @Test func hugeEventTimesAreAnErrorLineNotASignal() throws {
        let dir = try CommandRunner.temporaryDirectory()
        let file = dir.appendingPathComponent("huge.evemu")
        var text = Fixture.text("single-touch.evemu")
        if !text.hasSuffix("\n") { text += "\n" }
        text += "E: 9223372036854.999999 0000 0000 0000\n"
        try text.write(to: file, atomically: true, encoding: .utf8)
        let line = text.split(separator: "\n", omittingEmptySubsequences: false).count - 1
        let expected = "\(file.path):\(line): expected a time of at most 9999999999 seconds, got '9223372036854.999999'\n"
        for args in [["play", file.path, "--seed", "1", "--size", "800x480"],
                     ["play", file.path, "--seed", "1", "--size", "800x480", "--mode", "timed"],
                     ["gestures", file.path, "--size", "800x480"]] {
            let r = try CommandRunner.run(args, timeout: 30)
            #expect(r.signal == nil && r.status == 2, "\(args): \(r.status) \(r.stderr)")
            #expect(r.stderr == expected, "\(args)")
            #expect(r.stdout.isEmpty, "\(args)")
        }
        let run = try CommandRunner.run(["run", "--display", "virtual:64x64", "--input", "replay:" + file.path,
                                         "--duration", "1"], timeout: 30)
        #expect(run.signal == nil && [0, 1, 2].contains(run.status), "\(run.status) \(run.stderr)")
        #expect(run.stderr.contains(expected), "\(run.stderr)")
    }

    @Test func sizesBeyondDRMAreUsageErrors() throws {
        let state = try CommandRunner.run(["state", "--seed", "1", "--size", "16384x16384"], timeout: 20)
        #expect(state.status == 2)
        #expect(state.stderr.hasPrefix("bubble-kiosk state: --size expects WxH such as 1280x800, each side at most 8192, got '16384x16384'\n"))
        let gestures = try CommandRunner.run(["gestures", Fixture.path("single-touch.evemu"), "--size", "8193x10"],
                                             timeout: 20)
        #expect(gestures.status == 2)
    }

    @Test func echoedArgumentsAreEscapedAndShort() throws {
        let r = try CommandRunner.run(["state", "--seed", "1", "--size", "\u{1B}[2J" + String(repeating: "9", count: 10_000)],
                                      timeout: 20)
        #expect(r.status == 2)
        checkRun(r, files: [], "state with a hostile --size")
    }
}

@Suite struct FuzzedInputCommandTests {
    /// Mutated configs over every key through `check-config`, and through `play` with that config.
    @Test func fuzzedConfigsNeverCrashTheBinary() throws {
        let seed = fuzzSeed(7)
        var mutator = InputMutator(seed: seed)
        let dir = try CommandRunner.temporaryDirectory()
        let recording = Fixture.path("protocol-b-two-fingers.evemu")
        for n in 0..<150 {
            let file = dir.appendingPathComponent("fuzz-\(n).conf")
            let text = mutator.config()
            try text.write(to: file, atomically: true, encoding: .utf8)
            let context = "(seed \(seed), case \(n), config \(String(reflecting: String(text.prefix(400)))))"
            checkRun(try CommandRunner.run(["check-config", file.path], timeout: 30), files: [file.path], context)
            let size = mutator.pick(["800x480", "1x1", "1280x800", "64x2000"])
            let mode = mutator.pick(["classic", "timed"])
            checkRun(try CommandRunner.run(["play", recording, "--seed", String(n), "--size", size, "--mode", mode,
                                            "--config", file.path], timeout: 30),
                     files: [file.path, recording], context + " play --size \(size) --mode \(mode)")
        }
    }

    /// Mutated fixture recordings through `play` and `gestures`.
    @Test func fuzzedRecordingsNeverCrashTheBinary() throws {
        let seed = fuzzSeed(11)
        var mutator = InputMutator(seed: seed)
        let dir = try CommandRunner.temporaryDirectory()
        for n in 0..<150 {
            let name = mutator.pick(InputMutator.recordings)
            let text = mutator.recording(from: Fixture.text(name))
            let file = dir.appendingPathComponent("fuzz-\(n).evemu")
            try text.write(to: file, atomically: true, encoding: .utf8)
            let context = "(seed \(seed), case \(n), from \(name))"
            checkRun(try CommandRunner.run(["play", file.path, "--seed", "3", "--size", "800x480"], timeout: 30),
                     files: [file.path], context + " play")
            checkRun(try CommandRunner.run(["gestures", file.path, "--size", mutator.pick(["1280x800", "1x1"]), "--moves"],
                                           timeout: 30),
                     files: [file.path], context + " gestures")
        }
    }
}

/// The same damage in-process, many more cases: the parsers, the builder and the decoder.
@Suite struct FuzzedInputParserTests {
    @Test func fuzzedConfigsGiveLocatedFindingsAndSettingsInRange() {
        let seed = fuzzSeed(21)
        var mutator = InputMutator(seed: seed)
        let schema = ConfigSchema.standard
        for n in 0..<3000 {
            let text = mutator.config()
            let context = "(seed \(seed), case \(n), config \(String(reflecting: String(text.prefix(300)))))"
            var builder = ConfigBuilder()
            builder.add(text: text, file: "f.conf")
            let result = builder.finish()
            for d in result.diagnostics {
                let line = d.description
                #expect(line.hasPrefix("f.conf:") && d.line != nil, "\(line.prefix(200)) \(context)")
                #expect(line.count <= 400 && !line.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F },
                        "\(line.prefix(200)) \(context)")
            }
            // Whatever got through is within every key's range and survives a round trip.
            for key in schema.keys {
                var copy = result.settings
                #expect(key.apply(key.render(result.settings), to: &copy) == nil, "\(key.id) \(context)")
            }
            #expect(result.settings.game.bubbleMinMM <= result.settings.game.bubbleMaxMM, "\(context)")
            #expect(TouchTransform.calibrationProblem(result.settings.input.calibration) == nil, "\(context)")
        }
    }

    @Test func fuzzedRecordingsParseOrFailAtALineAndDecodeOntoTheScreen() throws {
        let seed = fuzzSeed(31)
        var mutator = InputMutator(seed: seed)
        let texts = InputMutator.recordings.map { ($0, Fixture.text($0)) }
        let thresholds = GestureThresholds(GestureSettings(), pxPerMM: 4)
        for n in 0..<1500 {
            let (name, original) = mutator.pick(texts)
            let text = mutator.recording(from: original)
            let lineCount = text.split(separator: "\n", omittingEmptySubsequences: false).count
            let screen = mutator.pick([PixelSize(width: 1280, height: 800), PixelSize(width: 1, height: 1),
                                       PixelSize(width: 8192, height: 8192)])
            let context = "(seed \(seed), case \(n), from \(name), screen \(screen))"
            do {
                var reader = try EvemuReader(text: text, file: "r.evemu")
                var decoder = TouchDecoder(device: reader.header.device, screen: screen)
                while let event = try reader.next() {
                    for frame in decoder.feed(event) {
                        for c in frame.contacts {
                            #expect(c.position.x >= 0 && c.position.x <= Double(screen.width)
                                    && c.position.y >= 0 && c.position.y <= Double(screen.height),
                                    "\(c.position) \(context)")
                        }
                    }
                }
                var again = try EvemuReader(text: text, file: "r.evemu")
                _ = try Replay.gestures(reading: &again, screen: screen, thresholds: thresholds) { g in
                    #expect(g.position.x >= 0 && g.position.x <= Double(screen.width), "\(g) \(context)")
                }
            } catch {
                #expect(error.file == "r.evemu" && (1...max(lineCount, 1)).contains(error.line), "\(error) \(context)")
                #expect(error.description.count <= 400 && !error.description.unicodeScalars.contains { $0.value < 0x20 },
                        "\(error.description.prefix(200)) \(context)")
            }
        }
    }
}

/// `check-config` on `[mqtt]` settings that could never work: named at once, not found at the
/// kiosk's first connection.
@Suite struct MQTTCheckConfigTests {
    @Test func unusableBrokersAndAHalfCertificatePairFail() throws {
        let dir = try CommandRunner.temporaryDirectory()
        for (text, words) in [
            ("broker = mqtt://[:::]", "broker: expected mqtt://HOST[:PORT] or mqtts://HOST[:PORT] (not an IPv6 address inside [ ])"),
            ("broker = mqtt://999.999.999.999", "(not an IPv4 address (four numbers from 0 to 255))"),
            ("broker = mqtts://b.example\ncert_file = /etc/bubble-kiosk/kiosk.pem",
             "cert_file: needs key_file as well (both or neither), got '/etc/bubble-kiosk/kiosk.pem' without it"),
        ] {
            let file = dir.appendingPathComponent("k.conf")
            try "[mqtt]\n\(text)\n".write(to: file, atomically: true, encoding: .utf8)
            let r = try CommandRunner.run(["check-config", file.path], timeout: 20)
            #expect(r.status == 1, "\(text): \(r.stderr)")
            #expect(r.stderr.contains(words), "\(r.stderr)")
        }
    }
}
