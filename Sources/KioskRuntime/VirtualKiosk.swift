import KioskCore
import KioskPlatform
import KioskRender

/// The kiosk with no devices: a `KioskRuntime` on a virtual clock and loop, a virtual display and
/// code-fed touches. Runtime tests and the benchmarks build it one way, so what they drive is
/// what the kiosk runs.
public final class VirtualKiosk<Input: TouchInput> {
    /// Virtual time; `MonotonicClock` when a benchmark measures wall time (`advance` needs a virtual one).
    public let clock: KioskClock
    public let loop: EventLoop
    public let display: Display
    public let input: Input
    public let runtime: KioskRuntime

    /// - Parameters:
    ///   - display: builds the display on `clock` (default: a `VirtualDisplay` of `size`).
    ///   - loadConfig: what SIGHUP reads (default: `settings` again).
    public init(settings: Settings, size: PixelSize = PixelSize(width: 640, height: 400), input: Input,
                clock: KioskClock = VirtualClock(), display makeDisplay: ((KioskClock) -> Display)? = nil,
                options: KioskRuntime.Options = KioskRuntime.Options(), console: ConsoleOwner? = nil,
                notifier: ServiceNotifier? = nil, logger: Logger = .standardError,
                loadConfig: (() -> ConfigResult)? = nil) throws {
        self.clock = clock
        self.input = input
        display = makeDisplay?(clock) ?? VirtualDisplay(size: size, clock: clock, allocate: { PixelMemory.blackBuffer(size: $0) })
        loop = try EventLoop(clock: clock, log: logger)
        runtime = KioskRuntime(settings: settings, display: display, input: input, loop: loop, options: options,
                               console: console, notifier: notifier, logger: logger,
                               loadConfig: loadConfig ?? { ConfigResult(settings: settings) })
    }

    public var now: TimeStamp { clock.now }

    /// Starts the runtime and runs it for `span` of virtual time.
    public func run(for span: Duration) throws {
        try runtime.run(until: now + span, advancing: virtualClock)
    }

    /// Runs on for `span` of virtual time without starting again.
    public func advance(by span: Duration) {
        loop.run(until: now + span, advancing: virtualClock)
    }

    private var virtualClock: VirtualClock {
        guard let c = clock as? VirtualClock else { preconditionFailure("VirtualKiosk: advancing needs a VirtualClock") }
        return c
    }

    /// A panel position (what a touchscreen reports) for a game position.
    public func panel(_ game: Vector2) -> Vector2 {
        TouchTransform(native: display.nativeSize, rotation: display.rotation).panelPosition(ofGame: game)
    }

    /// What the kiosk draws now: the runtime's own scene builder on its own session (before the
    /// burn-in shift moves it on the screen: benchmarks and golden images stay put).
    public func scene() -> Scene {
        runtime.scene(at: now)
    }

    /// The runtime's own renderer. Benchmarks draw `scene()` with it, on a `WithheldDisplay` so
    /// the runtime does not draw first.
    public var renderer: SceneRenderer { runtime.renderer }
}

extension VirtualKiosk where Input == InjectedTouchInput {
    /// A virtual kiosk whose touches the caller pushes (`input.push`).
    public convenience init(settings: Settings, size: PixelSize = PixelSize(width: 640, height: 400),
                            clock: KioskClock = VirtualClock(), display: ((KioskClock) -> Display)? = nil,
                            options: KioskRuntime.Options = KioskRuntime.Options(), console: ConsoleOwner? = nil,
                            notifier: ServiceNotifier? = nil, logger: Logger = .standardError,
                loadConfig: (() -> ConfigResult)? = nil) throws {
        try self.init(settings: settings, size: size, input: InjectedTouchInput(), clock: clock, display: display,
                      options: options, console: console, notifier: notifier, logger: logger, loadConfig: loadConfig)
    }

    /// A tap at `p` (down, then up 50 ms later), each frame handled as it arrives.
    public func tap(_ p: Vector2, slot: Int = 0, id: Int = 1) {
        input.push(TouchFrame(time: now, contacts: [TouchPoint(slot: slot, trackingID: id, position: p)]))
        advance(by: .milliseconds(50))
        input.push(TouchFrame(time: now, contacts: []))
        advance(by: .milliseconds(20))
    }
}

/// A display the runtime never gets to draw on (`canPresent` stays false): a benchmark renders
/// the kiosk's scenes itself, and the runtime's frames would otherwise take them first.
public final class WithheldDisplay: Display {
    public let size: PixelSize
    public var name: String { "withheld:\(size)" }
    public var reportedPxPerMM: Double? { nil }
    public var canPresent: Bool { false }
    public var onVisible: ((TimeStamp) -> Void)?

    public init(size: PixelSize) { self.size = size }

    public func present(_ picture: PixelBuffer, damage: [PixelRect]) throws {}
    public func handleEvents() {}
    public func snapshot() -> PixelBuffer { PixelBuffer(size: size) }
    public func restore() {}
}
