/// The kiosk's mixer: any number of overlapping voices, each a clip at a volume, summed into
/// interleaved 16-bit stereo at 48 kHz. A value with no clock: the sound thread renders one
/// period at a time for ALSA, `play --audio-out` renders a whole round on virtual time.
public struct AudioMixer: Sendable {
    struct Voice: Sendable {
        let clip: SoundClip
        let gain: Float
        /// Next frame of the clip to play.
        var position: Int
        /// Frames of silence before the clip starts (to start a voice mid-period).
        var delay: Int
    }

    /// Most voices at once: a flood of pops drops the oldest rather than the CPU's time.
    public static let maxVoices = 32
    /// Multiplies every voice (the `[sounds] volume`).
    public var volume: Float
    private var voices: [Voice] = []
    private var mix: [Float] = []

    public init(volume: Float = 1) {
        self.volume = volume
    }

    /// Voices still playing (or waiting for their start).
    public var activeVoices: Int { voices.count }
    public var isIdle: Bool { voices.isEmpty }

    /// Starts `clip` at `gain` (0...1) after `delay` frames of the next `render`.
    public mutating func start(_ clip: SoundClip, gain: Float = 1, delay: Int = 0) {
        guard clip.frameCount > 0 else { return }
        if voices.count >= Self.maxVoices { voices.removeFirst() }
        voices.append(Voice(clip: clip, gain: gain, position: 0, delay: max(0, delay)))
    }

    /// Stops every voice.
    public mutating func silence() { voices.removeAll() }

    /// Mixes the next `frames` frames into `out` (resized to `frames * 2` samples); voices that
    /// end are dropped. The sum is clipped to the 16-bit range, never wrapped.
    public mutating func render(frames: Int, into out: inout [Int16]) {
        if mix.count != frames * 2 { mix = [Float](repeating: 0, count: frames * 2) } else {
            for i in mix.indices { mix[i] = 0 }
        }
        var v = 0
        while v < voices.count {
            var voice = voices[v]
            let skip = min(voice.delay, frames)
            voice.delay -= skip
            let n = min(frames - skip, voice.clip.frameCount - voice.position)
            if n > 0 {
                let g = voice.gain
                voice.clip.samples.withUnsafeBufferPointer { src in
                    var s = voice.position * 2
                    var d = skip * 2
                    for _ in 0..<(n * 2) {
                        mix[d] += src[s] * g
                        s += 1
                        d += 1
                    }
                }
                voice.position += n
            }
            if voice.delay == 0 && voice.position >= voice.clip.frameCount {
                voices.remove(at: v)
            } else {
                voices[v] = voice
                v += 1
            }
        }
        if out.count != frames * 2 { out = [Int16](repeating: 0, count: frames * 2) }
        let scale = volume * 32767
        for i in 0..<(frames * 2) {
            out[i] = Self.toInt16(mix[i] * scale)
        }
    }

    /// Rounds and clips a sample already scaled to the 16-bit range.
    @inline(__always)
    static func toInt16(_ x: Float) -> Int16 {
        if x >= 32767 { return 32767 }
        if x <= -32768 { return -32768 }
        return Int16((x + (x < 0 ? -0.5 : 0.5)).rounded(.towardZero))
    }
}

/// A whole stretch of sound on virtual time: sounds placed at sample-exact times, mixed into
/// one 16-bit stereo stream (what `play --audio-out` writes).
public struct AudioTimeline: Sendable {
    public private(set) var cues: [(frame: Int, clip: SoundClip, gain: Float)] = []
    public let volume: Float

    public init(volume: Float) { self.volume = volume }

    /// The output frame for `seconds` after the start.
    public static func frame(at seconds: Double) -> Int {
        max(0, Int((seconds * Double(SoundClip.outputRate)).rounded()))
    }

    public mutating func add(_ clip: SoundClip, atFrame frame: Int, gain: Float = 1) {
        cues.append((max(0, frame), clip, gain))
    }

    /// The mix, at least `minimumFrames` long and long enough for every sound to end.
    public func render(minimumFrames: Int = 0) -> [Int16] {
        let sorted = cues.enumerated().sorted { ($0.element.frame, $0.offset) < ($1.element.frame, $1.offset) }.map(\.element)
        let end = max(minimumFrames, sorted.map { $0.frame + $0.clip.frameCount }.max() ?? 0)
        var mixer = AudioMixer(volume: volume)
        var out: [Int16] = []
        out.reserveCapacity(end * 2)
        var block: [Int16] = []
        let blockFrames = 1024
        var next = 0
        var at = 0
        while at < end {
            let frames = min(blockFrames, end - at)
            while next < sorted.count && sorted[next].frame < at + frames {
                mixer.start(sorted[next].clip, gain: sorted[next].gain, delay: sorted[next].frame - at)
                next += 1
            }
            mixer.render(frames: frames, into: &block)
            out += block
            at += frames
        }
        return out
    }
}
