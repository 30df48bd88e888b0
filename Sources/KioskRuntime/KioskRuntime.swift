import Glibc
import KioskCore
import KioskLayers
import KioskPlatform
import KioskRender

/// The running kiosk: one event loop driving input, the session, the renderer and a display,
/// with the game's events fanned out to its layers (`KioskLayer`). The executable builds the backends and hands
/// them in; tests hand in a virtual clock, a virtual display and a replay.
///
/// Everything happens on the loop's thread. Named timers wake the loop for what is due (the
/// session, the next animation frame, a replay's next event, screenshots, status lines, the
/// end of `--duration`, the display's retry); each iteration then does the frame's work in
/// `update`.
public final class KioskRuntime: LayerHost {
    /// What the command line asked for.
    public struct Options {
        /// A PNG of the screen on exit.
        public var screenshotPath: String?
        /// A PNG of the screen this often while running.
        public var screenshotEvery: (period: Duration, path: String)?
        /// One status line a second on standard output.
        public var statusLines = false
        /// Start the attract demo at once.
        public var attractNow = false
        /// Stop after this long.
        public var duration: Duration?
        /// The first real round's seed.
        public var seed: UInt64 = 0
        /// Print frames, wake-ups and latency at exit.
        public var stats = false
        /// Where SIGUSR1 screenshots go by default (systemd's StateDirectory, or --state-dir).
        public var stateDirectory: String?
        /// Open the touch-test screen at start (`run --touch-test`).
        public var touchTest = false
        /// Shortest time between frames: 60 a second. Some drivers (bochs-drm) report page flips
        /// at once rather than at vblank, and drawing on every flip event would spin.
        public var frameInterval = Duration.seconds(1) / 60
        /// The local time of day (the sleep schedule, the operator reset's line): the system's,
        /// or a virtual one in tests.
        public var wallClock: LocalWallClock = SystemWallClock()

        public init() {}
    }

    public let loop: EventLoop
    public let display: Display
    public let input: TouchInput
    public let options: Options
    /// The settings in force (after reloads: what could change while running).
    public internal(set) var settings: Settings
    public internal(set) var session: KioskSession
    /// Frames to the display: pacing, damage, frame times and latency (`Presenter`).
    let presenter: Presenter
    var builder: SceneBuilder
    /// Panel coordinates to game coordinates: calibration, then the display's rotation.
    var touchTransform: TouchTransform
    /// Reads the configuration again for SIGHUP (the same files as at start).
    let loadConfig: () -> ConfigResult
    /// Where log lines go (standard error, with journal levels, unless a test listens).
    public var logger: Logger
    /// Where status and stats lines go (standard output unless a test listens).
    public var output: (String) -> Void = { Console.line($0) }
    /// The layers, in the order attached; `stopped` once their `stop` was called.
    private var layers: [KioskLayer] = []
    private var layersStopped = false
    /// Each event's facts: round numbers, and the round an ending event is about.
    private var facts = EventFactsTracker()
    let console: ConsoleOwner?
    /// What the service manager (systemd) is told (`ServiceReporter`).
    var service: ServiceReporter
    /// What `run` returns: `.operatorReset` once the reset gesture stopped the loop.
    public internal(set) var exitStatus = ExitStatus.stopped
    /// The stuck-touch filter and the operator gestures (KioskRuntime+Operator).
    var operatorState: OperatorState

    // The loop's own timers: the session's next deadline, the next frame, the input's next event.
    let sessionTimer: EventLoop.TimerID
    let frameTimer: EventLoop.TimerID
    let inputTimer: EventLoop.TimerID
    /// While no screen is connected: look again now and then, in case a hotplug event was missed.
    let screenProbeTimer: EventLoop.TimerID

    private(set) var started = TimeStamp.zero
    var lastScreen: KioskGame.Screen
    /// The touch-test screen and the heatmap since start (`KioskRuntime+TouchTest.swift`).
    let touchTest: TouchTestState
    /// The loop watching the display's descriptors.
    private var displayWatches: [LoopRegistration] = []
    /// Commands from afar that repeat: their lines folded into one per spell.
    private let commandSpells: CommandLogSpells

