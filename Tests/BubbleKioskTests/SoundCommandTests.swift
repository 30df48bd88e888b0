import Foundation
import Testing

/// A test ALSA configuration (ALSA_CONFIG_PATH replaces alsa.conf): `default` discards
/// everything, or writes the raw stream to a file.
enum TestALSA {
    static func config(defaultDevice: String) -> String {
        """
        pcm.null { type null }
        pcm.file {
            @args [ FILE ]
            @args.FILE { type string }
            type file
            slave.pcm null
            file $FILE
            format raw
        }
        pcm.!default \(defaultDevice)

        """
    }

    /// `default` is the null plugin: tests never reach a real sound card.
    static let silentConfig: String = {
        let path = NSTemporaryDirectory() + "bubble-kiosk-test-alsa-\(getpid()).conf"
        try? config(defaultDevice: "{ type null }").write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }()

    /// A config whose `default` writes the raw stream (S16_LE stereo 48 kHz) to `raw`.
    static func fileConfig(in dir: URL, raw: URL) throws -> String {
        let path = dir.appendingPathComponent("alsa.conf").path
        try config(defaultDevice: "{ type file slave.pcm null file \"\(raw.path)\" format raw }")
            .write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }
}

func int16Samples(_ data: Data) -> [Int16] {
    data.withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }.map { Int16(littleEndian: $0) }
}

/// A 16-bit WAV's samples after the 44-byte header the kiosk writes.
func wavSamples(_ url: URL) throws -> (samples: [Int16], channels: Int, rate: Int) {
    let data = try Data(contentsOf: url)
    guard data.count >= 44, data.prefix(4) == Data("RIFF".utf8) else { throw CommandRunner.TestFailure("no WAV: \(url.path)") }
    let channels = Int(data[22]) | Int(data[23]) << 8
    let rate = (0..<4).reduce(0) { $0 | Int(data[24 + $1]) << (8 * $1) }
    return (int16Samples(data.dropFirst(44)), channels, rate)
}

/// A WAV of a constant level: easy to find where it starts in a mix.
func writePulse(_ url: URL, level: Double, rate: Int, channels: Int, milliseconds: Int) throws {
    let frames = rate * milliseconds / 1000
    let v = Int16(level * 32767)
    var d = Data()
    func u32(_ x: Int) { for i in 0..<4 { d.append(UInt8(truncatingIfNeeded: x >> (8 * i))) } }
    func u16(_ x: Int) { for i in 0..<2 { d.append(UInt8(truncatingIfNeeded: x >> (8 * i))) } }
    d.append(contentsOf: Array("RIFF".utf8)); u32(36 + frames * channels * 2); d.append(contentsOf: Array("WAVE".utf8))
    d.append(contentsOf: Array("fmt ".utf8)); u32(16); u16(1); u16(channels); u32(rate); u32(rate * channels * 2)
    u16(channels * 2); u16(16); d.append(contentsOf: Array("data".utf8)); u32(frames * channels * 2)
    for _ in 0..<(frames * channels) { u16(Int(UInt16(bitPattern: v))) }
    try d.write(to: url)
}

@Suite struct SoundCommandTests {
    @Test func generateSoundsWritesTheDefaults() throws {
        let dir = try CommandRunner.temporaryDirectory()
        let r = try CommandRunner.run(["generate-sounds", dir.path])
        #expect(r.status == 0, "\(r.stderr)")
        for name in ["pop", "swipe", "round_start", "round_over", "high_score"] {
            let wav = try wavSamples(dir.appendingPathComponent("\(name).wav"))
            #expect(wav.channels == 1 && wav.rate == 48_000)
            #expect(wav.samples.count > 2400 && wav.samples.count < 72_000, "\(name)")
            #expect(wav.samples.map { abs(Int($0)) }.max() == 22_937)   // 0.7 of full scale
        }
        #expect(try CommandRunner.run(["generate-sounds", dir.appendingPathComponent("nope").path]).status == 1)
        #expect(try CommandRunner.run(["generate-sounds"]).status == 2)
    }

