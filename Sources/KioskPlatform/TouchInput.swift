import KioskCore

/// A source of touch frames for the live kiosk: evdev devices, or a recording replayed in real
/// time (for development and tests without a touchscreen).
public protocol TouchInput: AnyObject {
    /// Short name for the status line (`none`, `replay:taps.evemu`, `evdev:/dev/input/event3`).
    var name: String { get }
    /// Starts delivering: registers descriptors with the loop; frames go to `deliver`,
    /// a vanished device's index to `lost`.
    func start(loop: EventLoop, deliver: @escaping (TouchFrame) -> Void, lost: @escaping (Int, TimeStamp) -> Void) throws
    /// When this input has something due without a descriptor becoming readable (replays).
    var nextDeadline: TimeStamp? { get }
    /// Delivers what is due by `now` (replays).
    func advance(to now: TimeStamp)
    /// Touchscreens in use, for inputs that look for devices (evdev); nil for the others.
    var deviceCount: Int? { get }
    /// The devices in use with their names and axis ranges (the touch-test screen lists them).
    var touchDevices: [TouchTestDevice] { get }
    /// The panel size positions are mapped onto, when fixed when the input was made (evdev,
    /// replays); nil for inputs that report in the display's current size (a window).
    var panelSize: PixelSize? { get }
}

extension TouchInput {
    public var deviceCount: Int? { nil }
    public var touchDevices: [TouchTestDevice] { [] }
    public var panelSize: PixelSize? { nil }
}

/// No touch input at all: the attract demo plays by itself.
public final class NoTouchInput: TouchInput {
    public init() {}
    public var name: String { "none" }
    public func start(loop: EventLoop, deliver: @escaping (TouchFrame) -> Void, lost: @escaping (Int, TimeStamp) -> Void) {}
    public var nextDeadline: TimeStamp? { nil }
    public func advance(to now: TimeStamp) {}
}

/// Replays an evemu recording in real time, shifted to start when the kiosk starts.
/// Events are read and decoded as they come due, so a long recording takes no more memory
/// than a short one; a malformed line is reported as `FILE:LINE: message` and ends the replay.
public final class ReplayTouchInput: TouchInput {
    public let name: String
    private var reader: EvemuReader
    private var decoder: TouchDecoder
    /// Decoded frames not yet delivered (an event can complete two).
    private var queued: [TouchFrame] = []
    private var queuedIndex = 0
    private var ended = false
    private var offset: Int64 = 0
    private var deliver: (TouchFrame) -> Void = { _ in }

    /// Replays what `reader` reads, for a screen of `size`.
    public let panelSize: PixelSize?

    private let log: Logger

    public init(recording reader: EvemuReader, path: String, screen size: PixelSize, log: Logger) {
        self.log = log
        panelSize = size
        name = "replay:\(path)"
        self.reader = reader
        decoder = TouchDecoder(device: reader.header.device, screen: size)
    }

    public var isFinished: Bool { peek() == nil }

    public var touchDevices: [TouchTestDevice] {
        [TouchTestDevice(index: 0, name: reader.header.device.name, path: name, info: reader.header.device)]
    }

    public func start(loop: EventLoop, deliver: @escaping (TouchFrame) -> Void, lost: @escaping (Int, TimeStamp) -> Void) {
        self.deliver = deliver
        // Recording time zero is "now", plus a short lead so the first frame is not in the past.
        let first = peek()?.time.microseconds ?? 0
        // Recording times are never negative (the parser reads digits only), so -first is safe.
        offset = loop.now.adding(microseconds: 200_000).adding(microseconds: -first).microseconds
    }

    public var nextDeadline: TimeStamp? {
        peek().map { $0.time.adding(microseconds: offset) }
    }

    public func advance(to now: TimeStamp) {
        while let due = nextDeadline, due <= now, var f = peek() {
            f.time = due
            queuedIndex += 1
            deliver(f)
        }
        if let note = decoder.takeNote() { log(.warning, "\(echoed(name, limit: 200)): \(note)") }
    }

    /// The next frame to deliver, decoding events until one is complete; nil at the end.
    private func peek() -> TouchFrame? {
        while queuedIndex >= queued.count {
            guard !ended else { return nil }
            queued.removeAll(keepingCapacity: true)
            queuedIndex = 0
            do {
                guard let event = try reader.next() else {
                    ended = true
                    return nil
                }
                queued = decoder.feed(event)
            } catch {
                ended = true
                // The running kiosk's log: `bubble-kiosk: FILE:LINE: message` at error level.
                log(.error, "\(error)")
                return nil
            }
        }
        return queued[queuedIndex]
    }
}
