import CSndfile
import Glibc
import KioskCore
import KioskPlatform
import Synchronization
import Testing
import KioskTestSupport

/// Decoding with libsndfile, the ALSA stream and the sound thread, played live through
/// alsa-lib's `file` plugin (it writes the raw stream to a file; no sound card needed).
@Suite(.serialized) struct SoundTests {
    /// A player on alsa-lib's `file` plugin, which writes the stream to `name` in a fresh folder
    /// (with no sound files installed in it); the player and the stream's path.
    static func playerWritingFile(_ name: String, volume: Double,
                                  log: Logger = .discard) throws -> (player: SoundPlayer, raw: String) {
        let dir = makeTemporaryDirectory("bubble-kiosk-sound")
        var settings = SoundSettings()
        settings.device = "file:FILE=\(dir)/\(name)"
        settings.volume = volume
        return (try SoundPlayer(settings: settings, installed: dir, log: log), "\(dir)/\(name)")
    }

    /// The 16-bit little-endian samples in the stream the `file` plugin wrote to `path`.
    static func samples(_ path: String) -> [Int16] {
        let bytes = readBytes(path) ?? []
        return stride(from: 0, to: bytes.count, by: 2).map { Int16(bitPattern: UInt16(bytes[$0]) | UInt16(bytes[$0 + 1]) << 8) }
    }

    /// A sine of `seconds` at `rate` with `channels`, written by libsndfile in `format`.
    static func encode(_ path: String, format: Int32, rate: Int, channels: Int, seconds: Double) -> Bool {
        var info = SF_INFO()
        info.samplerate = Int32(rate)
        info.channels = Int32(channels)
        info.format = format
        guard let f = sf_open(path, Int32(SFM_WRITE), &info) else { return false }
        let frames = Int(Double(rate) * seconds)
        var data = [Float](repeating: 0, count: frames * channels)
        for i in 0..<frames {
            let v = Float(0.5 * sin(2 * Double.pi * 440 * Double(i) / Double(rate)))
            for c in 0..<channels { data[i * channels + c] = c == 0 ? v : -v }
        }
        _ = data.withUnsafeBufferPointer { sf_writef_float(f, $0.baseAddress, sf_count_t(frames)) }
        sf_close(f)
        return true
    }

