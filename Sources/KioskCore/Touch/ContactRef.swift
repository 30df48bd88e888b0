/// Where a contact is on the glass: its device and the slot it is in. The next finger in the same
/// slot has the same key (its tracking id tells them apart: `ContactRef`). Ordered by device,
/// then slot, so what is found in one pass comes out the same every time.
public struct SlotKey: Hashable, Comparable, Sendable {
    public var device: Int
    public var slot: Int

    public init(device: Int, slot: Int) {
        self.device = device
        self.slot = slot
    }

    public static func < (a: SlotKey, b: SlotKey) -> Bool { (a.device, a.slot) < (b.device, b.slot) }
}

/// One contact of one device: the slot it is in and the kernel's tracking id, which tells one
/// finger from the next in the same slot.
public struct ContactRef: Hashable, Sendable, CustomStringConvertible {
    public var device: Int
    public var slot: Int
    public var trackingID: Int

    public init(device: Int, slot: Int, trackingID: Int) {
        self.device = device
        self.slot = slot
        self.trackingID = trackingID
    }

    /// Its device and slot.
    public var slotKey: SlotKey { SlotKey(device: device, slot: slot) }

    public var description: String { "device \(device) slot \(slot) id \(trackingID)" }
}
