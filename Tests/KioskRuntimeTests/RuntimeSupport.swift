import Glibc
import KioskCore
import KioskPlatform
import KioskRuntime
import KioskTestSupport

/// A virtual kiosk (`VirtualKiosk`) with captured log and output lines and a configuration
/// tests change between reloads.
final class RuntimeHarness {
    let kiosk: VirtualKiosk<InjectedTouchInput>
    let clock: VirtualClock
    var input: InjectedTouchInput { kiosk.input }
    var display: Display { kiosk.display }
    var loop: EventLoop { kiosk.loop }
    var runtime: KioskRuntime { kiosk.runtime }
    /// What the runtime logged, oldest first.
    let log = LogLines()
    var logLines: [String] { log.all }
    var outputLines: [String] = []
    /// What SIGHUP reads; tests change it between reloads.
    var config: ConfigResult

    init(settings: Settings = RuntimeHarness.quietSettings, size: PixelSize = PixelSize(width: 640, height: 400),
         display makeDisplay: ((VirtualClock) -> Display)? = nil, options: KioskRuntime.Options = KioskRuntime.Options(),
         console: ConsoleOwner? = nil, notifier: ServiceNotifier? = nil) throws {
        config = ConfigResult(settings: settings)
        var o = options
        if o.seed == 0 { o.seed = 7 }
        var loader: () -> ConfigResult = { ConfigResult(settings: Settings()) }
        let clock = VirtualClock()
        self.clock = clock
        kiosk = try VirtualKiosk(settings: settings, size: size, clock: clock,
                                 display: makeDisplay.map { make in { _ in make(clock) } }, options: o,
                                 console: console, notifier: notifier, loadConfig: { loader() })
        loader = { [unowned self] in config }
        runtime.logger = Logger { [log] in log.add($1) }
        runtime.output = { [unowned self] in outputLines.append($0) }
    }

    /// No demo: the start screen stays put unless a test touches it.
    static var quietSettings: Settings {
        var s = Settings.classicOnly
        s.attract.demo = false
        return s
    }

    var now: TimeStamp { clock.now }

    /// Starts the runtime and runs it for `ms` of virtual time.
    func run(ms: Double) throws { try kiosk.run(for: .milliseconds(ms)) }

    /// Runs on for `ms` without starting again.
    func advance(ms: Double) { kiosk.advance(by: .milliseconds(ms)) }

    /// A tap at `p` (down, then up 50 ms later), each frame handled as it arrives.
    func tap(_ p: Vector2, slot: Int = 0, id: Int = 1) { kiosk.tap(p, slot: slot, id: id) }

    /// Waits for work done off the loop (a writer thread, a hook's process) until `condition`
    /// holds, at most `limit` of real time: after each `every` of real time the loop runs on
    /// for `advancing` of virtual time and picks up what came back.
    func eventually(within limit: Duration, every interval: Duration = .milliseconds(10),
                    advancing step: Duration = .milliseconds(10), _ condition: () throws -> Bool) rethrows -> Bool {
        try KioskTestSupport.eventually(within: limit, every: interval, waiting: { span in
            pause(for: span)
            kiosk.advance(by: step)
        }, condition)
    }

    /// Taps Start and waits for the round's first frame.
    func startRound() {
        tap(runtime.session.game.button.center)
        advance(ms: 100)
    }

    /// Taps the round's first live tap bubble until it pops; its id and the taps it needed.
    func popATapBubble() throws -> (id: Int, taps: Int) {
        struct NoTapBubble: Error {}
        guard let round = runtime.session.game.round,
              let b = round.bubbles.first(where: { if case .tap = $0.kind { return !$0.isPopped } else { return false } }),
              case .tap(let taps) = b.kind else { throw NoTapBubble() }
        for i in 0..<taps {
            tap(panel(b.center), id: 100 + i)
            advance(ms: 400)
        }
        return (b.id, taps)
    }

    /// A panel position (what a touchscreen reports) for a game position.
    func panel(_ game: Vector2) -> Vector2 { kiosk.panel(game) }
}

/// A virtual display that can lose its "DRM master": presents throw `DisplayError.lost` while
/// lost, and `resume` fails `refusals` times before it works.
final class LosableDisplay: Display {
    let inner: VirtualDisplay
    var lost = false
    var refusals = 0
    private(set) var resumeAttempts: [TimeStamp] = []
    private(set) var suspended = 0
    /// Damage of every present that reached the screen.
    private(set) var presents: [[PixelRect]] = []
    /// When each of them happened.
    private(set) var presentTimes: [TimeStamp] = []
    let clock: VirtualClock

    init(size: PixelSize, clock: VirtualClock) {
        inner = VirtualDisplay(size: size, clock: clock)
        self.clock = clock
    }

    /// The monitor its EDID would name (tests of what the kiosk reads from it).
    var monitor: EDID?
    var mainMonitor: EDID? { monitor }
    var name: String { "losable" }
    var size: PixelSize { inner.size }
    var reportedPxPerMM: Double? { nil }
    var canPresent: Bool { true }
    var onVisible: ((TimeStamp) -> Void)? {
        get { inner.onVisible }
        set { inner.onVisible = newValue }
    }

    func present(_ picture: PixelBuffer, damage: [PixelRect]) throws {
        if lost { throw DisplayError.lost("master taken by another program") }
        presents.append(damage)
        presentTimes.append(clock.now)
        try inner.present(picture, damage: damage)
    }

    func handleEvents() {}
    func snapshot() -> PixelBuffer { inner.snapshot() }
    func restore() {}
    func suspend() { suspended += 1 }

    func resume() throws {
        resumeAttempts.append(clock.now)
        if refusals > 0 {
            refusals -= 1
            throw DisplayError.lost("master refused")
        }
        lost = false
    }
}

/// A VT whose switches tests ask for.
final class FakeConsole: ConsoleOwner {
    var switchSignal: Int32 { SIGUSR2 }
    var next = VTSwitch.release
    var isActive = true
    /// False: a release signal with no switch pending.
    var switchPending = true
    private(set) var calls: [String] = []

    func handleSwitchSignal() -> VTSwitch {
        calls.append("signal")
        isActive = next == .acquire
        return next
    }

    func acknowledgeRelease() -> Bool {
        calls.append("release")
        if !switchPending { isActive = true }
        return switchPending
    }
    func acknowledgeAcquire() { calls.append("acquire") }
    func keepKeyboard() { calls.append("keep keyboard") }
    func restore() { calls.append("restore") }
}

/// A service manager that keeps what it was told.
final class RecordingNotifier: ServiceNotifier {
    let watchdogInterval: Duration?
    private(set) var messages: [(at: TimeStamp, text: String)] = []
    /// Stamps the messages (the harness's clock).
    var clock: VirtualClock?

    init(watchdogMS: Double? = nil) { watchdogInterval = watchdogMS.map { .milliseconds($0) } }

    func notify(_ message: String) { messages.append((clock?.now ?? .zero, message)) }

    var texts: [String] { messages.map(\.text) }
}