    /// Since when no screen has been connected (nil while one is).
    var screenWaitSince: TimeStamp?
    /// Whether the kiosk may draw, and the lost display's retries (`DisplayOwnership`).
    var ownership: DisplayOwnership
    public var displayState: DisplayState { ownership.state }
    /// The display is the kiosk's and a screen is connected: frames can be shown.
    var mayDraw: Bool { displayState == .showing && display.screenCount > 0 }
    /// The display's sleep (KioskRuntime+Sleep.swift).
    public var displaySleep: DisplaySleepState
    /// The touch that woke the display, or was down when the touch-test screen closed, kept
    /// from the game until every finger lifted.
    public internal(set) var touchHold = TouchHold()

    /// Frames presented since the start.
    public var frames: Int { presenter.frames }
    /// Input-to-screen latency samples in milliseconds (the latest 4096).
    public var latencies: SampleRing { presenter.latencies }
    /// Milliseconds each presented frame took to render and present (real time even on a
    /// virtual loop), the latest 4096.
    public var frameTimes: SampleRing { presenter.frameTimes }

    /// - Parameters:
    ///   - settings: the configuration as loaded at start.
    ///   - loadConfig: reads it again on SIGHUP.
    ///   - console: the VT the kiosk owns, when it runs on one.
    public init(settings: Settings, display: Display, input: TouchInput, loop: EventLoop, options: Options,
                console: ConsoleOwner? = nil, notifier: ServiceNotifier? = nil, logger: Logger,
                loadConfig: @escaping () -> ConfigResult) {
        self.logger = logger
        self.display = display
        self.input = input
        self.loop = loop
        self.options = options
        self.settings = settings
        self.console = console
        service = ServiceReporter(notifier: notifier)
        self.loadConfig = loadConfig
        let pxPerMM = Self.pxPerMM(display, settings)
        let field = PlayField(size: display.size, pxPerMM: pxPerMM, game: settings.game)
        touchTransform = Self.touchTransform(display, settings, input)
        presenter = Presenter(size: display.size, frameInterval: options.frameInterval)
        session = KioskSession(game: KioskGame(field: field, settings: settings, seed: options.seed, at: loop.now))
        operatorState = OperatorState(input: OperatorInput(settings: settings, pxPerMM: pxPerMM, screen: display.size),
                                      timer: loop.addTimer("operator"))
        builder = SceneBuilder(field: field, seed: options.seed)
        lastScreen = session.game.screen
        displaySleep = DisplaySleepState(wallClock: options.wallClock, timer: loop.addTimer("display-sleep"))
        // Each timer is made with its owner; what it does is said once `self` is whole.
        sessionTimer = loop.addTimer("session")
        frameTimer = loop.addTimer("frame")
        inputTimer = loop.addTimer("input")
        ownership = DisplayOwnership(retryTimer: loop.addTimer("display-retry"))
        screenProbeTimer = loop.addTimer("screen-probe")
        touchTest = TouchTestState(timer: loop.addTimer("touch-test"))
        commandSpells = CommandLogSpells(loop: loop)
        commandSpells.emit = { [unowned self] level, text in self.logger(level, text) }
        loop.onFire(ownership.retryTimer) { [unowned self] now in retryDisplay(at: now) }
        loop.onFire(screenProbeTimer) { [unowned self] now in probeForScreens(at: now) }
        loop.onFire(operatorState.timer) { [unowned self] now in screenOperator(operatorState.input.advance(to: now), at: now) }
    }

    /// The display's density: `[display] px_per_mm`, else what the display reports, else 4.
    static func pxPerMM(_ display: Display, _ settings: Settings) -> Double {
        PixelDensity.resolve(configured: settings.display.pxPerMM, reported: display.reportedPxPerMM)
    }

