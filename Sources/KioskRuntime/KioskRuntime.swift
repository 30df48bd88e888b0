import Glibc
import KioskCore
import KioskLayers
import KioskPlatform
import KioskRender

/// The running kiosk: one event loop driving a handful of owners, each with its own state and
/// timers: the display stage (`DisplayStage`), the touch path (`TouchPath`), the game session,
/// the display's sleep (`DisplaySleep`), the touch-test screen (`TouchTestScreen`), the operator
/// console (`OperatorConsole`), the upgrade (`UpdateRestart`), the layers (`LayerBus`) and the
/// reporter (`Reporter`). The
/// executable builds the backends and hands them in; tests hand in a virtual clock, a virtual
/// display and a replay.
///
/// Everything happens on the loop's thread. Named timers wake the loop for what is due; each
/// iteration then does the frame's work in `update`.
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
        /// The one wall clock (the sleep schedule, rounds today, the daily tables, hooks' and
        /// metrics' times): the system's, or a virtual one in tests.
        public var wallClock: WallClock = SystemWallClock()
        /// The program file to watch for a new version (`bubble-kiosk run` under a service
        /// manager: its own, `/usr/bin/bubble-kiosk`; tests: a file standing in); nil: none.
        public var program: InstalledProgram?
        /// Where translations are looked for; nil: beside the program, then /usr/share/locale.
        public var localeDirectories: [String]?
        /// Reads the configuration again for SIGHUP (the same files as at start).
        var loadConfig: () -> ConfigResult = { ConfigResult(settings: Settings()) }

        public init() {}
    }

    /// What the runtime itself knows beyond its owners, changed in one place each.
    struct State {
        /// When `start` ran.
        var started: TimeStamp
        /// What the kiosk shows, ranked once (`updateOnScreen`).
        var onScreen: OnScreen
        /// When someone was last at the kiosk.
        var activity: Activity
        /// Rounds people started since the start, and by local day.
        var rounds = 0
        var roundsByDay = DailyCount()
        /// The best score the score layer announced.
        var bestAnnounced = 0
    }

    public let loop: EventLoop
    public internal(set) var options: Options
    /// The settings in force (after reloads: what could change while running).
    public internal(set) var settings: Settings
    public internal(set) var session: KioskSession
    /// The session's next deadline.
    let sessionTimer: EventLoop.TimerID
    let stage: DisplayStage
    let touches: TouchPath
    public let displaySleep: DisplaySleep
    public let touchTest: TouchTestScreen
    let operatorConsole: OperatorConsole
    let updates: UpdateRestart
    let layers: LayerBus
    let reporter: Reporter
    var state: State

    /// - Parameters:
    ///   - settings: the configuration as loaded at start.
    ///   - loadConfig: reads it again on SIGHUP.
    ///   - console: the VT the kiosk owns, when it runs on one.
    public init(settings: Settings, display: Display, input: TouchInput, loop: EventLoop, options: Options,
                console: ConsoleOwner? = nil, notifier: ServiceNotifier? = nil, logger: Logger,
                loadConfig: @escaping () -> ConfigResult) {
        self.loop = loop
        self.options = options
        self.options.loadConfig = loadConfig
        self.settings = settings
        let pxPerMM = Self.pxPerMM(display, settings)
        let field = PlayField(size: display.size, pxPerMM: pxPerMM, game: settings.game)
        session = KioskSession(game: KioskGame(field: field, settings: settings, seed: options.seed, at: loop.now))
        sessionTimer = loop.addTimer("session")
        stage = DisplayStage(display: display, console: console, field: field, loop: loop, seed: options.seed,
                             frameInterval: options.frameInterval)
        touches = TouchPath(input: input, transform: Self.touchTransform(display, settings, input), loop: loop)
        displaySleep = DisplaySleep(loop: loop, display: display)
        touchTest = TouchTestScreen(loop: loop)
        operatorConsole = OperatorConsole(loop: loop, input: OperatorInput(settings: settings, pxPerMM: pxPerMM, screen: display.size))
        updates = UpdateRestart(loop: loop, program: options.program)
        layers = LayerBus(screen: session.game.screen)
        reporter = Reporter(logger: logger, notifier: notifier, loop: loop)
        state = State(started: loop.now, onScreen: .game(session.game.screen), activity: Activity(start: loop.now))
        // What each owner does to the rest is said once `self` is whole.
        displaySleep.log = { [unowned self] level, text in log(level, text) }
        stage.presenter.renderer.onMissingGlyph = { [unowned self] line in log(.warning, line) }
        operatorConsole.found = { [unowned self] out, time in operatorFound(out, at: time) }
        updates.arrived = { [unowned self] path in announceUpdate(path: path) }
        loop.onFire(stage.ownership.retryTimer) { [unowned self] now in retryDisplay(at: now) }
        loop.onFire(stage.screenProbeTimer) { [unowned self] now in probeForScreens(at: now) }
    }

    public var display: Display { stage.display }
    public var input: TouchInput { touches.input }
    /// Where log lines go (standard error, with journal levels, unless a test listens).
    public var logger: Logger {
        get { reporter.logger }
        set { reporter.logger = newValue }
    }
    /// Where status and stats lines go (standard output unless a test listens).
    public var output: (String) -> Void {
        get { reporter.output }
        set { reporter.output = newValue }
    }
    /// The one wall clock; tests may put a virtual one here before the runtime starts.
    public var wallClock: WallClock {
        get { options.wallClock }
        set {
            options.wallClock = newValue
            displaySleep.forgetDecision()
        }
    }
    /// What `run` returns: `.operatorReset` once the reset stopped the loop, `.updated` once the
    /// restart into a new program did.
    public var exitStatus: ExitStatus {
        if operatorConsole.resetAsked { return .operatorReset }
        return updates.restartAsked ? .updated : .stopped
    }
    public var displayState: DisplayState { stage.ownership.state }
    /// What is on the screen now.
    public var onScreen: OnScreen { state.onScreen }
    /// The touch that woke the display, or was down when the touch-test screen closed, kept
    /// from the game until every finger lifted.
    public var touchHold: TouchHold { touches.hold }
    /// Frames presented since the start.
    public var frames: Int { stage.presenter.frames }
    /// Input-to-screen latency, the latest 4096 samples.
    public var latencies: SampleRing { stage.presenter.latencies }
    /// How long each presented frame took to render and present (real time even on a virtual
    /// loop), the latest 4096.
    public var frameTimes: SampleRing { stage.presenter.frameTimes }
    /// The game's scene now, from the runtime's own scene builder (benchmarks draw it
    /// themselves), before the burn-in shift moves it (`KioskRuntime+PixelShift.swift`).
    public func scene(at now: TimeStamp) -> Scene { stage.scenes.scene(session, at: now) }
    public var renderer: SceneRenderer { stage.presenter.renderer }

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
        layers.attach(layer, to: self)
    }

    /// Attaches each of `layers`, in order.
    public func attach(_ layers: [KioskLayer]) {
        for layer in layers { attach(layer) }
    }

    /// Listens to the kiosk's events with a closure (a `ClosureLayer`): tests and benchmarks.
    public func observe(_ observer: @escaping (KioskEvent, TimeStamp) -> Void) {
        attach(ClosureLayer(event: { event, facts in observer(event, facts.time) }))
    }

    public func log(_ level: Console.Level, _ message: String) { reporter.log(level, message) }

    public func logging(spell key: String, newEvent: Bool, _ body: () -> Void) {
        reporter.logging(spell: key, newEvent: newEvent, body)
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
        let started = loop.now
        state.started = started
        state.activity = Activity(start: started)
        touches.stages = touchStages()
        applyLook()
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
        if let period = reporter.service.keepAlivePeriod {
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
        if let console = stage.console {
            try loop.watch(signal: console.switchSignal)
            if !console.isActive {
                // Started on a VT that is not in front: wait for the switch to it.
                display.suspend()
                stage.ownership.switchedAway()
            }
        }
        stage.watches = display.watch(on: loop)
        display.onScreensChanged = { [unowned self] in screensChanged(at: loop.now) }
        if display.screenCount == 0 { waitForScreen(at: started) }
        try input.start(loop: loop, deliver: { [unowned self] panel in touches.route(panel) },
                        lost: { [unowned self] device, time in touchscreenLost(device, at: time) })
        display.onResize = { [unowned self] in displayResized(at: loop.now) }
        display.onVisible = { [unowned self] shownAt in stage.presenter.shown(at: shownAt) }
        updateOnScreen()
        if options.attractNow { emit(session.startDemo(at: started), at: started) }
        if options.touchTest { openTouchTest(at: started) }
        updates.start(at: started, log: logger)
        loop.onIteration = { [unowned self] now in update(now) }
    }

    // MARK: input and events

    /// The stages a touch frame passes, in order; the first that takes it ends its way.
    private func touchStages() -> [TouchStage] {
        [
            TouchStage(name: "operator gestures") { [unowned self] route in
                route.frame = operatorConsole.screen(route.frame)
                return false
            },
            TouchStage(name: "wake") { [unowned self] route in takeWakingTouch(route.frame) },
            // The touch-test screen shows every finger, held or not.
            TouchStage(name: "held touch") { [unowned self] route in
                !touchTest.isOpen && touches.hold.keeps(route.frame)
            },
            TouchStage(name: "touch test") { [unowned self] route in
                // From here on the frame changes the picture: its latency counts.
                stage.presenter.noteInput(at: route.frame.time)
                return touchTestTakes(route)
            },
            TouchStage(name: "game") { [unowned self] route in
                play(route.frame)
                return true
            },
        ]
    }

    /// The last stage: the frame's touch-downs into the heatmap, then the game (where its
    /// picture was under the fingers).
    private func play(_ panelFrame: TouchFrame) {
        // The heatmap is of the panel: where fingers land, whatever the picture's offset.
        touchTest.countTouchDowns(panelFrame, on: display.size)
        let frame = unshifted(panelFrame)
        let events = session.process(frame)
        if !frame.contacts.isEmpty || frame.resync { notify(.touch(frame), at: frame.time) }
        emit(events, at: frame.time)
    }

    /// A touchscreen went away: its contacts leave every stage and the game.
    private func touchscreenLost(_ device: Int, at time: TimeStamp) {
        touchTest.deviceLost(device, at: time, devices: input.touchDevices)
        operatorConsole.forget(device: device, at: time)
        touches.hold.forget(device: device)
        emit(session.cancel(device: device, at: time), at: time)
        notify(.touchscreenLost(device: device, remaining: input.deviceCount), at: time)
    }

    /// Fans the game's events out, then a screen change if there was one.
    func emit(_ events: [GameEvent], at time: TimeStamp) {
        for e in events { notify(.game(e), at: time) }
        let screen = session.game.screen
        if screen != layers.lastScreen {
            layers.lastScreen = screen
            notify(.screen(screen), at: time)
        }
    }

    /// Announces `event`: what the runtime itself keeps of it first, then the scene's effects
    /// (sparks start with the pop that caused them), then the layers.
    func notify(_ event: KioskEvent, at time: TimeStamp) {
        switch event {
        case .game(.roundStarted(demo: false)):
            state.rounds += 1
            state.roundsByDay.add(onDay: wallClock.local(at: time).day.number)
        case .highScore(let best):
            state.bestAnnounced = max(state.bestAnnounced, best.score)
        default:
            break
        }
        updateOnScreen()
        let facts = layers.facts(for: event, game: session.game, at: time, wall: wallClock.wallTime(at: time),
                                 onScreen: state.onScreen)
        if case .game(let e) = event { stage.scenes.note([e], round: session.game.round, at: time) }
        layers.announce(event, facts)
    }

    /// Ranks what is on the screen again: the one place `onScreen` changes.
    func updateOnScreen() {
        if let blocked = stage.blocked {
            state.onScreen = blocked
        } else if let reason = displaySleep.reason {
            state.onScreen = .asleep(reason)
        } else if touchTest.isOpen {
            state.onScreen = .touchTest
        } else {
            state.onScreen = .game(session.game.screen)
        }
    }

    // MARK: the frame's work

    /// One iteration's work: input due, time passing, drawing; then the timers for what is next.
    func update(_ now: TimeStamp) {
        // Asleep or awake: a sleeping display is a moment to take an upgrade.
        defer { considerUpdate(at: now) }
        if sleepingUpdate(now) { return }
        input.advance(to: now)
        if !advanceTouchTest(to: now) { emit(session.advance(to: now), at: now) }
        var waitingFrame: TimeStamp?
        if stage.mayDraw {
            waitingFrame = draw(now)
        } else {
            stage.presenter.idle()
        }
        reportStatus()
        loop.arm(sessionTimer, at: touchTest.isOpen ? nil : session.nextDeadline)
        loop.arm(touches.timer, at: input.nextDeadline)
        // Asked again: drawing can lose the display.
        let animation = stage.mayDraw ? nextPictureChange(at: now) : nil
        loop.arm(stage.frameTimer, at: [animation, waitingFrame].compactMap { $0 }.min())
        planDisplaySleep(now)
    }

    /// Renders and presents if a frame is due; returns when to try again if it is paced out.
    func draw(_ now: TimeStamp) -> TimeStamp? {
        guard display.canPresent else {
            // A flip is on its way; its event wakes the loop. Look again soon in case it is lost.
            return now + .milliseconds(50)
        }
        var offset = PixelOffset.zero
        let scene: Scene
        if let test = touchTest.scene(timeout: settings.operator.touchTestTimeout, at: now) {
            scene = test
        } else {
            offset = gameOffset(at: now)
            scene = shiftedGameScene(offset, at: now)
        }
        switch stage.presenter.present(scene, on: display, at: now) {
        case .presented(let first):
            stage.shownOffset = offset
            if first {
                updateOnScreen()
                reporter.service.ready(status: serviceStatus)
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

    /// When the picture next changes by itself: the touch-test screen's, else the game's or
    /// the burn-in shift's next step (none when it is off).
    func nextPictureChange(at now: TimeStamp) -> TimeStamp? {
        if touchTest.isOpen { return touchTest.nextChange(at: now) }
        return [stage.scenes.nextChange(session.game, at: now), pixelShift.nextChange(after: now)].compactMap { $0 }.min()
    }

    /// The exit path: the last screenshot, the display and the console given back, stats.
    public func finish() {
        layers.stop()
        if let path = options.screenshotPath { writeScreenshot(path) }
        display.restore()
        stage.console?.restore()
        if options.stats { output(statsLine()) }
    }
}
