import Foundation
import KioskTestSupport
import Testing

/// Debian's node_exporter (package `prometheus-node-exporter`), started for the test on a
/// loopback port with only its textfile collector, reading one folder.
final class NodeExporter {
    static let binary = "/usr/bin/prometheus-node-exporter"
    static var installed: Bool { FileManager.default.isExecutableFile(atPath: binary) }

    let process = Process()
    let port: UInt16
    let logPath: String

    /// Starts it and waits (at most 10 s) until it answers; tries three ports.
    static func start(textfileDirectory dir: String, logDirectory: URL) throws -> NodeExporter {
        var lastError: Error?
        for _ in 0..<3 {
            let exporter = try NodeExporter(textfileDirectory: dir, port: UInt16.random(in: 20_000...60_000), logDirectory: logDirectory)
            do {
                try exporter.waitUntilReady()
                return exporter
            } catch {
                lastError = error
                exporter.stop()
            }
        }
        throw lastError!
    }

    private init(textfileDirectory dir: String, port: UInt16, logDirectory: URL) throws {
        self.port = port
        logPath = logDirectory.appendingPathComponent("node-exporter-\(port).log").path
        writeFile(logPath, "")
        process.executableURL = URL(fileURLWithPath: Self.binary)
        process.arguments = ["--collector.disable-defaults", "--collector.textfile",
                             "--collector.textfile.directory=\(dir)", "--web.listen-address=127.0.0.1:\(port)",
                             "--web.disable-exporter-metrics"]
        process.standardOutput = FileHandle(forWritingAtPath: logPath)
        process.standardError = FileHandle(forWritingAtPath: logPath)
        try process.run()
    }

    var log: String { readText(logPath) ?? "" }

    private func waitUntilReady() throws {
        let ready = try eventually(within: .seconds(10), every: .milliseconds(100)) {
            if !process.isRunning { throw CommandRunner.TestFailure("node_exporter exited: \(log)") }
            return (try? scrape()) != nil
        }
        if ready { return }
        throw CommandRunner.TestFailure("node_exporter did not answer on 127.0.0.1:\(port) within 10 s: \(log)")
    }

    func stop() {
        guard process.isRunning else { return }
        process.terminate()
        process.waitUntilExit()
    }

    /// `GET /metrics` over loopback (plain HTTP/1.0, at most 5 s per send and receive).
    func scrape() throws -> String {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw CommandRunner.TestFailure("socket: \(errno)") }
        defer { close(fd) }
        var tv = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = port.bigEndian
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { throw CommandRunner.TestFailure("connect 127.0.0.1:\(port): errno \(errno)") }
        let request = Array("GET /metrics HTTP/1.0\r\nHost: 127.0.0.1:\(port)\r\n\r\n".utf8)
        guard send(fd, request, request.count, 0) == request.count else { throw CommandRunner.TestFailure("send: errno \(errno)") }
        var response: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = recv(fd, &chunk, chunk.count, 0)
            if n == 0 { break }
            guard n > 0 else { throw CommandRunner.TestFailure("recv: errno \(errno)") }
            response += chunk[0..<n]
            guard response.count < 16 << 20 else { throw CommandRunner.TestFailure("response over 16 MiB") }
        }
        let text = String(decoding: response, as: UTF8.self)
        guard let split = text.range(of: "\r\n\r\n") else { throw CommandRunner.TestFailure("no HTTP response: \(text)") }
        let status = text[..<split.lowerBound].split(separator: "\r\n").first ?? ""
        guard status.contains(" 200 ") else { throw CommandRunner.TestFailure("HTTP status: \(status)") }
        return String(text[split.upperBound...])
    }
}

/// Samples of a scraped text, by name and labels (whatever order the exporter writes them in).
struct Scrape {
    let text: String
    private(set) var samples: [(name: String, labels: [String: String], value: Double)] = []

