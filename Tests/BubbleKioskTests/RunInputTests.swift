import Foundation
import KioskCore
import Testing

/// `run`'s own inputs as a careless operator gives them: a config full of warnings, odd
/// numbers, stray signals, a recording that goes bad mid-replay, hostile paths.
@Suite(.serialized) struct RunInputTests {
    @Test func aConfigWithManyWarningsRunsChecksAndReloads() throws {
        let dir = try CommandRunner.temporaryDirectory()
        let conf = dir.appendingPathComponent("kiosk.conf")
        // 51 unknown keys: 50 listed and "1 more findings not shown", a line without a number.
        try ("[attract]\ndemo = false\n" + (1...51).map { "nokey\($0) = 1\n" }.joined())
            .write(to: conf, atomically: true, encoding: .utf8)
        let check = try CommandRunner.run(["check-config", conf.path])
        #expect(check.status == 0, "\(check.stderr)")
        let k = try SignalTests.Kiosk(["run", "--display", "virtual:160x100", "--config", conf.path, "--duration", "60",
                                       "--state-dir", dir.path], dir: dir)
        // Before: exit 3 right after the findings, with no word why.
        #expect(k.waitFor("bubble-kiosk: display virtual:160x100"), "\(k.stderr)")
        k.send(SIGHUP)
        #expect(k.waitFor("reloaded the configuration (1 file)"), "\(k.stderr)")
        k.send(SIGTERM)
        let end = k.wait()
        #expect(end.reason == .exit && end.status == 0, "\(end) \(k.stderr)")
    }

    @Test func anUnreadableConfigStillStopsTheRunWithAWord() throws {
        let r = try CommandRunner.run(["run", "--display", "virtual:160x100", "--config", "/nonexistent/kiosk.conf", "--duration", "1"])
        #expect(r.status == 3)
        #expect(r.stderr.contains("/nonexistent/kiosk.conf: cannot read: No such file or directory"), "\(r.stderr)")
        #expect(r.stderr.contains("bubble-kiosk: not starting: the file given with --config cannot be read"), "\(r.stderr)")
    }

    @Test(arguments: ["0x10", "1e-9", "1e1", "inf", "nan", "0", "0.05", "-1", " 1", "1s"])
    func durationTakesThePlainDecimalsTheConfigTakes(_ text: String) throws {
        let r = try CommandRunner.run(["run", "--display", "virtual:160x100", "--duration", text], timeout: 30)
        #expect(r.status == 2, "\(text): \(r.status) \(r.stderr)")
        #expect(r.stderr.hasPrefix("bubble-kiosk run: --duration expects seconds from 0.1 to 100000000"), "\(r.stderr)")
    }

    @Test func screenshotEveryTakesPlainDecimalsToo() throws {
        let dir = try CommandRunner.temporaryDirectory()
        for text in ["0x1", "1e0", "inf"] {
            let r = try CommandRunner.run(["run", "--display", "virtual:160x100", "--duration", "1",
                                           "--screenshot-every", text, dir.appendingPathComponent("s.png").path], timeout: 30)
            #expect(r.status == 2, "\(text): \(r.status) \(r.stderr)")
        }
        let ok = try CommandRunner.run(["run", "--display", "virtual:160x100", "--duration", "0.1", "--seed", "1"], timeout: 30)
        #expect(ok.status == 0, "\(ok.stderr)")
    }

    @Test func signalsNobodyHandlesAreLoggedAndIgnored() throws {
        let dir = try CommandRunner.temporaryDirectory()
        let k = try SignalTests.Kiosk(["run", "--display", "virtual:160x100", "--duration", "60", "--seed", "1"], dir: dir)
        #expect(k.waitFor("bubble-kiosk: display virtual:160x100"), "\(k.stderr)")
        // Before: each of these ended the process by its default action.
        let rtmin = __libc_current_sigrtmin(), rtmax = __libc_current_sigrtmax()
        let named: [(Int32, String)] = [
            (SIGUSR2, "SIGUSR2"), (SIGALRM, "SIGALRM"), (SIGVTALRM, "SIGVTALRM"), (SIGXCPU, "SIGXCPU"), (SIGPWR, "SIGPWR"),
            (SIGIO, "SIGIO"), (SIGPROF, "SIGPROF"), (SIGXFSZ, "SIGXFSZ"), (SIGSTKFLT, "SIGSTKFLT"), (SIGSYS, "SIGSYS"),
            (SIGTRAP, "SIGTRAP"), (rtmin + 1, "SIGRTMIN+1"), (rtmin + 7, "SIGRTMIN+7"), (rtmax, "SIGRTMIN+\(rtmax - rtmin)"),
        ]
        for (signal, name) in named {
            k.send(signal)
            #expect(k.waitFor("bubble-kiosk: signal \(signal) (\(name)) ignored\n"), "\(k.stderr)")
        }
        // SIGRTMIN itself is the VT's (here: none) and every one of them is watched, not fatal.
        for signal in (rtmin + 2)...(rtmax - 1) where signal != rtmin + 7 { k.send(signal) }
        k.send(SIGUSR1)
        #expect(k.waitFor("screenshot written to"), "\(k.stderr)")
        #expect(k.process.isRunning)
        k.send(SIGTERM)
        let end = k.wait()
        #expect(end.reason == .exit && end.status == 0, "\(end) \(k.stderr)")
    }

