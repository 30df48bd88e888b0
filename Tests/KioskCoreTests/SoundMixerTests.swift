import KioskCore
import Testing

/// The mixing math on virtual time: overlap, volume, clipping, sample-exact starts, resampling.
@Suite struct SoundMixerTests {
    static func constant(_ value: Float, frames: Int) -> SoundClip {
        SoundClip(stereo: [Float](repeating: value, count: frames * 2))
    }

    @Test func overlappingVoicesAreSummed() {
        var mixer = AudioMixer()
        mixer.start(Self.constant(0.25, frames: 100))
        mixer.start(Self.constant(0.125, frames: 50))
        var out: [Int16] = []
        mixer.render(frames: 80, into: &out)
        #expect(out.count == 160)
        #expect(out[0] == 12288)       // (0.25 + 0.125) * 32767, rounded
        #expect(out[99] == 12288)      // frame 49, right channel
        #expect(out[100] == 8192)      // frame 50: the short one has ended
        #expect(mixer.activeVoices == 1)
        mixer.render(frames: 80, into: &out)
        #expect(out[0] == 8192 && out[39] == 8192 && out[40] == 0 && out[159] == 0)
        #expect(mixer.isIdle)
    }

    @Test func manyOverlappingPopsAllPlay() {
        var mixer = AudioMixer()
        for _ in 0..<10 { mixer.start(Self.constant(0.05, frames: 10)) }
        var out: [Int16] = []
        mixer.render(frames: 10, into: &out)
        #expect(out.allSatisfy { $0 == 16384 })   // 10 x 0.05 = 0.5
    }

    @Test func theSumIsClippedNotWrapped() {
        var mixer = AudioMixer()
        mixer.start(Self.constant(0.8, frames: 10))
        mixer.start(Self.constant(0.8, frames: 10))
        mixer.start(SoundClip(stereo: [Float](repeating: -0.9, count: 8) + [Float](repeating: 0, count: 12)))
        mixer.start(SoundClip(stereo: [Float](repeating: -0.9, count: 8) + [Float](repeating: 0, count: 12)))
        mixer.start(SoundClip(stereo: [Float](repeating: -0.9, count: 8) + [Float](repeating: 0, count: 12)))
        mixer.start(SoundClip(stereo: [Float](repeating: -0.9, count: 8) + [Float](repeating: 0, count: 12)))
        var out: [Int16] = []
        mixer.render(frames: 10, into: &out)
        #expect(out[0] == -32768)      // 1.6 - 3.6
        #expect(out[19] == 32767)      // 1.6
    }

    @Test func volumeAndGainScaleEveryVoice() {
        var mixer = AudioMixer(volume: 0.5)
        mixer.start(Self.constant(0.5, frames: 4), gain: 0.5)
        var out: [Int16] = []
        mixer.render(frames: 4, into: &out)
        #expect(out.allSatisfy { $0 == 4096 })    // 0.5 x 0.5 x 0.5 x 32767 = 4095.9
        mixer.volume = 0
        mixer.start(Self.constant(1, frames: 4))
        mixer.render(frames: 4, into: &out)
        #expect(out.allSatisfy { $0 == 0 })
    }

    @Test func aDelayedVoiceStartsOnItsFrame() {
        var mixer = AudioMixer()
        mixer.start(Self.constant(0.5, frames: 3), delay: 250)
        var out: [Int16] = []
        mixer.render(frames: 240, into: &out)
        #expect(out.allSatisfy { $0 == 0 })
        mixer.render(frames: 240, into: &out)
        #expect(out[0..<20].allSatisfy { $0 == 0 })
        #expect(out[20..<26].allSatisfy { $0 == 16384 })
        #expect(out[26...].allSatisfy { $0 == 0 })
        #expect(mixer.isIdle)
    }

    @Test func aFloodOfVoicesIsCapped() {
        var mixer = AudioMixer()
        for _ in 0..<100 { mixer.start(Self.constant(0.001, frames: 1000)) }
        #expect(mixer.activeVoices == AudioMixer.maxVoices)
    }