    @Test(arguments: [
        ("wav", Int32(SF_FORMAT_WAV | SF_FORMAT_PCM_16), 22_050, 1),
        ("flac", Int32(SF_FORMAT_FLAC | SF_FORMAT_PCM_16), 44_100, 2),
        ("ogg", Int32(SF_FORMAT_OGG | SF_FORMAT_VORBIS), 44_100, 1),
        ("opus.ogg", Int32(SF_FORMAT_OGG | SF_FORMAT_OPUS), 48_000, 2),
        ("mp3", Int32(SF_FORMAT_MPEG | SF_FORMAT_MPEG_LAYER_III), 44_100, 2),
        ("aiff", Int32(SF_FORMAT_AIFF | SF_FORMAT_PCM_24), 96_000, 2),
    ])
    func decodesCommonFormatsToStereoAt48k(ext: String, format: Int32, rate: Int, channels: Int) throws {
        let dir = makeTemporaryDirectory("bubble-kiosk-sound")
        let path = "\(dir)/tone.\(ext)"
        #expect(Self.encode(path, format: format, rate: rate, channels: channels, seconds: 0.5), "libsndfile cannot write \(ext)")
        let clip = try SoundDecoder.decode(path: path)
        // Lossy codecs pad a little at either end.
        #expect(abs(clip.duration - 0.5) < 0.06, "\(ext): \(clip.duration) s")
        let left = stride(from: 0, to: clip.samples.count, by: 2).map { clip.samples[$0] }
        let right = stride(from: 1, to: clip.samples.count, by: 2).map { clip.samples[$0] }
        let peak = left.map(abs).max() ?? 0
        #expect(peak > 0.4 && peak < 0.6, "\(ext): peak \(peak)")
        var crossings = 0
        for i in 1..<left.count where left[i - 1] < 0 && left[i] >= 0 { crossings += 1 }
        #expect(abs(crossings - 220) <= 4, "\(ext): \(crossings) crossings in 0.5 s of 440 Hz")
        // Mono plays on both sides; stereo keeps its channels (the right one is inverted here).
        let mid = left.count / 2
        if channels == 1 { #expect(left[mid] == right[mid]) } else { #expect(abs(left[mid] + right[mid]) < 0.05) }
    }

    @Test func ourOwnWAVFilesDecode() throws {
        let dir = makeTemporaryDirectory("bubble-kiosk-sound")
        writeFile("\(dir)/pop.wav", SoundSynth.wav(for: .pop))
        let clip = try SoundDecoder.decode(path: "\(dir)/pop.wav")
        let synth = SoundSynth.clip(for: .pop)
        #expect(clip.frameCount == synth.frameCount)
        #expect(zip(clip.samples, synth.samples).allSatisfy { abs($0 - $1) < 1.0 / 16_000 })
    }

    @Test func unusableFilesAreRefusedWithAReason() throws {
        let dir = makeTemporaryDirectory("bubble-kiosk-sound")
        writeFile("\(dir)/notes.wav", Array("these are not the sounds you are looking for\n".utf8))
        writeFile("\(dir)/empty.wav", WAVFile.encode([], channels: 1, rate: 48_000))
        mkfifo("\(dir)/fifo.wav", 0o644)
        #expect(Self.encode("\(dir)/long.wav", format: Int32(SF_FORMAT_WAV | SF_FORMAT_PCM_16), rate: 8000, channels: 1, seconds: 31))
        func reason(_ name: String) -> String {
            do {
                _ = try SoundDecoder.decode(path: "\(dir)/\(name)")
                return "decoded"
            } catch {
                return error.reason
            }
        }
        #expect(reason("notes.wav").hasPrefix("not a sound file libsndfile can decode"))
        #expect(reason("empty.wav") == "no sound in it (0 frames)")
        #expect(reason("missing.wav") == "No such file or directory")
        #expect(reason("fifo.wav").contains("FIFO"))
        #expect(reason("long.wav") == "longer than 30 s; sound effects should be short")
        #expect(reason(".") != "decoded")
    }

    @Test func autoUsesTheInstalledFileElseTheBuiltInSound() throws {
        let dir = makeTemporaryDirectory("bubble-kiosk-sound")
        var settings = SoundSettings()
        var problems: [String] = []
        // Nothing installed: the synthesised sound.
        #expect(SoundDecoder.clip(for: .swipe, settings: settings, installed: dir, problems: &problems) == SoundSynth.clip(for: .swipe))
        // Installed: that file.
        writeFile("\(dir)/swipe.wav", WAVFile.encode([Int16](repeating: 1000, count: 480), channels: 1, rate: 48_000))
        #expect(SoundDecoder.clip(for: .swipe, settings: settings, installed: dir, problems: &problems)?.frameCount == 480)
        settings.swipe = "none"
        #expect(SoundDecoder.clip(for: .swipe, settings: settings, installed: dir, problems: &problems) == nil)
        settings.swipe = "\(dir)/nope.ogg"
        #expect(SoundDecoder.clip(for: .swipe, settings: settings, installed: dir, problems: &problems) == nil)
        #expect(problems == ["sounds.swipe: \(dir)/nope.ogg: No such file or directory; that sound stays silent"])
    }

    @Test func theALSAStreamWritesWhatItIsGiven() throws {
        let dir = makeTemporaryDirectory("bubble-kiosk-sound")
        let raw = "\(dir)/out.raw"
        do {
            let out = try ALSAOutput(device: "file:FILE=\(raw)", log: .discard)
            #expect(out.periodFrames > 0 && out.bufferFrames >= out.periodFrames)
            try out.prepare()
            let ramp = (0..<(3 * 240 * 2)).map { Int16($0) }
            try out.write(ramp)
            out.drain()
        }
        let bytes = readBytes(raw) ?? []
        #expect(bytes.count == 3 * 240 * 4)
        let samples = stride(from: 0, to: bytes.count, by: 2).map { Int16(bitPattern: UInt16(bytes[$0]) | UInt16(bytes[$0 + 1]) << 8) }
        #expect(samples == (0..<(3 * 240 * 2)).map { Int16($0) })
    }

    @Test func overlappingSoundsAllReachTheStream() throws {
        let (player, raw) = try Self.playerWritingFile("overlap.raw", volume: 1)
        #expect(eventually(within: .seconds(10)) { player.stats.configured == 1 })
        for _ in 0..<5 { player.play(.pop) }
        player.play(.roundOver)
        // However the six land in periods (one stream or two), all start and the stream stops.
        #expect(eventually(within: .seconds(10)) { player.stats.starts.count == 6 && !player.stats.streaming && player.stats.stops >= 1 })
        player.stop()
        #expect(player.stats.starts.map(\.effect) == [.pop, .pop, .pop, .pop, .pop, .roundOver])
        let samples = Self.samples(raw)
        // The longest sound is all in the stream, and so is the second of silence after it.
        let roundOver = SoundSynth.clip(for: .roundOver)
        #expect(samples.count / 2 >= roundOver.frameCount + 48_000 - 2 * 240)
        let sounding = stride(from: 0, to: samples.count, by: 2).count { samples[$0] != 0 }
        #expect(sounding >= roundOver.frameCount - 4800)
        #expect(player.stats.priority != "")
    }

    @Test func noDeviceIsReportedOnceAndPlayingGoesOnSilently() throws {
        var settings = SoundSettings()
        settings.device = "no_such_device_here"
        settings.pop = "/nonexistent/pop.wav"
        let log = LogLines()
        let player = try SoundPlayer(settings: settings, installed: "/nonexistent", log: Logger { log.add($1) })
        #expect(eventually(within: .seconds(10)) { player.stats.configured == 1 })
        for _ in 0..<20 { player.play(.pop); player.play(.swipe) }
        player.reload(settings)
        #expect(eventually(within: .seconds(10)) { player.stats.configured == 2 })
        player.stop()
        #expect(log.all == [
            "sounds.pop: /nonexistent/pop.wav: No such file or directory; that sound stays silent",
            "sounds: ALSA device 'no_such_device_here': cannot open: No such file or directory (no such sound card or device); the kiosk plays without sound",
        ])
        #expect(!player.stats.deviceOpen && player.stats.starts.isEmpty)
    }

    @Test func disabledSoundsNeverOpenTheDevice() throws {
        var settings = SoundSettings()
        settings.enabled = false
        settings.device = "no_such_device_here"
        let log = LogLines()
        let player = try SoundPlayer(settings: settings, log: Logger { log.add($1) })
        #expect(eventually(within: .seconds(10)) { player.stats.configured == 1 })
        player.play(.pop)
        player.stop()
        #expect(log.all.isEmpty && !player.stats.deviceOpen && player.stats.starts.isEmpty)
    }

    @Test func aReloadSwitchesDeviceAndVolume() throws {
        let dir = makeTemporaryDirectory("bubble-kiosk-sound")
        var settings = SoundSettings()
        settings.device = "file:FILE=\(dir)/a.raw"
        let player = try SoundPlayer(settings: settings, installed: dir, log: .discard)
        #expect(eventually(within: .seconds(10)) { player.stats.configured == 1 })
        settings.device = "file:FILE=\(dir)/b.raw"
        settings.volume = 0
        settings.pop = "none"
        player.reload(settings)
        #expect(eventually(within: .seconds(10)) { player.stats.configured == 2 })
        player.play(.pop)      // now silent: no file
        player.play(.swipe)    // volume 0
        #expect(eventually(within: .seconds(10)) { player.stats.stops == 1 })
        player.stop()
        #expect((readBytes("\(dir)/a.raw") ?? []).isEmpty)
        let b = readBytes("\(dir)/b.raw") ?? []
        #expect(b.count >= 48_000 * 4 && b.allSatisfy { $0 == 0 })
        #expect(player.stats.starts.map(\.effect) == [.swipe])
    }
}