    init(_ text: String) {
        self.text = text
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            guard let space = line.lastIndex(of: " "), let value = Double(line[line.index(after: space)...]) else { continue }
            let series = line[..<space]
            var labels: [String: String] = [:]
            var name = String(series)
            if let brace = series.firstIndex(of: "{") {
                name = String(series[..<brace])
                for pair in series[series.index(after: brace)..<series.index(before: series.endIndex)].split(separator: ",") {
                    let kv = pair.split(separator: "=", maxSplits: 1)
                    guard kv.count == 2 else { continue }
                    labels[String(kv[0])] = String(kv[1].dropFirst().dropLast())
                }
            }
            samples.append((name, labels, value))
        }
    }

    func value(_ name: String, _ labels: [String: String] = [:]) -> Double? {
        samples.first { $0.name == name && $0.labels == labels }?.value
    }
}

/// The kiosk's metrics as the fleet sees them: the real exporter scraping the textfile the
/// real kiosk writes while it plays a recorded round. Tagged for timing: the frame time the
/// kiosk measured is held to a bound.
@Suite(.serialized, .tags(.timing)) struct NodeExporterTests {
    @Test(.enabled(if: NodeExporter.installed,
                   "prometheus-node-exporter is not installed (apt-get install prometheus-node-exporter)"),
          .timeLimit(.minutes(2)))
    func nodeExporterScrapesTheKiosksSeries() throws {
        let dir = try CommandRunner.temporaryDirectory()
        let textfiles = dir.appendingPathComponent("textfile")
        try FileManager.default.createDirectory(at: textfiles, withIntermediateDirectories: true)
        let prom = textfiles.appendingPathComponent("bubble-kiosk.prom").path

        // The round that seed 3 gives, all popped; `play` says which kinds.
        let recording = dir.appendingPathComponent("round.evemu").path
        let rec = try CommandRunner.run(["round-recording", "--seed", "3", "--size", "640x400"])
        #expect(rec.status == 0, "\(rec.stderr)")
        try rec.stdout.write(toFile: recording, atomically: true, encoding: .utf8)
        let play = try CommandRunner.run(["play", recording, "--seed", "3", "--size", "640x400"])
        let bubbles = try #require(try play.json()["bubbles"] as? [[String: Any]])
        #expect(try play.json()["round_over"] as? Bool == true)
        let poppedTaps = bubbles.filter { $0["popped"] as? Bool == true && $0["kind"] as? String == "tap" }.count
        let poppedSwipes = bubbles.filter { $0["popped"] as? Bool == true && $0["kind"] as? String == "swipe" }.count
        let poppedDrags = bubbles.filter { $0["popped"] as? Bool == true && $0["kind"] as? String == "drag" }.count
        #expect(poppedTaps + poppedSwipes + poppedDrags == bubbles.count)

        let conf = dir.appendingPathComponent("kiosk.conf")
        try "[attract]\ndemo = false\n[metrics]\ntextfile = \(prom)\ninterval_s = 1\n"
            .write(to: conf, atomically: true, encoding: .utf8)

        let exporter = try NodeExporter.start(textfileDirectory: textfiles.path, logDirectory: dir)
        defer { exporter.stop() }
        let startedAt = Date().timeIntervalSince1970
        let kiosk = try SignalTests.Kiosk(["run", "--display", "virtual:640x400", "--input", "replay:\(recording)",
                                           "--seed", "3", "--duration", "60", "--config", conf.path], dir: dir)
        defer { if kiosk.process.isRunning { kiosk.send(SIGKILL) } }
        #expect(kiosk.waitFor("metrics to \(prom) every 1 s"), "\(kiosk.stderr)")

        // Scraped while it runs: the round ends within the recording's 6 s (at most 40 s here).
        var live = Scrape("")
        _ = try eventually(within: .seconds(40), every: .milliseconds(250)) {
            live = Scrape(try exporter.scrape())
            return live.value("bubble_kiosk_rounds_played_total", ["mode": "classic", "outcome": "finished"]) == 1
                || !kiosk.process.isRunning
        }
        #expect(live.value("bubble_kiosk_rounds_played_total", ["mode": "classic", "outcome": "finished"]) == 1,
                "\(live.text)\n\(kiosk.stderr)")
        #expect(live.value("bubble_kiosk_display_up") == 1)
        #expect(live.value("node_textfile_scrape_error") == 0, "\(live.text)")

        kiosk.send(SIGTERM)
        let end = kiosk.wait()
        #expect(end.status == 0, "\(kiosk.stderr)")
        let finishedAt = Date().timeIntervalSince1970

        // After the exit: the final figures, parsed by the exporter without an error.
        let scrape = Scrape(try exporter.scrape())
        #expect(scrape.value("node_textfile_scrape_error") == 0, "\(scrape.text)\n\(exporter.log)")
        #expect(scrape.value("node_textfile_mtime_seconds", ["file": prom]) != nil, "\(scrape.text)")
        #expect(scrape.value("bubble_kiosk_rounds_started_total", ["mode": "classic"]) == 1)
        #expect(scrape.value("bubble_kiosk_rounds_started_total", ["mode": "demo"]) == 0)
        #expect(scrape.value("bubble_kiosk_rounds_played_total", ["mode": "classic", "outcome": "finished"]) == 1)
        #expect(scrape.value("bubble_kiosk_rounds_played_total", ["mode": "classic", "outcome": "abandoned"]) == 0)
        #expect(scrape.value("bubble_kiosk_bubbles_popped_total", ["mode": "classic", "kind": "tap"]) == Double(poppedTaps))
        #expect(scrape.value("bubble_kiosk_bubbles_popped_total", ["mode": "classic", "kind": "swipe"]) == Double(poppedSwipes))
        #expect(scrape.value("bubble_kiosk_bubbles_popped_total", ["mode": "classic", "kind": "drag"]) == Double(poppedDrags))
        let touches = try #require(scrape.value("bubble_kiosk_touches_total"))
        #expect(touches > Double(bubbles.count))
        #expect(scrape.value("bubble_kiosk_display_up") == 1)
        #expect(scrape.value("bubble_kiosk_screen", ["screen": "round_over"]) == 1)
        let start = try #require(scrape.value("bubble_kiosk_start_time_seconds"))
        #expect(start >= startedAt - 1 && start <= finishedAt, "\(start) not in \(startedAt)...\(finishedAt)")
        let lastTouch = try #require(scrape.value("bubble_kiosk_last_touch_timestamp_seconds"))
        #expect(lastTouch >= start && lastTouch <= finishedAt)
        let frames = try #require(scrape.value("bubble_kiosk_frames_total"))
        #expect(frames > 0)
        #expect(scrape.value("bubble_kiosk_frame_time_seconds_count") == frames)
        #expect((scrape.value("bubble_kiosk_frame_time_seconds", ["quantile": "0.95"]) ?? 1) < 0.5)
        #expect((scrape.value("bubble_kiosk_input_latency_seconds_count") ?? 0) > 0)
        #expect(scrape.text.contains("# TYPE bubble_kiosk_touches_total counter\n"))
        #expect(scrape.text.contains("# TYPE bubble_kiosk_input_latency_seconds summary\n"))
        // Only the finished file is left in the folder.
        #expect(try FileManager.default.contentsOfDirectory(atPath: textfiles.path) == ["bubble-kiosk.prom"])
    }
}