    @Test func aTimelinePlacesSoundsAtTheirSample() {
        var t = AudioTimeline(volume: 1)
        let click = Self.constant(0.5, frames: 48)
        t.add(click, atFrame: AudioTimeline.frame(at: 0.5))
        t.add(click, atFrame: AudioTimeline.frame(at: 1.234))
        t.add(click, atFrame: AudioTimeline.frame(at: 1.2345))   // overlaps the one before
        let out = t.render(minimumFrames: 48_000 * 2)
        #expect(out.count == 2 * 96_000)
        func frame(_ i: Int) -> Int16 { out[2 * i] }
        #expect(frame(23_999) == 0 && frame(24_000) == 16384 && frame(24_047) == 16384 && frame(24_048) == 0)
        #expect(frame(59_231) == 0 && frame(59_232) == 16384 && frame(59_256) == 32767 && frame(59_280) == 16384)
        #expect(AudioTimeline(volume: 1).render().isEmpty)
    }

    @Test func monoBecomesStereoAndExtraChannelsAreDropped() {
        let mono = SoundClip(interleaved: [0.1, 0.2, 0.3], channels: 1, rate: 48_000)
        #expect(mono.samples == [0.1, 0.1, 0.2, 0.2, 0.3, 0.3])
        let surround = SoundClip(interleaved: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12], channels: 6, rate: 48_000)
        #expect(surround.samples == [1, 2, 7, 8])
    }

    /// Zero crossings of one channel, upward.
    static func crossings(_ s: [Float], channels: Int) -> Int {
        var n = 0
        for i in 1..<(s.count / channels) where s[(i - 1) * channels] < 0 && s[i * channels] >= 0 { n += 1 }
        return n
    }

    static func sine(_ hz: Double, rate: Int, seconds: Double) -> [Float] {
        (0..<Int(Double(rate) * seconds)).map { i in
            let x = 2 * Double.pi * hz * Double(i) / Double(rate)
            // A sine from the project's own series is not public; a triangle-free Bhaskara sine
            // is plenty for counting crossings and checking smoothness.
            var r = x.truncatingRemainder(dividingBy: 2 * Double.pi)
            let sign: Double = r > Double.pi ? -1 : 1
            if r > Double.pi { r -= Double.pi }
            return Float(sign * 16 * r * (Double.pi - r) / (5 * Double.pi * Double.pi - 4 * r * (Double.pi - r)))
        }
    }

    @Test(arguments: [8_000, 11_025, 22_050, 44_100, 96_000])
    func resamplingKeepsPitchAndLength(rate: Int) {
        let input = Self.sine(440, rate: rate, seconds: 1)
        let clip = SoundClip(interleaved: input, channels: 1, rate: rate)
        #expect(clip.frameCount == Resampler.outputFrames(input.count, from: rate, to: 48_000))
        #expect(abs(clip.frameCount - 48_000) <= 1)
        let left = stride(from: 0, to: clip.samples.count, by: 2).map { clip.samples[$0] }
        #expect(abs(Self.crossings(left, channels: 1) - 440) <= 1)
        // Smooth: no sample jumps further than a 440 Hz sine can move in one 48 kHz step.
        let maxStep = zip(left, left.dropFirst()).map { abs($1 - $0) }.max() ?? 0
        #expect(maxStep < Float(2 * Double.pi * 440 / 48_000) * 1.3)
        let peak = left.map(abs).max() ?? 0
        #expect(peak > 0.97 && peak < 1.03)
    }

    @Test func resamplingInterpolatesBetweenInputSamples() {
        // A ramp stays a ramp (Catmull-Rom is exact on straight lines) and starts on the input's first sample.
        let ramp: [Float] = (0..<100).map { Float($0) / 100 }
        let up = Resampler.resample(ramp, channels: 1, from: 24_000, to: 48_000)
        #expect(up.count == 200)
        #expect(up[0] == 0)
        for i in 2..<194 { #expect(abs(up[i] - Float(i) / 200) < 1e-5) }
        #expect(Resampler.resample([], channels: 2, from: 44_100, to: 48_000).isEmpty)
    }

    @Test func wavFilesRoundTrip() {
        let samples: [Int16] = [0, 1, -1, 32767, -32768, 1234]
        let bytes = WAVFile.encode(samples, channels: 2, rate: 48_000)
        #expect(bytes.count == 44 + 12)
        let back = WAVFile.decode(bytes)
        #expect(back?.samples == samples && back?.channels == 2 && back?.rate == 48_000)
        #expect(WAVFile.decode(Array("not a wav file at all, really".utf8)) == nil)
    }

    @Test func theDefaultSoundsAreShortDeterministicAndNotTooLoud() {
        for effect in SoundEffect.allCases {
            let s = SoundSynth.samples(for: effect)
            #expect(s == SoundSynth.samples(for: effect))
            let seconds = Double(s.count) / 48_000
            #expect(seconds > 0.05 && seconds < 1.5, "\(effect) lasts \(seconds) s")
            let peak = s.map(abs).max() ?? 0
            #expect(abs(peak - 0.7) < 0.001)
            // Starts and ends quietly: no click at either edge.
            #expect(abs(s[0]) < 0.05 && abs(s[s.count - 1]) < 0.05, "\(effect) edges")
        }
        #expect(SoundSynth.samples(for: .pop).count < SoundSynth.samples(for: .swipe).count)
    }

    @Test func eventsPickTheirSounds() {
        let field = PlayField(size: PixelSize(width: 1280, height: 800), pxPerMM: 4, game: GameSettings())
        var settings = Settings()
        settings.game.swipeShare = 0.5
        let round = Round(field: field, settings: settings, seed: 3, at: .zero)
        var told = EventFactsTracker()
        func effect(for event: KioskEvent, round: Round?) -> SoundEffect? {
            SoundCues.effect(for: event, told.facts(for: event, screen: .playing(demo: false), round: round, at: .zero))
        }
        #expect(effect(for: .game(.roundStarted(demo: false)), round: round) == .roundStart)
        for b in round.bubbles {
            let expected: SoundEffect
            if case .swipe = b.kind { expected = .swipe } else { expected = .pop }
            #expect(effect(for: .game(.popped(bubble: b.id, points: 10)), round: round) == expected)
        }
        #expect(effect(for: .game(.tapped(bubble: 0, tapsLeft: 1)), round: round) == nil)
        #expect(effect(for: .game(.missed(at: Vector2(x: 1, y: 1))), round: round) == nil)
        #expect(effect(for: .game(.roundOver(score: 10)), round: round) == .roundOver)
        #expect(effect(for: .screen(.start), round: nil) == nil)
        // The attract demo plays silently; a person taking over gets sounds again.
        #expect(effect(for: .game(.roundStarted(demo: true)), round: round) == nil)
        #expect(effect(for: .game(.popped(bubble: 0, points: 10)), round: round) == nil)
        #expect(effect(for: .game(.roundOver(score: 10)), round: nil) == nil)
        #expect(effect(for: .game(.roundStarted(demo: false)), round: round) == .roundStart)
        #expect(effect(for: .game(.popped(bubble: 99, points: 10)), round: nil) == .pop)
    }

    @Test func soundKeysAcceptTextAndFiles() {
        let schema = ConfigSchema.standard
        func key(_ name: String) -> ConfigKey { schema.keys.first { $0.id == "sounds.\(name)" }! }
        var s = Settings()
        #expect(key("device").apply("plughw:CARD=PCH,DEV=0", to: &s) == nil)
        #expect(s.sounds.device == "plughw:CARD=PCH,DEV=0")
        #expect(key("device").apply("bad\u{1B}[2J", to: &s) != nil)
        #expect(s.sounds.device == "plughw:CARD=PCH,DEV=0")
        #expect(key("pop").apply("/usr/share/sounds/pop.ogg", to: &s) == nil)
        #expect(key("pop").apply("none", to: &s) == nil)
        #expect(s.sounds.pop == "none")
        let problem = key("swipe").apply("relative.wav", to: &s)
        #expect(problem == "expected 'auto', 'none' or an absolute path to a sound file, got 'relative.wav'")
        #expect(key("volume").apply("1.5", to: &s) != nil)
        #expect(key("enabled").render(Settings()) == "true")
        #expect(ReloadPolicy.effect(of: key("volume")) == .now)
    }
}
