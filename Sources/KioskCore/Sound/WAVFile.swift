/// 16-bit PCM WAV files, written and read by the project itself (`play --audio-out`, the
/// default sounds, tests). Other formats are decoded by libsndfile.
public enum WAVFile {
    /// A canonical 44-byte-header WAV of interleaved 16-bit samples.
    public static func encode(_ samples: [Int16], channels: Int, rate: Int) -> [UInt8] {
        let dataBytes = samples.count * 2
        var out: [UInt8] = []
        out.reserveCapacity(44 + dataBytes)
        func u32(_ v: Int) { for i in 0..<4 { out.append(UInt8(truncatingIfNeeded: v >> (8 * i))) } }
        func u16(_ v: Int) { for i in 0..<2 { out.append(UInt8(truncatingIfNeeded: v >> (8 * i))) } }
        out += Array("RIFF".utf8); u32(36 + dataBytes); out += Array("WAVE".utf8)
        out += Array("fmt ".utf8); u32(16); u16(1); u16(channels); u32(rate)
        u32(rate * channels * 2); u16(channels * 2); u16(16)
        out += Array("data".utf8); u32(dataBytes)
        for s in samples {
            let u = UInt16(bitPattern: s)
            out.append(UInt8(u & 0xFF))
            out.append(UInt8(u >> 8))
        }
        return out
    }

    /// The samples, channel count and rate of a 16-bit PCM WAV; nil for anything else.
    public static func decode(_ bytes: [UInt8]) -> (samples: [Int16], channels: Int, rate: Int)? {
        func u32(_ at: Int) -> Int { (0..<4).reduce(0) { $0 | Int(bytes[at + $1]) << (8 * $1) } }
        func u16(_ at: Int) -> Int { Int(bytes[at]) | Int(bytes[at + 1]) << 8 }
        guard bytes.count >= 12, bytes[0..<4].elementsEqual("RIFF".utf8), bytes[8..<12].elementsEqual("WAVE".utf8) else { return nil }
        var at = 12
        var channels = 0, rate = 0, bits = 0
        while at + 8 <= bytes.count {
            let size = u32(at + 4)
            let body = at + 8
            if bytes[at..<at + 4].elementsEqual("fmt ".utf8), body + 16 <= bytes.count {
                guard u16(body) == 1 else { return nil }
                channels = u16(body + 2); rate = u32(body + 4); bits = u16(body + 14)
            } else if bytes[at..<at + 4].elementsEqual("data".utf8) {
                guard bits == 16, channels > 0 else { return nil }
                let end = min(bytes.count, body + size)
                var samples = [Int16](repeating: 0, count: (end - body) / 2)
                for i in samples.indices {
                    samples[i] = Int16(bitPattern: UInt16(bytes[body + 2 * i]) | UInt16(bytes[body + 2 * i + 1]) << 8)
                }
                return (samples, channels, rate)
            }
            at = body + size + (size & 1)
        }
        return nil
    }
}
