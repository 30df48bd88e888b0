internal import CALSA
import Glibc
import KioskCore

/// Why the sound device gave no sound.
public struct SoundDeviceError: Error, CustomStringConvertible, Equatable {
    public let device: String
    public let reason: String
    public var description: String { "ALSA device '\(echoed(device, limit: 100))': \(reason)" }
}

/// One ALSA playback stream: S16_LE, 2 channels, 48 kHz, interleaved, blocking writes of one
/// period. Periods of 5 ms and a buffer of three (15 ms): a sound written now is heard within
/// about 10-15 ms, and the sound thread has 10 ms of slack before an underrun (see doc/operating.md, Sounds).
public final class ALSAOutput {
    public static let periodFrames = 240
    public static let bufferFrames = 720
    public let device: String
    /// What the device agreed to (plugins may round).
    public private(set) var periodFrames = ALSAOutput.periodFrames
    public private(set) var bufferFrames = ALSAOutput.bufferFrames
    /// Underruns recovered since opening.
    public private(set) var underruns = 0
    private let pcm: OpaquePointer
    private let log: Logger

    /// Opens and configures `device`. Never waits for a busy device (SND_PCM_NONBLOCK at open).
    public init(device: String, log: Logger) throws(SoundDeviceError) {
        CALSA_silence_errors()
        self.device = device
        self.log = log
        var handle: OpaquePointer?
        var r = snd_pcm_open(&handle, device, SND_PCM_STREAM_PLAYBACK, CALSA_PCM_NONBLOCK)
        guard r >= 0, let pcm = handle else { throw Self.error(device, "cannot open", r) }
        self.pcm = pcm
        // Writes block (the thread is paced by the device); only the open must not.
        r = snd_pcm_nonblock(pcm, 0)
        if r >= 0 { r = configure() }
        if r < 0 {
            // Cleanup on a failure path: the error being thrown is the one to report.
            _ = snd_pcm_close(pcm)
            throw Self.error(device, "cannot set up 16-bit stereo at 48000 Hz", r)
        }
    }

    deinit {
        // Nothing else can be done about a failure here.
        let r = snd_pcm_close(pcm)
        if r < 0 { log(.warning, "\(Self.error(device, "cannot close", r))") }
    }

    private static func error(_ device: String, _ what: String, _ r: Int32) -> SoundDeviceError {
        var reason = "\(what): \(String(cString: snd_strerror(r)))"
        if r == -EBUSY { reason += " (another program is playing on it; 'default' or 'dmix' share the card)" }
        if r == -ENOENT || r == -ENODEV { reason += " (no such sound card or device)" }
        return SoundDeviceError(device: device, reason: reason)
    }

    private func configure() -> Int32 {
        var hw: OpaquePointer?
        var r = snd_pcm_hw_params_malloc(&hw)
        guard r >= 0, let hw else { return r }
        defer { snd_pcm_hw_params_free(hw) }
        r = snd_pcm_hw_params_any(pcm, hw); if r < 0 { return r }
        r = snd_pcm_hw_params_set_access(pcm, hw, SND_PCM_ACCESS_RW_INTERLEAVED); if r < 0 { return r }
        r = snd_pcm_hw_params_set_format(pcm, hw, SND_PCM_FORMAT_S16_LE); if r < 0 { return r }
        r = snd_pcm_hw_params_set_channels(pcm, hw, 2); if r < 0 { return r }
        // plug devices convert a rate the card lacks; a bare hw: device must offer 48 kHz.
        r = snd_pcm_hw_params_set_rate_resample(pcm, hw, 1); if r < 0 { return r }
        r = snd_pcm_hw_params_set_rate(pcm, hw, UInt32(SoundClip.outputRate), 0); if r < 0 { return r }
        var period = snd_pcm_uframes_t(Self.periodFrames)
        var dir: Int32 = 0
        r = snd_pcm_hw_params_set_period_size_near(pcm, hw, &period, &dir); if r < 0 { return r }
        var buffer = snd_pcm_uframes_t(Self.bufferFrames)
        r = snd_pcm_hw_params_set_buffer_size_near(pcm, hw, &buffer); if r < 0 { return r }
        r = snd_pcm_hw_params(pcm, hw); if r < 0 { return r }
        r = snd_pcm_hw_params_get_period_size(hw, &period, &dir); if r < 0 { return r }
        r = snd_pcm_hw_params_get_buffer_size(hw, &buffer); if r < 0 { return r }
        periodFrames = max(1, Int(period))
        bufferFrames = max(periodFrames, Int(buffer))

        var sw: OpaquePointer?
        r = snd_pcm_sw_params_malloc(&sw)
        guard r >= 0, let sw else { return r }
        defer { snd_pcm_sw_params_free(sw) }
        r = snd_pcm_sw_params_current(pcm, sw); if r < 0 { return r }
        // Start playing as soon as the first period is written, and wake the writer whenever
        // a period's room is free.
        r = snd_pcm_sw_params_set_start_threshold(pcm, sw, snd_pcm_uframes_t(periodFrames)); if r < 0 { return r }
        r = snd_pcm_sw_params_set_avail_min(pcm, sw, snd_pcm_uframes_t(periodFrames)); if r < 0 { return r }
        return snd_pcm_sw_params(pcm, sw)
    }

    /// Writes interleaved stereo frames, blocking while the buffer is full. Underruns (and a
    /// suspend) are recovered and the write retried; other errors are thrown (device gone).
    public func write(_ samples: [Int16]) throws(SoundDeviceError) {
        var offset = 0
        let frames = samples.count / 2
        var attempts = 0
        while offset < frames {
            let n = samples.withUnsafeBufferPointer { buf in
                snd_pcm_writei(pcm, buf.baseAddress! + offset * 2, snd_pcm_uframes_t(frames - offset))
            }
            if n >= 0 {
                offset += Int(n)
                continue
            }
            let code = Int32(n)
            if code == -EPIPE { underruns += 1 }
            attempts += 1
            guard attempts < 5 else { throw Self.error(device, "write failed", code) }
            // Underruns and suspends: snd_pcm_recover. Anything else (EIO from a stream left in
            // a bad state): start the stream over once before giving up on the device.
            if snd_pcm_recover(pcm, code, 1) < 0 && snd_pcm_prepare(pcm) < 0 {
                throw Self.error(device, "write failed", code)
            }
        }
    }

    /// Frames written but not yet heard (snd_pcm_delay); nil when the device cannot tell.
    public func delayFrames() -> Int? {
        var d: snd_pcm_sframes_t = 0
        return snd_pcm_delay(pcm, &d) >= 0 ? Int(d) : nil
    }

    /// Plays out what is queued, then stops the stream (no more wake-ups until `prepare`).
    public func drain() { _ = snd_pcm_drain(pcm) }

    /// Gets a stopped stream ready for the next write.
    public func prepare() throws(SoundDeviceError) {
        let r = snd_pcm_prepare(pcm)
        if r < 0 { throw Self.error(device, "cannot restart", r) }
    }
}
