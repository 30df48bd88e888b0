internal import CSDL2
import KioskCore
import KioskPlatform

/// Touch from the desktop window: the left mouse button is one finger (device 0, slot 0); a
/// click with Shift held puts down a second finger that stays where it was clicked (slot 1)
/// until the next Shift-click lifts it, so two-finger play works with a mouse; real touch
/// events (a laptop's touchscreen) are real fingers, each in its own slot on device 1.
public final class SDLTouchInput: TouchInput {
    public var name: String { "window" }
    public var nextDeadline: TimeStamp? { nil }
    public func advance(to now: TimeStamp) {}

    private let window: SDLWindowDisplay
    private var clock: KioskClock = MonotonicClock.shared
    private var deliver: (TouchFrame) -> Void = { _ in }
    private var nextTrackingID = 1
    private var mouse: TouchPoint?
    private var fixed: TouchPoint?
    /// Real fingers by SDL's finger id.
    private var fingers: [SDL_FingerID: TouchPoint] = [:]

    public init(window: SDLWindowDisplay) { self.window = window }

    /// For the touch-test screen: the mouse (two slots: the button, the parked Shift-click
    /// finger) and the window's touch, in frame pixels.
    public var touchDevices: [TouchTestDevice] {
        let s = window.size
        let axes: [UInt16: AxisInfo] = [EventCode.ABS_MT_SLOT: AxisInfo(minimum: 0, maximum: 1),
                                        EventCode.ABS_MT_POSITION_X: AxisInfo(minimum: 0, maximum: Int32(s.width - 1)),
                                        EventCode.ABS_MT_POSITION_Y: AxisInfo(minimum: 0, maximum: Int32(s.height - 1))]
        let touch = axes.merging([EventCode.ABS_MT_SLOT: AxisInfo(minimum: 0, maximum: 9)]) { $1 }
        return [TouchTestDevice(index: 0, name: "mouse (Shift-click parks a 2nd finger)", path: "window",
                                info: TouchDeviceInfo(name: "mouse", axes: axes)),
                TouchTestDevice(index: 1, name: "window touch", path: "window",
                                info: TouchDeviceInfo(name: "touch", axes: touch))]
    }

    public func start(loop: EventLoop, deliver: @escaping (TouchFrame) -> Void, lost: @escaping (Int, TimeStamp) -> Void) {
        clock = loop.clock
        self.deliver = deliver
        window.pointerSink = { [unowned self] event in handle(&event) }
    }

    private func newID() -> Int {
        defer { nextTrackingID += 1 }
        return nextTrackingID
    }

    private func handle(_ e: inout SDL_Event) {
        let mouseFromTouch = UInt32.max  // SDL_TOUCH_MOUSEID: mouse events SDL made from fingers
        switch e.type {
        case SDL_MOUSEBUTTONDOWN.rawValue where e.button.which != mouseFromTouch && e.button.button == UInt8(SDL_BUTTON_LEFT):
            let at = point(e.button.x, e.button.y)
            if SDL_GetModState().rawValue & KMOD_SHIFT.rawValue != 0 {
                fixed = fixed == nil ? TouchPoint(slot: 1, trackingID: newID(), position: at) : nil
            } else {
                mouse = TouchPoint(slot: 0, trackingID: newID(), position: at)
            }
            sendMouse()
        case SDL_MOUSEBUTTONUP.rawValue where e.button.which != mouseFromTouch && e.button.button == UInt8(SDL_BUTTON_LEFT):
            guard mouse != nil else { return }
            mouse = nil
            sendMouse()
        case SDL_MOUSEMOTION.rawValue where e.motion.which != mouseFromTouch:
            guard mouse != nil else { return }
            mouse?.position = point(e.motion.x, e.motion.y)
            sendMouse()
        case SDL_FINGERDOWN.rawValue, SDL_FINGERMOTION.rawValue:
            let at = Vector2(Double(e.tfinger.x) * Double(window.size.width), Double(e.tfinger.y) * Double(window.size.height))
            if fingers[e.tfinger.fingerId] == nil {
                let used = Set(fingers.values.map(\.slot))
                let slot = (0...).first { !used.contains($0) }!
                fingers[e.tfinger.fingerId] = TouchPoint(slot: slot, trackingID: newID(), position: at)
            } else {
                fingers[e.tfinger.fingerId]?.position = at
            }
            sendFingers()
        case SDL_FINGERUP.rawValue:
            guard fingers.removeValue(forKey: e.tfinger.fingerId) != nil else { return }
            sendFingers()
        default:
            break
        }
    }

    /// Window points to frame pixels, inside the frame.
    private func point(_ x: Int32, _ y: Int32) -> Vector2 {
        let s = window.size
        return Vector2(min(max(Double(x) * window.pointScale.x, 0), Double(s.width - 1)),
                       min(max(Double(y) * window.pointScale.y, 0), Double(s.height - 1)))
    }

    private func sendMouse() {
        deliver(TouchFrame(time: clock.now, device: 0, contacts: [mouse, fixed].compactMap { $0 }))
    }

    private func sendFingers() {
        deliver(TouchFrame(time: clock.now, device: 1, contacts: fingers.values.sorted { $0.slot < $1.slot }))
    }
}
