/// The kiosk's default sounds, synthesised by the project itself (no recordings to license):
/// a bubbly pop, an airy whoosh, and bell chimes. Deterministic: the same samples every time.
/// `bubble-kiosk generate-sounds DIR` writes them as WAV (`make sounds`); `auto` in `[sounds]`
/// uses the installed files, or these same sounds made in memory when none are installed.
public enum SoundSynth {
    public static let rate = SoundClip.outputRate

    /// The default sound for `effect`: mono samples at 48 kHz, peaks at 0.7.
    public static func samples(for effect: SoundEffect) -> [Float] {
        switch effect {
        case .pop: return pop()
        case .swipe: return swipe()
        case .roundStart: return chime([523.25, 659.25, 783.99], spacing: 0.09, tail: 0.45)
        case .roundOver: return chime([783.99, 659.25, 523.25, 1046.5], spacing: 0.13, tail: 0.8)
        case .highScore: return chime([523.25, 659.25, 783.99, 1046.5, 1318.5, 1568.0], spacing: 0.07, tail: 0.9)
        }
    }

    public static func clip(for effect: SoundEffect) -> SoundClip {
        SoundClip(interleaved: samples(for: effect), channels: 1, rate: rate)
    }

    /// 16-bit mono WAV bytes of the default sound.
    public static func wav(for effect: SoundEffect) -> [UInt8] {
        WAVFile.encode(samples(for: effect).map { AudioMixer.toInt16($0 * 32767) }, channels: 1, rate: rate)
    }

    /// A bubble bursting: a sine whose pitch rises quickly (a collapsing bubble resonates
    /// higher), a 1 ms attack, a 14 ms decay, and a faint click of noise at the start. 80 ms.
    static func pop() -> [Float] {
        let n = Int(0.08 * Double(rate))
        var out = [Float](repeating: 0, count: n)
        var phase = 0.0
        var noise = Noise()
        for i in 0..<n {
            let t = Double(i) / Double(rate)
            let f = 500 + 1100 * (1 - exp(-t / 0.02))
            phase += 2 * Double.pi * f / Double(rate)
            let env = min(1, t / 0.001) * exp(-t / 0.014)
            let click = t < 0.003 ? noise.next() * (1 - t / 0.003) * 0.3 : 0
            out[i] = Float(Angle.sin(phase) * env + click)
        }
        return normalized(out)
    }

    /// A swish: noise through a low-pass whose cutoff sweeps up and down, in a smooth 220 ms swell.
    static func swipe() -> [Float] {
        let n = Int(0.22 * Double(rate))
        var out = [Float](repeating: 0, count: n)
        var noise = Noise()
        var low1 = 0.0, low2 = 0.0
        for i in 0..<n {
            let x = Double(i) / Double(n)
            let cutoff = 400 + 3600 * Angle.sin(Double.pi * x)
            let a = 1 - exp(-2 * Double.pi * cutoff / Double(rate))
            low1 += a * (noise.next() - low1)
            low2 += a * (low1 - low2)
            let env = Angle.sin(Double.pi * x)
            out[i] = Float(low2 * env * env)
        }
        return normalized(out)
    }

    /// Bell-like notes (a sine with a soft octave and a slowly beating partial), one after the
    /// other `spacing` seconds apart, the last ringing `tail` seconds.
    static func chime(_ notes: [Double], spacing: Double, tail: Double) -> [Float] {
        let length = spacing * Double(notes.count - 1) + tail
        let n = Int(length * Double(rate))
        var out = [Float](repeating: 0, count: n)
        for (k, f) in notes.enumerated() {
            let start = Int(spacing * Double(k) * Double(rate))
            for i in start..<n {
                let t = Double(i - start) / Double(rate)
                let env = min(1, t / 0.004) * exp(-t / (k == notes.count - 1 ? tail / 3 : 0.18))
                let w = 2 * Double.pi * f * t
                let v = Angle.sin(w) + 0.25 * Angle.sin(2 * w) + 0.1 * Angle.sin(3.01 * w)
                out[i] += Float(v * env)
            }
        }
        return normalized(out)
    }

    /// Scaled so the loudest sample is 0.7, leaving headroom for overlapping sounds.
    static func normalized(_ x: [Float]) -> [Float] {
        let peak = x.map { abs($0) }.max() ?? 0
        guard peak > 0 else { return x }
        return x.map { $0 * 0.7 / peak }
    }

    /// e^x for the envelopes (x <= 0 here): halve until small, a Taylor series, square back.
    static func exp(_ x: Double) -> Double {
        if x < -700 { return 0 }
        var k = 0
        var y = x
        while abs(y) > 0.01 { y /= 2; k += 1 }
        var r = 1 + y * (1 + y / 2 * (1 + y / 3 * (1 + y / 4 * (1 + y / 5))))
        for _ in 0..<k { r *= r }
        return r
    }

    /// xorshift32 white noise in -1...1.
    struct Noise {
        var state: UInt32 = 0x1234_5678
        mutating func next() -> Double {
            state ^= state << 13
            state ^= state >> 17
            state ^= state << 5
            return Double(state) / Double(UInt32.max) * 2 - 1
        }
    }
}