    /// Panel to game coordinates for the display's size and rotation and `[input] calibration`,
    /// from the panel size `input` maps onto (a main screen of another size is reached by scaling).
    static func touchTransform(_ display: Display, _ settings: Settings, _ input: TouchInput) -> TouchTransform {
        TouchTransform(native: display.nativeSize, rotation: display.rotation, calibration: settings.input.calibration,
                       input: input.panelSize)
    }

    /// Attaches `layer`: it makes its timers and descriptors now, and hears every event, reload
    /// and the exit from now on, after the layers attached before it. Attach before `run`.
    public func attach(_ layer: KioskLayer) {
        layers.append(layer)
        layer.attach(to: self)
    }

    /// Attaches each of `layers`, in order.
    public func attach(_ layers: [KioskLayer]) {
        for layer in layers { attach(layer) }
    }

    /// Listens to the kiosk's events with a closure (a `ClosureLayer`): tests and benchmarks.
    public func observe(_ observer: @escaping (KioskEvent, TimeStamp) -> Void) {
        attach(ClosureLayer(event: { event, facts in observer(event, facts.time) }))
    }

    public func log(_ level: Console.Level, _ message: String) {
        if commandSpells.holds(level, message) { return }
        logger(level, message)
    }

    public func logging(spell key: String, newEvent: Bool, _ body: () -> Void) {
        commandSpells.during(key, newEvent: newEvent, body)
    }

    /// Runs until a stop signal or `--duration`; returns the exit code.
    public func run() throws -> Int32 {
        // Whatever fails from here on, the display and the VT are given back.
        defer { finish() }
        try start()
        try loop.run()
        return exitStatus.rawValue
    }

    /// Runs on virtual time until `end` (tests): the same work as `run`, without waiting.
    public func run(until end: TimeStamp, advancing clock: VirtualClock) throws {
        try start()
        loop.run(until: end, advancing: clock)
    }

    /// One iteration now, without waiting (benchmarks): timers due, then the frame's work.
    public func step() { loop.iterateNow() }

    /// Registers descriptors, timers and signals and starts the demo if asked. Called by `run`;
    /// benchmarks call it and then `step`.
    public func start() throws {
        started = loop.now
        startOperator()
        followOperatorGestures()
        if let every = options.screenshotEvery {
            loop.addRepeatingTimer("screenshot", every: every.period, from: started + every.period) {
                [unowned self] _ in writeScreenshot(every.path)
            }
        }
        if options.statusLines {
            loop.addRepeatingTimer("status", every: .seconds(1), from: started + .seconds(1)) {
                [unowned self] now in output(statusLine(now))
            }
        }
        if let period = service.keepAlivePeriod {
            // From the loop itself: a hung loop misses it and is restarted.
            loop.addRepeatingTimer("watchdog", every: period, from: started + period) { [unowned self] now in
                keepAliveIfFramesShow(at: now)
            }
        }
        if let d = options.duration {
            let end = loop.addTimer("end") { [unowned self] _ in loop.stop() }
            loop.arm(end, at: started + d)
        }
        loop.onSignal = { [unowned self] signo in handle(signal: signo) }
        if let console {
            try loop.watch(signal: console.switchSignal)
            if !console.isActive {
                // Started on a VT that is not in front: wait for the switch to it.
                display.suspend()
                ownership.switchedAway()
            }
        }
        displayWatches = display.watch(on: loop)
        display.onScreensChanged = { [unowned self] in screensChanged(at: loop.now) }
        if display.screenCount == 0 { waitForScreen(at: started) }
        try input.start(loop: loop, deliver: { [unowned self] raw in
            deliver(touchTransform.apply(raw), panel: raw)
        }, lost: { [unowned self] device, time in
            touchTestDeviceLost(device, at: time)
            forgetOperator(device: device, at: time)
            touchHold.forget(device: device)
            emit(session.cancel(device: device, at: time), at: time)
            notify(.touchscreenLost(device: device, remaining: input.deviceCount), at: time)
        })
        display.onResize = { [unowned self] in displayResized(at: loop.now) }
        display.onVisible = { [unowned self] shownAt in presenter.shown(at: shownAt) }
        if options.attractNow { emit(session.startDemo(at: started), at: started) }
        if options.touchTest { openTouchTest(at: started) }
        loop.onIteration = { [unowned self] now in update(now) }
    }