    /// A screenshot past the file-size limit (`ulimit -f`): SIGXFSZ would have killed the kiosk;
    /// now the write fails as a write error, one line, and the kiosk goes on.
    @Test func aFileSizeLimitIsAWriteError() throws {
        let dir = try CommandRunner.temporaryDirectory()
        let shot = dir.appendingPathComponent("big.png").path
        let script = """
            ulimit -f 1
            "$0" run --display virtual:640x400 --duration 3 --seed 2 --screenshot "$1"
            echo "kiosk=$?"
            """
        let r = try CommandRunner.shell(script, [shot], environment: ["STATE_DIRECTORY": dir.appendingPathComponent("state").path])
        let (text, errors) = (r.stdout, r.stderr)
        #expect(text.contains("kiosk=0"), "\(text) \(errors)")
        #expect(errors.contains("screenshot \(shot): File too large (write, errno 27)"), "\(errors)")
    }

    @Test func aBadLineMidReplayIsLoggedWithThePrefix() throws {
        let dir = try CommandRunner.temporaryDirectory()
        let file = dir.appendingPathComponent("bad.evemu")
        var builder = RecordingBuilder(screen: PixelSize(width: 800, height: 600))
        builder.tap(at: Vector2(400, 300), start: .milliseconds(100))
        var text = builder.text()
        text += "E: 1.000000 0003 zz 1\n"
        try text.write(to: file, atomically: true, encoding: .utf8)
        let line = text.split(separator: "\n", omittingEmptySubsequences: false).count - 1
        let r = try CommandRunner.run(["run", "--display", "virtual:800x600", "--input", "replay:" + file.path,
                                       "--duration", "2", "--seed", "1"], timeout: 30)
        #expect(r.status == 0, "\(r.stderr)")
        // Before: `FILE:LINE: ...` alone, unlike every other line of the running kiosk.
        #expect(r.stderr.contains("bubble-kiosk: \(file.path):\(line): "), "\(r.stderr)")
        #expect(!r.stderr.split(separator: "\n").contains { $0.hasPrefix(file.path) }, "\(r.stderr)")
    }

    @Test func hostilePathsGiveShortEscapedLines() throws {
        let dir = try CommandRunner.temporaryDirectory()
        // 100 C1 CSIs and bidi overrides: 8 characters each once escaped.
        let folder = dir.appendingPathComponent(String(repeating: "\u{9B}", count: 50) + String(repeating: "\u{202E}", count: 50)).path
        let r = try CommandRunner.run(["run", "--display", "virtual:160x100", "--duration", "0.5", "--seed", "1",
                                       "--input", "replay:" + folder + "/x.evemu"], timeout: 30)
        let s = try CommandRunner.run(["run", "--display", "virtual:160x100", "--duration", "0.5", "--seed", "1",
                                       "--screenshot", folder + "/" + folder.suffix(60) + ".png"], timeout: 30)
        #expect(s.status == 0, "\(s.stderr)")
        #expect(s.stderr.contains("bubble-kiosk: screenshot "), "\(s.stderr)")
        for out in [r, s] {
            for line in out.stderr.split(separator: "\n") {
                #expect(line.count <= 320, "\(line.count) characters: \(line.prefix(120))")
                #expect(!line.unicodeScalars.contains { isEscapedByEcho($0) }, "\(line.prefix(120))")
            }
        }
        let conf = dir.appendingPathComponent("bidi.conf")
        try "[sounds]\ndevice = plug\u{202E}hw\n[hooks]\nstart = /bin/echo \u{9B}2J\n".write(to: conf, atomically: true, encoding: .utf8)
        let check = try CommandRunner.run(["check-config", conf.path])
        #expect(check.status == 1)
        #expect(check.stdout.isEmpty, "printed the values raw: \(check.stdout)")
        #expect(check.stderr.contains("\(conf.path):2: device: expected"), "\(check.stderr)")
        #expect(check.stderr.contains("\\u{202e}") && check.stderr.contains("\\u{009b}"), "\(check.stderr)")
        #expect(!check.stderr.unicodeScalars.contains { $0.value != 0x0A && isEscapedByEcho($0) })
    }
}
