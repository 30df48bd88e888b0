/// A decoded sound ready to mix: interleaved stereo float samples (-1...1) at the output rate.
public struct SoundClip: Sendable, Equatable {
    /// The one rate the kiosk mixes and plays at.
    public static let outputRate = 48_000
    /// Left, right, left, right, ...
    public let samples: [Float]
    public var frameCount: Int { samples.count / 2 }
    /// Length in seconds at the output rate.
    public var duration: Double { Double(frameCount) / Double(Self.outputRate) }

    /// Stereo samples already at the output rate.
    public init(stereo samples: [Float]) {
        self.samples = samples.count % 2 == 0 ? samples : Array(samples.dropLast())
    }

    /// Any interleaved sound: mono is copied to both sides, more than two channels keep the
    /// first two (front left and right in every common layout), then it is resampled.
    public init(interleaved input: [Float], channels: Int, rate: Int) {
        precondition(channels >= 1 && rate > 0)
        let frames = input.count / channels
        var stereo = [Float](repeating: 0, count: frames * 2)
        for f in 0..<frames {
            let l = input[f * channels]
            let r = channels == 1 ? l : input[f * channels + 1]
            stereo[2 * f] = l
            stereo[2 * f + 1] = r
        }
        self.init(stereo: rate == Self.outputRate ? stereo : Resampler.resample(stereo, channels: 2, from: rate, to: Self.outputRate))
    }
}

/// Sample-rate conversion by cubic (Catmull-Rom) interpolation: smooth and cheap, far better
/// than linear for upsampling a 22.05 or 44.1 kHz sound to 48 kHz. Downsampling (96 kHz files)
/// first averages neighbouring input frames, a simple low-pass against aliasing.
public enum Resampler {
    /// Frames an input of `frames` frames becomes (rounded up).
    public static func outputFrames(_ frames: Int, from: Int, to: Int) -> Int {
        frames == 0 ? 0 : Int((Int64(frames) * Int64(to) + Int64(from) - 1) / Int64(from))
    }

    public static func resample(_ input: [Float], channels: Int, from: Int, to: Int) -> [Float] {
        precondition(channels >= 1 && from > 0 && to > 0)
        let inFrames = input.count / channels
        guard from != to, inFrames > 0 else { return Array(input.prefix(inFrames * channels)) }
        let source = to < from ? boxFiltered(input, channels: channels, width: (from + to - 1) / to) : input
        let outFrames = outputFrames(inFrames, from: from, to: to)
        var out = [Float](repeating: 0, count: outFrames * channels)
        let step = Double(from) / Double(to)
        let last = inFrames - 1
        for j in 0..<outFrames {
            let p = Double(j) * step
            let i = Int(p)
            let t = Float(p - Double(i))
            let i0 = max(i - 1, 0), i1 = min(i, last), i2 = min(i + 1, last), i3 = min(i + 2, last)
            for c in 0..<channels {
                let y0 = source[i0 * channels + c], y1 = source[i1 * channels + c]
                let y2 = source[i2 * channels + c], y3 = source[i3 * channels + c]
                // Catmull-Rom spline through y1 (t = 0) and y2 (t = 1).
                let a = -0.5 * y0 + 1.5 * y1 - 1.5 * y2 + 0.5 * y3
                let b = y0 - 2.5 * y1 + 2 * y2 - 0.5 * y3
                let cc = -0.5 * y0 + 0.5 * y2
                out[j * channels + c] = ((a * t + b) * t + cc) * t + y1
            }
        }
        return out
    }

    /// Moving average over `width` frames (centred), per channel.
    static func boxFiltered(_ input: [Float], channels: Int, width: Int) -> [Float] {
        guard width > 1 else { return input }
        let frames = input.count / channels
        var out = [Float](repeating: 0, count: frames * channels)
        let half = width / 2
        for c in 0..<channels {
            for f in 0..<frames {
                let lo = max(0, f - half), hi = min(frames - 1, f - half + width - 1)
                var sum: Float = 0
                for k in lo...hi { sum += input[k * channels + c] }
                out[f * channels + c] = sum / Float(hi - lo + 1)
            }
        }
        return out
    }
}
