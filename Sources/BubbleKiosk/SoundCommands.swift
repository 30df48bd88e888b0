import Glibc
import KioskCore
import KioskPlatform

/// `bubble-kiosk generate-sounds DIR` (not in the command list: `make sounds` runs it): writes
/// the default sounds the project synthesises as 16-bit mono 48 kHz WAV files.
struct GenerateSoundsCommand: KioskCommand {
    static let name = "generate-sounds"
    static let usage = """
        usage: bubble-kiosk generate-sounds DIR
        Writes the built-in sounds (pop.wav, swipe.wav, round_start.wav, round_over.wav,
        high_score.wav) into DIR, which must exist. `make sounds` writes build/sounds; they are
        installed in /usr/share/bubble-kiosk/sounds, where [sounds] ... = auto finds them.
        """

    static func run(_ argv: ArraySlice<String>) throws -> Int32 {
        let args = try Arguments(argv, valued: [], flags: [])
        guard args.positionals.count == 1 else { throw UsageError("expected one DIR") }
        let dir = args.positionals[0]
        guard FileSystem.isDirectory(dir) else {
            Console.errorLine("bubble-kiosk generate-sounds: \(echoed(dir, limit: 200)): not a directory", level: .error)
            return 1
        }
        for effect in SoundEffect.allCases {
            let path = dir + "/" + effect.configName + ".wav"
            try OutputFile.write(path, SoundSynth.wav(for: effect))
            Console.line(path)
        }
        return 0
    }
}

/// The sounds `play --audio-out` mixes: what a live kiosk with these settings would play.
struct AudioOut {
    var facts = EventFactsTracker()
    var timeline: AudioTimeline
    var clips: [SoundEffect: SoundClip] = [:]
    let origin: TimeStamp

    init(settings: SoundSettings, origin: TimeStamp) {
        self.origin = origin
        timeline = AudioTimeline(volume: Float(settings.volume))
        guard settings.enabled else { return }
        var problems: [String] = []
        for e in SoundEffect.allCases {
            if let clip = SoundDecoder.clip(for: e, settings: settings, problems: &problems) { clips[e] = clip }
        }
        for p in problems { Console.log(.warning, p) }
    }

    /// Places the sounds of `events`, which happened at `time` in `round`.
    mutating func add(_ events: [GameEvent], at time: TimeStamp, round: Round) {
        if facts.roundsStarted == 0 {
            // `play` hands in one person's round, already started: the facts begin with its start.
            _ = facts.facts(for: .game(.roundStarted(demo: false)), screen: .playing(demo: false), round: round, at: time)
        }
        for e in events {
            let event = KioskEvent.game(e)
            let told = facts.facts(for: event, screen: .playing(demo: false), round: round, at: time)
            guard let effect = SoundCues.effect(for: event, told), let clip = clips[effect] else { continue }
            // A timed round ends when its countdown does, which the next gesture only reveals.
            var at = time
            if case .roundOver = e, let end = round.endTime { at = min(time, end) }
            timeline.add(clip, atFrame: AudioTimeline.frame(at: Double(at.microseconds - origin.microseconds) / 1e6))
        }
    }

    /// The mix as a WAV file, at least as long as the replay.
    func write(to path: String, end: TimeStamp) throws {
        let frames = AudioTimeline.frame(at: Double(end.microseconds - origin.microseconds) / 1e6)
        try OutputFile.write(path, WAVFile.encode(timeline.render(minimumFrames: frames), channels: 2, rate: SoundClip.outputRate))
    }
}
