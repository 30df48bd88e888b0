/// The QoS 0 messages handed to libmosquitto and not yet written to the socket, counted so a
/// broker that stops reading cannot make the kiosk's memory grow: libmosquitto itself queues
/// without limit.
///
/// libmosquitto's publish callback (on the worker) may report a message written before
/// `mosquitto_publish` (on the loop's thread) has returned its id, so a message is reserved
/// first and its id recorded after; an id written early is remembered until then.
struct MQTTOutgoing {
    static let maxMessages = 64
    static let maxBytes = 8 << 20

    private(set) var count = 0
    private(set) var bytes = 0
    /// Bumped by `reset`: reservations of an earlier connection no longer count.
    private(set) var generation = 0
    private var pending: [Int32: Int] = [:]
    private var writtenEarly: Set<Int32> = []

    /// Reserves room for a message of `size` bytes; nil when the queue is full. A message larger
    /// than the byte bound still goes when nothing else waits (a big screenshot is not refused
    /// for ever). `force` ignores the bounds (the farewell).
    mutating func reserve(_ size: Int, force: Bool = false) -> Int? {
        if !force && (count >= Self.maxMessages || (count > 0 && bytes + size > Self.maxBytes)) { return nil }
        count += 1
        bytes += size
        return generation
    }

    /// libmosquitto queued the reserved message as `mid`.
    mutating func queued(mid: Int32, size: Int, generation g: Int) {
        guard g == generation else { return }
        if writtenEarly.remove(mid) != nil {
            release(size)
        } else {
            pending[mid] = size
        }
    }

    /// libmosquitto refused the reserved message.
    mutating func cancel(size: Int, generation g: Int) {
        if g == generation { release(size) }
    }

    /// The publish callback: message `mid` was written.
    mutating func written(mid: Int32) {
        if let size = pending.removeValue(forKey: mid) {
            release(size)
        } else if count > 0 {
            // Reserved but its id not recorded yet (or an id from before a reset: harmless,
            // cleared with the next reset).
            writtenEarly.insert(mid)
        }
    }

    /// Whether message `mid` still waits to be written.
    func isPending(_ mid: Int32) -> Bool { pending[mid] != nil }

    /// The connection ended: libmosquitto drops what it had queued, so nothing waits any more.
    mutating func reset() {
        count = 0
        bytes = 0
        pending.removeAll()
        writtenEarly.removeAll()
        generation &+= 1
    }

    private mutating func release(_ size: Int) {
        count = max(count - 1, 0)
        bytes = max(bytes - size, 0)
    }
}
