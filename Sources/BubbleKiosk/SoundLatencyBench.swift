import Glibc
import KioskCore
import KioskPlatform

/// How fast a sound follows its event: the real sound thread and ALSA stream on `device`,
/// fed 40 pops 25 ms apart the way the loop feeds it (a mailbox post per event).
struct SoundLatencyBench {
    var device = "null"
    var opened = false
    var periodFrames = 0
    var bufferFrames = 0
    /// From `play` to the write holding the sound's first sample returning.
    var eventToWrite = Timing()
    /// snd_pcm_delay right after that write.
    var deviceDelay = Timing()
    /// When the first sample is heard: the write plus what was queued ahead of it.
    var eventToSound = Timing()
    var underruns = 0

    static func measure(device: String, count: Int = 40) throws -> SoundLatencyBench {
        var result = SoundLatencyBench(device: device)
        var settings = SoundSettings()
        settings.device = device
        settings.volume = 0
        let player = try SoundPlayer(settings: settings, log: .discard)
        defer { player.stop() }
        guard wait({ player.stats.configured == 1 }), player.stats.deviceOpen else { return result }
        result.opened = true
        for _ in 0..<count {
            player.play(.pop)
            usleep(25_000)
        }
        _ = wait { player.stats.starts.count >= count }
        let s = player.stats
        result.periodFrames = s.periodFrames
        result.bufferFrames = s.bufferFrames
        result.eventToWrite = Timing(s.starts.map(\.eventToWriteMS))
        result.deviceDelay = Timing(s.starts.compactMap(\.deviceDelayMS))
        result.eventToSound = Timing(s.starts.map(\.eventToSoundMS))
        result.underruns = s.underruns
        return result
    }

    private static func wait(_ condition: () -> Bool) -> Bool {
        for _ in 0..<2500 {
            if condition() { return true }
            usleep(2000)
        }
        return condition()
    }
}
