/// When someone was last at the kiosk: the one notion of "idle" that the display's sleep, the
/// backlight's dimming and fleet control's last touch all read. The runtime keeps it.
public struct Activity: Equatable, Sendable {
    /// The latest touch on a real touchscreen (the one that woke the display and the touch-test
    /// screen's included); nil when there was none.
    public private(set) var lastTouch: TimeStamp?
    /// When the display last woke, or the kiosk started.
    public private(set) var lastWake: TimeStamp
    /// The latest of anything that shows someone is there: a touch, a wake, the touch-test
    /// screen opened or closed.
    public private(set) var latest: TimeStamp

    public init(start: TimeStamp) {
        lastWake = start
        latest = start
    }

    public mutating func touched(at t: TimeStamp) {
        lastTouch = max(lastTouch ?? t, t)
        latest = max(latest, t)
    }

    public mutating func woke(at t: TimeStamp) {
        lastWake = t
        latest = max(latest, t)
    }

    /// Someone did something other than touch (an operator opened the touch-test screen).
    public mutating func noted(at t: TimeStamp) {
        latest = max(latest, t)
    }

    /// Since when nobody touched or woke the display: the later of the last touch and the last wake.
    public var quietSince: TimeStamp { max(lastTouch ?? lastWake, lastWake) }
}
