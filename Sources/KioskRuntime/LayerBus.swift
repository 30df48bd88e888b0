import KioskCore
import KioskLayers

/// The layers and what they hear: each event with its facts (`EventFactsTracker`), in the order
/// the layers were attached; reloads; the exit, once. The runtime announces through it and is
/// never a listener of its own.
final class LayerBus {
    private(set) var layers: [KioskLayer] = []
    private var stopped = false
    /// Each event's facts: the round an ending event is about.
    private var facts = EventFactsTracker()
    /// The game's screen as last announced (`KioskEvent.screen` on a change).
    var lastScreen: KioskGame.Screen

    init(screen: KioskGame.Screen) { lastScreen = screen }

    func attach(_ layer: KioskLayer, to host: LayerHost) {
        layers.append(layer)
        layer.attach(to: host)
    }

    /// The facts of `event` in `game` now.
    func facts(for event: KioskEvent, game: KioskGame, at time: TimeStamp, wall: WallTime, onScreen: OnScreen) -> EventFacts {
        facts.facts(for: event, game: game, at: time, wall: wall, onScreen: onScreen)
    }

    func announce(_ event: KioskEvent, _ facts: EventFacts) {
        for layer in layers { layer.handle(event, facts) }
    }

    /// The first layer that takes `command`.
    func perform(_ command: KioskCommand, by who: String) -> Bool {
        layers.contains { $0.perform(command, by: who) }
    }

    func contribute(to snapshot: inout KioskSnapshot) {
        for layer in layers { layer.contribute(to: &snapshot) }
    }

    func reload(_ settings: Settings) {
        for layer in layers { layer.reload(settings) }
    }

    /// Each layer's `stop`, once.
    func stop() {
        guard !stopped else { return }
        stopped = true
        for layer in layers { layer.stop() }
    }
}
