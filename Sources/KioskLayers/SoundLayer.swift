import KioskCore
import KioskPlatform

/// The sounds layer: plays the game's cues (`SoundCues`) on a `SoundPlayer`, its own thread and
/// ALSA stream; the loop only posts to its mailbox.
public final class SoundLayer: KioskLayer {
    /// The player, once started; nil before the first frame or when no thread could be made.
    public private(set) var player: SoundPlayer?
    private let startAtOnce: Bool
    private var settings = SoundSettings()
    private var started = false
    private var logger = Logger.discard

    /// - Parameter startAtOnce: start the thread when attached rather than after the first frame
    ///   (the bench, which needs it ready before its round). By default it starts after the
    ///   first frame: decoding (or making the default sounds) takes CPU that a one-core board
    ///   needs for its first picture.
    public init(startAtOnce: Bool = false) {
        self.startAtOnce = startAtOnce
    }

    public func attach(to host: LayerHost) {
        settings = host.settings.sounds
        logger = host.logger
        if startAtOnce { start() }
    }

    public func handle(_ event: KioskEvent, _ facts: EventFacts) {
        if case .firstFrame = event { start() }
        if let effect = SoundCues.effect(for: event, facts) { player?.play(effect) }
    }

    public func reload(_ settings: Settings) {
        self.settings = settings.sounds
        player?.reload(settings.sounds)
    }

    public func stop() { player?.stop() }

    public func perform(_ command: KioskCommand, by who: String) -> Bool {
        guard case .volume(let v) = command else { return false }
        setVolume(v)
        return true
    }

    public func contribute(to snapshot: inout KioskSnapshot) { snapshot.volume = volume }

    /// Loudness now, 0 to 1: `[sounds] volume`, or what fleet control set since.
    public var volume: Double { settings.volume }

    /// Sets the loudness (clamped to 0...1) until the next reload, which brings the config's back.
    public func setVolume(_ volume: Double) {
        settings.volume = min(max(volume, 0), 1)
        player?.reload(settings)
    }

    private func start() {
        guard !started else { return }
        started = true
        player = SoundPlayer.start(settings: settings, log: logger)
    }
}