/// The real binary with a metrics file it cannot write: one log line, and the kiosk plays on.
/// Tagged for timing: the frames drawn in 3.5 s of real time are counted.
@Suite(.tags(.timing)) struct MetricsFailureTests {
    @Test func anUnwritableMetricsFolderIsOneLineAndTheKioskGoesOn() throws {
        let dir = try CommandRunner.temporaryDirectory()
        let conf = dir.appendingPathComponent("kiosk.conf")
        let prom = dir.appendingPathComponent("missing/bubble-kiosk.prom").path
        try "[metrics]\ntextfile = \(prom)\ninterval_s = 1\n".write(to: conf, atomically: true, encoding: .utf8)
        let r = try CommandRunner.run(["run", "--display", "virtual:320x200", "--attract", "--duration", "3.5",
                                       "--stats", "--config", conf.path], timeout: 60)
        #expect(r.status == 0, "\(r.stderr)")
        let failures = r.stderr.split(separator: "\n").filter { $0.contains("metrics: cannot write") }
        #expect(failures.count == 1, "\(r.stderr)")
        #expect(failures.first?.contains("\(prom): ") == true, "\(r.stderr)")
        // The demo played all along: frames kept coming.
        let frames = r.stdout.split(separator: " ").first { $0.hasPrefix("frames=") }.flatMap { Int($0.dropFirst(7)) }
        #expect((frames ?? 0) > 30, "\(r.stdout)")
    }
}
