import Foundation
import KioskTestSupport
import Testing

/// The binary under a (stand-in) service manager: sd_notify datagrams on a real socket, and
/// journal level prefixes when standard error is the journal's stream.
@Suite struct ServiceManagerTests {
    /// Exit statuses say why the kiosk stopped (listed in doc/installing.md).
    @Test func exitStatusesSayWhy() throws {
        let missing = try CommandRunner.run(["run", "--display", "virtual:320x200", "--duration", "1",
                                             "--config", "/nonexistent/kiosk.conf"])
        #expect(missing.status == 3, "\(missing.stderr)")
        #expect(missing.stderr.contains("/nonexistent/kiosk.conf"))
        let noCard = try CommandRunner.run(["run", "--display", "drm:/nonexistent/card9", "--duration", "1"])
        #expect(noCard.status == 4, "\(noCard.stderr)")
        let usage = try CommandRunner.run(["run", "--duration", "1e13"])
        #expect(usage.status == 2, "\(usage.stderr)")
    }
}

extension ServiceManagerTests {
    /// Watchdog pings counted over 2 s of real time.
    @Suite(.tags(.timing)) struct Timing {
        @Test func notifiesReadyStatusAndWatchdogAndPrefixesJournalLines() throws {
            let dir = try CommandRunner.temporaryDirectory()
            let socketPath = dir.appendingPathComponent("notify").path
            let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
            #expect(fd >= 0)
            defer { close(fd) }
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            withUnsafeMutableBytes(of: &address.sun_path) { raw in
                for (i, b) in socketPath.utf8.enumerated() { raw[i] = b }
            }
            let bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
            }
            #expect(bound == 0)
            var timeout = timeval(tv_sec: 0, tv_usec: 200_000)
            setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))

            let errPath = dir.appendingPathComponent("stderr").path
            writeFile(errPath, "")
            let err = try #require(FileHandle(forWritingAtPath: errPath))
            var st = stat()
            #expect(fstat(err.fileDescriptor, &st) == 0)
            let conf = dir.appendingPathComponent("kiosk.conf")
            try "[attract]\ndemo = false\n[score]\nmiss = lots\n".write(to: conf, atomically: true, encoding: .utf8)

            let p = Process()
            p.executableURL = CommandRunner.binary
            p.arguments = ["run", "--display", "virtual:320x200", "--duration", "2", "--config", conf.path]
            var env = ProcessInfo.processInfo.environment
            env["NOTIFY_SOCKET"] = socketPath
            env["ALSA_CONFIG_PATH"] = TestALSA.silentConfig
            env["STATE_DIRECTORY"] = dir.appendingPathComponent("state").path
            env["WATCHDOG_USEC"] = "400000"
            env["JOURNAL_STREAM"] = "\(st.st_dev):\(st.st_ino)"
            p.environment = env
            p.standardError = err
            p.standardOutput = FileHandle.nullDevice
            try p.run()
            var messages: [String] = []
            var buffer = [UInt8](repeating: 0, count: 4096)
            while p.isRunning || messages.isEmpty {
                let n = recv(fd, &buffer, buffer.count, 0)
                if n > 0 { messages.append(String(decoding: buffer[0..<n], as: UTF8.self)) }
                if !p.isRunning && n <= 0 { break }
            }
            p.waitUntilExit()
            #expect(p.terminationStatus == 0)
            #expect(messages.first == "READY=1\nSTATUS=start screen", "\(messages)")
            let pings = messages.filter { $0 == "WATCHDOG=1" }.count
            // Every 200 ms for 2 s, give or take the start and a loaded machine.
            #expect(pings >= 5 && pings <= 11, "\(messages)")
            let lines = try #require(readText(errPath)).split(separator: "\n")
            #expect(lines.contains { $0.hasPrefix("<3>bubble-kiosk: \(conf.path):4: miss: ") }, "\(lines)")
            #expect(lines.contains { $0.hasPrefix("<6>bubble-kiosk: display virtual:320x200") }, "\(lines)")
            #expect(lines.allSatisfy { $0.hasPrefix("<") }, "\(lines)")
        }
    }
}
