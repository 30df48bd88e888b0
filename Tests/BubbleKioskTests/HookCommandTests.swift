import Foundation
import KioskTestSupport
import Testing

/// `[hooks]` through the real binary: config errors with file and line, and a hook run by
/// `bubble-kiosk run`.
@Suite struct HookCommandTests {
    @Test func checkConfigNamesAnUnclosedQuoteWithFileAndLine() throws {
        let dir = try CommandRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("k.conf")
        try "[hooks]\npop = /usr/local/bin/kiosk-led 'pulse\nidle = /bin/true \"ok\"\n".write(to: file, atomically: true, encoding: .utf8)
        let r = try CommandRunner.run(["check-config", file.path], timeout: 30)
        #expect(r.status == 1)
        #expect(r.stderr.contains("\(file.path):2: pop: not a command line: a single quote (') is not closed"), "\(r.stderr)")
        #expect(!r.stderr.contains(":3:"))
    }

    @Test func theKioskRunsItsStartHookWithoutTheServiceManagersVariables() throws {
        let dir = try CommandRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let script = dir.appendingPathComponent("record")
        try "#!/bin/sh\nenv > \"$1/env\"\ncat > \"$1/stdin\"\necho recorded\n".write(to: script, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: script.path)
        let config = dir.appendingPathComponent("k.conf")
        try "[hooks]\nstart = '\(script.path)' '\(dir.path)'\nidle = kiosk-led-not-installed\n".write(to: config, atomically: true, encoding: .utf8)
        let r = try CommandRunner.run(["run", "--display", "virtual:320x200", "--config", config.path, "--duration", "1.5"],
                                      environment: ["NOTIFY_SOCKET": dir.appendingPathComponent("no-socket").path,
                                                    "WATCHDOG_USEC": "60000000"],
                                      timeout: 60)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.contains("hook idle: kiosk-led-not-installed: not found in PATH"), "\(r.stderr)")
        #expect(r.stderr.contains("]: recorded"), "\(r.stderr)")
        let env = readText(dir.appendingPathComponent("env").path) ?? ""
        let lines = Set(env.split(separator: "\n").map(String.init))
        #expect(lines.contains("BUBBLE_EVENT=start") && lines.contains("BUBBLE_DISPLAY=virtual:320x200"), "\(env)")
        #expect(!lines.contains { $0.hasPrefix("NOTIFY_SOCKET=") || $0.hasPrefix("WATCHDOG_") })
        let stdin = readText(dir.appendingPathComponent("stdin").path) ?? ""
        #expect(stdin.hasPrefix(#"{"event":"start","time":"#) && stdin.hasSuffix(#","display":"virtual:320x200","input":"none"}"# + "\n"), "\(stdin)")
    }
}
