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
}

extension TouchInput {
    public var deviceCount: Int? { nil }
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
public final class ReplayTouchInput: TouchInput {
    public let name: String
    private var frames: [TouchFrame]
    private var next = 0
    private var offset: Int64 = 0
    private var deliver: (TouchFrame) -> Void = { _ in }

    /// Decodes the whole recording up front, for a screen of `size`.
    public init(recording: EvemuRecording, path: String, screen size: PixelSize) {
        name = "replay:\(path)"
        var decoder = TouchDecoder(device: recording.device, screen: size)
        frames = recording.events.flatMap { decoder.feed($0) }
    }

    public var isFinished: Bool { next >= frames.count }

    public func start(loop: EventLoop, deliver: @escaping (TouchFrame) -> Void, lost: @escaping (Int, TimeStamp) -> Void) {
        self.deliver = deliver
        // Recording time zero is "now", plus a short lead so the first frame is not in the past.
        let first = frames.first?.time.microseconds ?? 0
        offset = EventLoop.now().microseconds + 200_000 - first
    }

    public var nextDeadline: TimeStamp? {
        next < frames.count ? TimeStamp(microseconds: frames[next].time.microseconds + offset) : nil
    }

    public func advance(to now: TimeStamp) {
        while let due = nextDeadline, due <= now {
            var f = frames[next]
            f.time = due
            next += 1
            deliver(f)
        }
    }
}
