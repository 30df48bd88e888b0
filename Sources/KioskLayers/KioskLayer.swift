import KioskCore
import KioskPlatform

/// A part of the kiosk that follows the game from outside the frame path (sounds, hooks, scores,
/// metrics, the backlight, fleet control). The runtime announces; layers listen.
///
/// Everything is called on the loop's thread, in the order the layers were attached. A layer
/// makes its timers and registers its descriptors on `host.loop` in `attach`, and must not block
/// a frame in `handle`: slow work goes to a thread of its own. A layer keeps no copy of the
/// kiosk's state: each event comes with its facts, and `host.snapshot` says the rest.
public protocol KioskLayer: AnyObject {
    /// Called once, before the loop runs.
    func attach(to host: LayerHost)
    /// An event, with what every layer needs to know about it.
    func handle(_ event: KioskEvent, _ facts: EventFacts)
    /// Carries out a command the runtime does not (volume: the sound layer; brightness: the
    /// backlight); true when this layer took it. `who` names who asked, for the log.
    func perform(_ command: KioskCommand, by who: String) -> Bool
    /// Adds what this layer alone knows to what every layer reads (the volume, the brightness).
    func contribute(to snapshot: inout KioskSnapshot)
    /// The settings in force after a successful SIGHUP reload.
    func reload(_ settings: Settings)
    /// The kiosk stops: flush, join threads. Called once, before the display is given back.
    func stop()
}

extension KioskLayer {
    public func handle(_ event: KioskEvent, _ facts: EventFacts) {}
    public func perform(_ command: KioskCommand, by who: String) -> Bool { false }
    public func contribute(to snapshot: inout KioskSnapshot) {}
    public func reload(_ settings: Settings) {}
    public func stop() {}
}

/// What a layer (fleet control, the score layer) may ask of the kiosk: the same actions a person
/// at the screen, a signal or the sleep schedule can take, and the two the runtime hands to the
/// layer that owns them.
public enum KioskCommand: Equatable, Sendable {
    /// Off: the display sleeps until a touch or `on` (past any schedule's end). On: it wakes, as
    /// after a touch.
    case display(on: Bool)
    /// Opens or closes the touch-test screen (a sleeping display wakes for it).
    case touchTest(open: Bool)
    /// Reads the configuration again, as SIGHUP does.
    case reload
    /// The operator reset: the kiosk exits with status 10 and systemd starts it afresh.
    case operatorReset
    /// The high-score lists the start and round-over screens show.
    case showScores(ScoreBoard)
    /// Loudness 0 to 1 until the next reload (the sound layer's).
    case volume(Double)
    /// The backlight's undimmed level 0-255 until the next reload (the backlight layer's).
    case brightness(Int)
    /// The TV switched itself to standby (`on` false: the display sleeps for that reason) or
    /// back on (a display asleep for that reason wakes); HDMI-CEC's layer says so.
    case tvPower(on: Bool)
}

/// What a layer reads of the kiosk at any moment: a copy made when asked, never the runtime's
/// own state, so no layer keeps one of its own.
public struct KioskSnapshot {
    /// What is on the screen now.
    public var onScreen: OnScreen
    /// The display's sleep, even while no screen is connected.
    public var asleep: Bool
    /// The game: its screen, round and mode.
    public var game: KioskGame
    /// When someone was last at the kiosk.
    public var activity: Activity
    /// When the kiosk started, on the loop's clock.
    public var startTime: TimeStamp
    /// Rounds people started since the start, counted by local day.
    public var roundsByDay: DailyCount
    /// The best score the score layer announced (`KioskEvent.highScore`), which comes before
    /// the board that has it.
    public var bestAnnounced: Int
    /// The high-score lists shown now (empty before the score layer's first answer).
    public var scoreBoard: ScoreBoard
    /// The touch-downs of play since start, by place (the touch-test screen's are not in it).
    public var touchHeatmap: TouchHeatmap
    /// What the kiosk is doing now, for figures written out of the loop (metrics).
    public var liveFigures: KioskMetrics.LiveFigures
    /// Loudness 0-1, from the sound layer; nil without one.
    public var volume: Double?
    /// The backlight's level 0-255, from the backlight layer; nil without one it can set.
    public var brightness: Int?
    /// The TV over HDMI-CEC, from the TV layer; nil without an adapter in use.
    public var tv: TVStatus?

    public init(onScreen: OnScreen, asleep: Bool, game: KioskGame, activity: Activity, startTime: TimeStamp,
                roundsByDay: DailyCount, bestAnnounced: Int, scoreBoard: ScoreBoard, touchHeatmap: TouchHeatmap,
                liveFigures: KioskMetrics.LiveFigures) {
        self.onScreen = onScreen
        self.asleep = asleep
        self.game = game
        self.activity = activity
        self.startTime = startTime
        self.roundsByDay = roundsByDay
        self.bestAnnounced = bestAnnounced
        self.scoreBoard = scoreBoard
        self.touchHeatmap = touchHeatmap
        self.liveFigures = liveFigures
    }
}

/// What the runtime offers its layers: the loop, the settings, the log and the wall clock, a
/// read-only snapshot of the kiosk, and commands.
public protocol LayerHost: AnyObject {
    var loop: EventLoop { get }
    /// The settings in force.
    var settings: Settings { get }
    var displayName: String { get }
    /// The DRM card and connector of the main screen, where the display has one (which CEC
    /// adapter is the screen's).
    var displayConnector: DRMConnectorRef? { get }
    /// The HDMI physical address the main screen's EDID gives its port, where it has one.
    var displayPhysicalAddress: PhysicalAddress? { get }
    var inputName: String { get }
    /// The one wall clock (the system's, or a virtual one in tests).
    var wallClock: WallClock { get }
    /// The kiosk as it is now, layers' contributions included.
    var snapshot: KioskSnapshot { get }
    /// A copy of what the screen shows, the caller's alone.
    func screenSnapshot() -> PixelBuffer
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
    /// Carries out `command`; `who` names who asked, for the log. False when nothing could (a
    /// brightness without a backlight).
    @discardableResult func perform(_ command: KioskCommand, by who: String) -> Bool
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