extension SoundTests {
    /// A refusal within a bound of real time, and a latency the player measured.
    @Suite(.tags(.timing)) struct Timing {
        @Test func aMissingDeviceIsRefusedWithoutWaiting() {
            let start = EventLoop.now()
            #expect(throws: SoundDeviceError.self) { _ = try ALSAOutput(device: "no_such_device_here", log: .discard) }
            #expect(throws: SoundDeviceError.self) { _ = try ALSAOutput(device: "hw:7,0", log: .discard) }
            #expect((EventLoop.now() - start).inMilliseconds < 2000)
        }

        @Test func thePlayerMixesOnItsThreadIntoTheALSAStream() throws {
            let log = LogLines()
            let (player, raw) = try playerWritingFile("live.raw", volume: 0.5, log: Logger { log.add($1) })
            #expect(eventually(within: .seconds(10)) { player.stats.configured == 1 })
            #expect(player.stats.deviceOpen)
            player.play(.pop)
            // The stream runs while the pop plays, then a second of silence, then stops.
            #expect(eventually(within: .seconds(10)) { player.stats.stops == 1 })
            player.stop()
            let stats = player.stats
            #expect(stats.starts.count == 1)
            #expect(stats.starts.first?.effect == .pop)
            #expect((stats.starts.first?.eventToWriteMS ?? 99) < 20)
            #expect(stats.problems.isEmpty && log.all.isEmpty)

            let samples = SoundTests.samples(raw)
            var mixer = AudioMixer(volume: 0.5)
            let pop = SoundSynth.clip(for: .pop)
            mixer.start(pop)
            var expected: [Int16] = []
            mixer.render(frames: pop.frameCount, into: &expected)
            // The pop starts with the stream, sample for sample, then silence to the stop.
            #expect(samples.count >= 48_000 * 2)
            #expect(Array(samples.prefix(expected.count)) == expected)
            #expect(samples.dropFirst(expected.count).allSatisfy { $0 == 0 })
        }
    }
}
