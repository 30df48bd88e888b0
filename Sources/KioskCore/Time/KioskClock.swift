/// Where the live kiosk reads the time: the monotonic clock on a kiosk, a virtual one in tests.
public protocol KioskClock: AnyObject {
    var now: TimeStamp { get }
}

/// Time that moves only when told to: runtime tests run months of kiosk life in milliseconds.
public final class VirtualClock: KioskClock {
    public var now: TimeStamp

    public init(at start: TimeStamp = TimeStamp(microseconds: 1_000_000)) { now = start }

    /// Moves the clock forward by `ms` milliseconds.
    public func advance(by span: Duration) { now = now + span }
}
