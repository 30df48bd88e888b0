import KioskCore
import KioskPlatform

/// A part of the kiosk that follows the game from outside the frame path (sounds, hooks, scores,
/// metrics, fleet control). The runtime announces; layers listen.
///
/// Everything is called on the loop's thread, in the order the layers were attached. A layer
/// makes its timers and registers its descriptors on `host.loop` in `attach`, and must not block
/// a frame in `handle`: slow work goes to a thread of its own.
public protocol KioskLayer: AnyObject {
    /// Called once, before the loop runs.
    func attach(to host: LayerHost)
    /// An event, with what every layer needs to know about it.
    func handle(_ event: KioskEvent, _ facts: EventFacts)
    /// The settings in force after a successful SIGHUP reload.
    func reload(_ settings: Settings)
    /// The kiosk stops: flush, join threads. Called once, before the display is given back.
    func stop()
}

extension KioskLayer {
    public func handle(_ event: KioskEvent, _ facts: EventFacts) {}
    public func reload(_ settings: Settings) {}
    public func stop() {}
}

/// What the runtime offers its layers.
public protocol LayerHost: AnyObject {
    var loop: EventLoop { get }
    /// The settings in force.
    var settings: Settings { get }
    var displayName: String { get }
    var inputName: String { get }
    /// The touch-downs of play since start, by place (the touch-test screen's are not in it).
    var touchHeatmap: TouchHeatmap { get }
    /// What the kiosk is doing now, for figures written out of the loop (metrics).
    var liveFigures: KioskMetrics.LiveFigures { get }
    func log(_ level: Console.Level, _ message: String)
    /// Where lines go from any thread (a layer's worker thread); `log` is the loop's.
    var logger: Logger { get }
    /// Carries out `body`, a command from afar, as one of a spell named `key` (`MQTT
    /// volume/set`): the lines it logs go out for the spell's first command and are summed up
    /// in one line for the rest, so a slider dragged or an automation in a loop does not flood
    /// the log. `newEvent` false: `body` finishes the spell's latest command (its result came
    /// later).
    func logging(spell key: String, newEvent: Bool, _ body: () -> Void)
    /// Announces `event` to every layer, as the runtime's own (a new high score).
    func post(_ event: KioskEvent, at time: TimeStamp)
    /// The high-score lists the start and round-over screens show.
    func show(_ board: ScoreBoard)
    /// The lists shown now (empty before the score layer's first answer).
    var scoreBoard: ScoreBoard { get }

    // What fleet control reads and asks for. `by` names who asked, for the log.
    /// The game: its screen, round and mode.
    var game: KioskGame { get }
    /// What a person in front of the kiosk sees now.
    var fleetScreen: FleetState.Screen { get }
    /// When the kiosk started, on the loop's clock.
    var startTime: TimeStamp { get }
    var isAsleep: Bool { get }
    /// Puts the display to sleep until a touch or `on`, or wakes it.
    func switchDisplay(on: Bool, by who: String)
    func switchTouchTest(open: Bool, by who: String)
    /// Reads the configuration again, as SIGHUP does.
    func reload()
    /// The operator reset: the kiosk exits with status 10 and systemd starts it afresh.
    func resetForOperator(by who: String)
    /// A copy of what the screen shows, the caller's alone.
    func screenSnapshot() -> PixelBuffer
}

/// A layer made of closures: for small listeners (tests, benchmarks) that need no state of their own.
public final class ClosureLayer: KioskLayer {
    let onEvent: (KioskEvent, EventFacts) -> Void
    let onReload: (Settings) -> Void
    let onStop: () -> Void

    public init(event: @escaping (KioskEvent, EventFacts) -> Void = { _, _ in },
                reload: @escaping (Settings) -> Void = { _ in }, stop: @escaping () -> Void = {}) {
        onEvent = event
        onReload = reload
        onStop = stop
    }

    public func attach(to host: LayerHost) {}
    public func handle(_ event: KioskEvent, _ facts: EventFacts) { onEvent(event, facts) }
    public func reload(_ settings: Settings) { onReload(settings) }
    public func stop() { onStop() }
}
