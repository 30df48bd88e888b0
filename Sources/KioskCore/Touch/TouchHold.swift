/// Keeps a whole touch from the game until every finger of it lifted: the touch that woke the
/// sleeping display, the fingers still down when the touch-test screen closed. While it holds,
/// every frame is kept, on every device, and fingers that join the touch are part of it; so a
/// palm waking the screen, or a hand closing the touch test, never taps the start screen.
///
/// (A contact taken from a round in play, stuck or part of an operator gesture, is held alone
/// instead, so the other players go on: `OperatorInput`.)
public struct TouchHold: Equatable, Sendable {
    /// Devices with fingers of the held touch down.
    public private(set) var devices: Set<Int> = []
    /// Frames kept from the game since the start.
    public private(set) var keptFrames = 0

    public init() {}

    public var isHolding: Bool { !devices.isEmpty }

    /// Holds the touch in the frame (nothing when no finger is down in it).
    public mutating func hold(_ frame: TouchFrame) {
        if !frame.contacts.isEmpty { devices.insert(frame.device) }
    }

    /// Holds the touches on these devices (their fingers are down now).
    public mutating func hold(devices more: some Sequence<Int>) {
        devices.formUnion(more)
    }

    /// Whether the frame is kept from the game. A device's part ends with the frame in which its
    /// last finger lifted, and that frame is kept too (the game never saw the fingers go down).
    public mutating func keeps(_ frame: TouchFrame) -> Bool {
        guard isHolding else { return false }
        if frame.contacts.isEmpty { devices.remove(frame.device) } else { devices.insert(frame.device) }
        keptFrames += 1
        return true
    }

    /// The device went away: its fingers are up.
    public mutating func forget(device: Int) {
        devices.remove(device)
    }

    /// Lets go of the touch on every device (a screen that takes all frames itself opened).
    public mutating func release() {
        devices = []
    }
}
