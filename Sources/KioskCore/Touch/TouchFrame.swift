/// One finger on the screen in one frame, in screen pixels.
public struct TouchPoint: Equatable, Sendable {
    /// Multi-touch slot (protocol B), or an index this project assigns for protocol A and
    /// single-touch devices. Unique among the contacts of one frame of one device.
    public var slot: Int
    /// Kernel tracking id, or one assigned here; a new id in a slot is a new contact.
    public var trackingID: Int
    /// Position in screen pixels.
    public var position: Vector2
    /// Raw pressure where the device reports it.
    public var pressure: Int?

    public init(slot: Int, trackingID: Int, position: Vector2, pressure: Int? = nil) {
        self.slot = slot
        self.trackingID = trackingID
        self.position = position
        self.pressure = pressure
    }
}

/// The state of all contacts of one device at one `SYN_REPORT`.
///
/// Live evdev input and replayed recordings produce the same frames.
public struct TouchFrame: Equatable, Sendable {
    /// Kernel timestamp of the `SYN_REPORT` (virtual time in replays).
    public var time: TimeStamp
    /// Which input device this frame came from (0 for a single device or a recording).
    public var device: Int
    /// Every contact down at this moment.
    public var contacts: [TouchPoint]
    /// True when the contacts that were down before this frame can no longer be trusted
    /// (events were dropped, or the device vanished): their gestures must be cancelled.
    public var resync: Bool

    public init(time: TimeStamp, device: Int = 0, contacts: [TouchPoint], resync: Bool = false) {
        self.time = time
        self.device = device
        self.contacts = contacts
        self.resync = resync
    }
}
