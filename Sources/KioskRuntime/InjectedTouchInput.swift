import KioskCore
import KioskPlatform

/// Touch frames handed in by code (the latency bench, runtime tests) and delivered at once,
/// as if a touchscreen had sent them.
public final class InjectedTouchInput: TouchInput {
    public let name: String
    private var deliver: ((TouchFrame) -> Void)?
    private var lost: ((Int, TimeStamp) -> Void)?

    /// What the touch-test screen lists (tests set it).
    public var touchDevices: [TouchTestDevice] = []

    public init(name: String = "injected") { self.name = name }

    public func start(loop: EventLoop, deliver: @escaping (TouchFrame) -> Void, lost: @escaping (Int, TimeStamp) -> Void) {
        self.deliver = deliver
        self.lost = lost
    }

    public var nextDeadline: TimeStamp? { nil }
    public func advance(to now: TimeStamp) {}

    /// Delivers `frame` now (after the runtime started).
    public func push(_ frame: TouchFrame) { deliver?(frame) }

    /// Reports device `device` gone, as a hotplug removal would.
    public func unplug(device: Int, at time: TimeStamp) { lost?(device, time) }
}