    // MARK: input and events

    /// - Parameter panel: the frame as the panel sent it, before `touchTransform`.
    func deliver(_ raw: TouchFrame, panel: TouchFrame? = nil) {
        let frame = screenOperator(raw)
        if takeWakingTouch(frame) { return }
        // The touch-test screen shows every finger, held or not.
        if !isTouchTestOpen && touchHold.keeps(frame) { return }
        presenter.noteInput(at: frame.time)
        if touchTestTakes(raw, panel: panel) { return }
        countTouchDowns(frame)
        let events = session.process(frame)
        if !frame.contacts.isEmpty || frame.resync { notify(.touch(frame), at: frame.time) }
        emit(events, at: frame.time)
    }

    /// Fans the game's events out, then a screen change if there was one.
    func emit(_ events: [GameEvent], at time: TimeStamp) {
        for e in events { notify(.game(e), at: time) }
        let screen = session.game.screen
        if screen != lastScreen {
            lastScreen = screen
            notify(.screen(screen), at: time)
        }
    }

    func notify(_ event: KioskEvent, at time: TimeStamp) {
        let facts = facts.facts(for: event, game: session.game, at: time)
        // The scene's effects first: sparks start with the pop that caused them.
        if case .game(let e) = event { builder.note([e], round: session.game.round, at: time) }
        for layer in layers { layer.handle(event, facts) }
    }

    /// Tells the layers of a reload.
    func reloadLayers(_ settings: Settings) {
        for layer in layers { layer.reload(settings) }
    }

    // MARK: the frame's work

    /// One iteration's work: input due, time passing, drawing; then the timers for what is next.
    func update(_ now: TimeStamp) {
        if sleepingUpdate(now) { return }
        input.advance(to: now)
        if !advanceTouchTest(to: now) { emit(session.advance(to: now), at: now) }
        var waitingFrame: TimeStamp?
        if mayDraw {
            waitingFrame = draw(now)
        } else {
            presenter.idle()
        }
        reportStatus()
        loop.arm(sessionTimer, at: isTouchTestOpen ? nil : session.nextDeadline)
        loop.arm(inputTimer, at: input.nextDeadline)
        // Asked again: drawing can lose the display.
        let animation = mayDraw ? nextPictureChange(at: now) : nil
        loop.arm(frameTimer, at: [animation, waitingFrame].compactMap { $0 }.min())
        planDisplaySleep(now)
    }

    /// Renders and presents if a frame is due; returns when to try again if it is paced out.
    func draw(_ now: TimeStamp) -> TimeStamp? {
        guard display.canPresent else {
            // A flip is on its way; its event wakes the loop. Look again soon in case it is lost.
            return now + .milliseconds(50)
        }
        let scene = touchTestScene(at: now) ?? builder.scene(session, at: now)
        switch presenter.present(scene, on: display, at: now) {
        case .presented(let first):
            if first {
                service.ready(status: serviceStatus)
                log(.info, "first frame on screen")
                notify(.firstFrame, at: now)
            }
            return nil
        case .unchanged:
            return nil
        case .paced(let due):
            return due
        case .lost(let error):
            displayLost(error, at: now)
            return nil
        case .failed(let error, let times, let report):
            // A failing display fails every frame: said on the 1st, 2nd, 4th, 8th... time.
            if report { log(.error, "display \(display.name): \(error) (\(times) times)") }
            // In a second even if nothing moves, so a passing failure does not leave a stale picture.
            return now + .seconds(1)
        }
    }

    /// The exit path: the last screenshot, the display and the console given back, stats.
    public func finish() {
        if !layersStopped {
            layersStopped = true
            for layer in layers { layer.stop() }
        }
        if let path = options.screenshotPath { writeScreenshot(path) }
        display.restore()
        console?.restore()
        if options.stats { output(statsLine()) }
    }
}