    /// When each bubble of the round pops, in seconds from the recording's first event, and
    /// whether it was a swipe bubble: from the round `state` prints and the gestures.
    static func popTimes(seed: Int, size: String, recording: URL) throws -> [(seconds: Double, swipe: Bool)] {
        let state = try CommandRunner.run(["state", "--seed", "\(seed)", "--size", size]).json()
        var bubbles = try #require(state["bubbles"] as? [[String: Any]])
        let gestures = try CommandRunner.run(["gestures", recording.path, "--size", size]).jsonLines()
        var pops: [(Double, Bool)] = []
        func hit(_ x: Double, _ y: Double) -> Int? {
            bubbles.firstIndex { b in
                let dx = (b["x"] as! Double) - x, dy = (b["y"] as! Double) - y
                return (dx * dx + dy * dy).squareRoot() <= (b["diameter"] as! Double) / 2 && (b["left"] as? Int ?? 1) > 0
            }
        }
        for g in gestures {
            let t = (g["t_ms"] as! Double) / 1000
            switch g["kind"] as! String {
            case "tap":
                guard let i = hit(g["x"] as! Double, g["y"] as! Double), let taps = bubbles[i]["taps"] as? Int else { continue }
                let left = (bubbles[i]["left"] as? Int ?? taps) - 1
                bubbles[i]["left"] = left
                if left == 0 { pops.append((t, false)) }
            case "swipe":
                guard let i = hit(g["start_x"] as! Double, g["start_y"] as! Double), bubbles[i]["kind"] as? String == "swipe" else { continue }
                bubbles[i]["left"] = 0
                pops.append((t, true))
            default: break
            }
        }
        return pops
    }

    /// Frames where the left channel steps up by about `step` (a pulse starting).
    static func onsets(_ samples: [Int16], step: Int) -> [Int] {
        var out: [Int] = []
        for i in 1..<(samples.count / 2) {
            let d = Int(samples[2 * i]) - Int(samples[2 * i - 2])
            if abs(d - step) < step / 8 { out.append(i) }
        }
        return out
    }

    @Test func audioOutPutsEachPopsSoundAtThePop() throws {
        let dir = try CommandRunner.temporaryDirectory()
        let pop = dir.appendingPathComponent("pop.wav"), swipe = dir.appendingPathComponent("swipe.wav")
        // Pulses: a pop adds 0.25 of full scale, a swipe 0.125 (from 44.1 kHz stereo, resampled).
        try writePulse(pop, level: 0.25, rate: 48_000, channels: 1, milliseconds: 10)
        try writePulse(swipe, level: 0.125, rate: 44_100, channels: 2, milliseconds: 10)
        let conf = dir.appendingPathComponent("k.conf")
        try "[sounds]\nvolume = 1\npop = \(pop.path)\nswipe = \(swipe.path)\nround_over = none\n".write(to: conf, atomically: true, encoding: .utf8)
        let recording = try PlayCommandTests.recording(seed: 1, size: "1280x800")
        let out = dir.appendingPathComponent("mix.wav")
        let r = try CommandRunner.run(["play", recording.path, "--seed", "1", "--size", "1280x800",
                                       "--config", conf.path, "--audio-out", out.path])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try r.json()["popped"] as? Int == 10)
        let wav = try wavSamples(out)
        #expect(wav.channels == 2 && wav.rate == 48_000)

        let expected = try Self.popTimes(seed: 1, size: "1280x800", recording: recording)
        #expect(expected.count == 10 && expected.contains { $0.swipe } && expected.contains { !$0.swipe })
        let popFrames = Self.onsets(wav.samples, step: 8192)
        let swipeFrames = Self.onsets(wav.samples, step: 4096)
        #expect(popFrames.count == expected.count { !$0.swipe })
        #expect(swipeFrames.count == expected.count { $0.swipe })
        // Each sound starts on the sample of its pop: frame = seconds x 48000 (within 1 ms).
        for (seconds, isSwipe) in expected {
            let frame = Int((seconds * 48_000).rounded())
            let found = isSwipe ? swipeFrames : popFrames
            #expect(found.contains { abs($0 - frame) <= 48 }, "pop at \(seconds) s (frame \(frame)) not in \(found)")
        }
        // The mix lasts as long as the replay.
        #expect(Double(wav.samples.count / 2) / 48_000 >= expected.last!.seconds)
    }

    @Test func audioOutWithTheDefaultSoundsAndWithSoundsOff() throws {
        let dir = try CommandRunner.temporaryDirectory()
        let recording = try PlayCommandTests.recording(seed: 3, size: "1280x800", extra: ["--pop", "2"])
        let out = dir.appendingPathComponent("mix.wav")
        let r = try CommandRunner.run(["play", recording.path, "--seed", "3", "--size", "1280x800", "--audio-out", out.path])
        #expect(r.status == 0 && r.stderr.isEmpty, "\(r.stderr)")
        let loud = try wavSamples(out).samples
        #expect(loud.contains { abs(Int($0)) > 10_000 })
        let conf = dir.appendingPathComponent("off.conf")
        try "[sounds]\nenabled = false\n".write(to: conf, atomically: true, encoding: .utf8)
        let off = try CommandRunner.run(["play", recording.path, "--seed", "3", "--size", "1280x800", "--config", conf.path,
                                         "--audio-out", out.path])
        #expect(off.status == 0)
        let silent = try wavSamples(out).samples
        #expect(silent.count == loud.count || silent.count < loud.count)
        #expect(silent.allSatisfy { $0 == 0 })
    }

    /// An evemu recording whose events all come `seconds` later, after an empty report at 0.
    static func delayed(_ recording: String, seconds: Double) -> String {
        var out: [String] = []
        var first = true
        for line in recording.split(separator: "\n", omittingEmptySubsequences: false) {
            guard line.hasPrefix("E: "), let t = Double(line.dropFirst(3).prefix { $0 != " " }) else {
                out.append(String(line))
                continue
            }
            if first {
                out.append("E: 0.000000 0000 0000 0000")
                first = false
            }
            let rest = line.dropFirst(3).drop { $0 != " " }
            out.append("E: " + String(format: "%.6f", t + seconds) + rest)
        }
        return out.joined(separator: "\n")
    }

    /// The running kiosk plays through ALSA: `default` is the file plugin here, so the stream
    /// lands in a file: the round-start chime, then each pop's sound.
    @Test func aRunningKioskPlaysThroughALSA() throws {
        let dir = try CommandRunner.temporaryDirectory()
        let raw = dir.appendingPathComponent("stream.raw")
        let alsa = try TestALSA.fileConfig(in: dir, raw: raw)
        let rec = try CommandRunner.run(["round-recording", "--seed", "3", "--size", "1280x800", "--pop", "3"])
        let recording = dir.appendingPathComponent("round.evemu")
        // The touches start 2 s in, so the Start tap comes after the kiosk's first frame (slow
        // in a debug build) and its chime does not coincide with the first pop.
        try Self.delayed(rec.stdout, seconds: 2).write(to: recording, atomically: true, encoding: .utf8)
        let r = try CommandRunner.run(["run", "--display", "virtual:1280x800", "--input", "replay:\(recording.path)",
                                       "--seed", "3", "--duration", "7"],
                                      environment: ["ALSA_CONFIG_PATH": alsa], timeout: 60)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(!r.stderr.contains("sounds"), "\(r.stderr)")
        let samples = int16Samples(try Data(contentsOf: raw))
        // The sounds, split at silences of 100 ms or more (the stream stops after 1 s of quiet).
        var segments: [[Int16]] = []
        var current: [Int16] = []
        var zeros = 0
        for i in 0..<(samples.count / 2) {
            let l = samples[2 * i], rr = samples[2 * i + 1]
            if l == 0 && rr == 0 {
                zeros += 1
                if zeros == 4800, !current.isEmpty {
                    segments.append(Array(current.dropLast(2 * 4799)))
                    current = []
                }
                if current.isEmpty { continue }
            } else {
                zeros = 0
            }
            current += [l, rr]
        }
        if !current.isEmpty { segments.append(current) }
        // Start chime, three pops (3 of the 10 bubbles: the round goes on, no round-over sound).
        #expect(segments.count == 4, "\(segments.map(\.count))")
        #expect(segments.first.map { $0.count > 20_000 } == true)      // the chime is ~0.6 s
        for pop in segments.dropFirst() { #expect(pop.count < 2 * 4000, "\(pop.count)") }  // a pop is 80 ms
    }

    /// SIGHUP moves the sounds to another device and drops one, without a restart.
    @Test func aReloadMovesTheSoundsToAnotherDevice() throws {
        let dir = try CommandRunner.temporaryDirectory()
        let a = dir.appendingPathComponent("a.raw"), b = dir.appendingPathComponent("b.raw")
        let conf = dir.appendingPathComponent("k.conf")
        try "[sounds]\ndevice = file:FILE=\(a.path)\n".write(to: conf, atomically: true, encoding: .utf8)
        let rec = try CommandRunner.run(["round-recording", "--seed", "3", "--size", "1280x800", "--pop", "1"])
        let recording = dir.appendingPathComponent("round.evemu")
        try Self.delayed(rec.stdout, seconds: 4).write(to: recording, atomically: true, encoding: .utf8)
        let k = try SignalTests.Kiosk(["run", "--display", "virtual:1280x800", "--input", "replay:\(recording.path)",
                                       "--seed", "3", "--duration", "7", "--config", conf.path], dir: dir)
        #expect(k.waitFor("first frame on screen"), "\(k.stderr)")
        try "[sounds]\ndevice = file:FILE=\(b.path)\nround_start = none\n".write(to: conf, atomically: true, encoding: .utf8)
        k.send(SIGHUP)
        #expect(k.waitFor("reloaded the configuration (1 file): sounds.device, sounds.round_start now"), "\(k.stderr)")
        let end = k.wait()
        #expect(end.status == 0, "\(k.stderr)")
        #expect(!k.stderr.contains("sounds:"), "\(k.stderr)")
        // Device A was opened and closed unused; B got the pop (and no round-start chime).
        #expect((try? Data(contentsOf: a))?.isEmpty ?? true)
        let samples = int16Samples(try Data(contentsOf: b))
        let sounding = stride(from: 0, to: samples.count, by: 2).filter { samples[$0] != 0 }
        #expect(!sounding.isEmpty)
        #expect(sounding.count < 4000, "one 80 ms pop, no chime: \(sounding.count) frames")
    }

    @Test func noSoundCardAndAMissingFileAreOneLineEachAndTheGameGoesOn() throws {
        let dir = try CommandRunner.temporaryDirectory()
        let conf = dir.appendingPathComponent("k.conf")
        try "[sounds]\ndevice = hw:9,0\npop = \(dir.path)/missing.ogg\n".write(to: conf, atomically: true, encoding: .utf8)
        let rec = try CommandRunner.run(["round-recording", "--seed", "3", "--size", "1280x800", "--pop", "3"])
        let recording = dir.appendingPathComponent("round.evemu")
        try rec.stdout.write(to: recording, atomically: true, encoding: .utf8)
        let r = try CommandRunner.run(["run", "--display", "virtual:1280x800", "--input", "replay:\(recording.path)",
                                       "--seed", "3", "--duration", "3", "--config", conf.path, "--status"], timeout: 60)
        #expect(r.status == 0, "\(r.stderr)")
        let lines = r.stderr.split(separator: "\n").filter { $0.contains("sounds") }
        #expect(lines == [
            "bubble-kiosk: sounds.pop: \(dir.path)/missing.ogg: No such file or directory; that sound stays silent",
            "bubble-kiosk: sounds: ALSA device 'hw:9,0': cannot open: No such file or directory (no such sound card or device); the kiosk plays without sound",
        ])
        // The game went on: the pops scored.
        #expect(r.stdout.contains("screen=playing"), "\(r.stdout)")
    }
}
