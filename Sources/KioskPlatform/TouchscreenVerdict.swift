internal import CEvdev
import Glibc
import KioskCore

/// Whether a device is taken as a touchscreen, and if not, why not (for `bubble-kiosk devices`).
public enum TouchscreenVerdict: Equatable, Sendable {
    case touchscreen(TouchProtocol)
    case ignored(String)
}

extension TouchDeviceInfo {
    /// Touchscreen or not, in the manner of udev's input_id: a direct device with touch axes is
    /// one; a touchpad (`INPUT_PROP_POINTER`, or a finger tool without `INPUT_PROP_DIRECT`)
    /// or a graphics tablet moves a cursor and is not; an absolute pointer with a touch or left
    /// button (single-touch panels, QEMU's tablet) is.
    public var touchscreenVerdict: TouchscreenVerdict {
        if properties.contains(Int(INPUT_PROP_ACCELEROMETER)) { return .ignored("accelerometer") }
        if let problem = axisProblem { return .ignored(problem) }
        let hasAxes = isMultiTouch || (axes[EventCode.ABS_X] != nil && axes[EventCode.ABS_Y] != nil)
        guard hasAxes else {
            return .ignored(axes.isEmpty ? "no absolute axes (keyboard, mouse or buttons)" : "no absolute X/Y axes")
        }
        if isDirect {
            // The same rule the decoder goes by (`touchProtocol`): without a button it would
            // never see a finger go down.
            guard let kind = touchProtocol else { return .ignored(Self.noTouchButton) }
            return .touchscreen(kind)
        }
        if properties.contains(Int(INPUT_PROP_POINTER)) { return .ignored("touchpad (INPUT_PROP_POINTER)") }
        if keys.contains(EventCode.BTN_TOOL_FINGER) {
            return .ignored("touchpad (BTN_TOOL_FINGER without INPUT_PROP_DIRECT)")
        }
        if keys.contains(UInt16(BTN_TOOL_PEN)) || keys.contains(UInt16(BTN_STYLUS)) {
            return .ignored("graphics tablet (pen without INPUT_PROP_DIRECT)")
        }
        // Without INPUT_PROP_DIRECT a button is what tells a touch panel from a joystick.
        let button = keys.contains(EventCode.BTN_TOUCH) || keys.contains(EventCode.BTN_LEFT)
        if button, let kind = touchProtocol { return .touchscreen(kind) }
        return .ignored("absolute axes without BTN_TOUCH, BTN_LEFT or INPUT_PROP_DIRECT (joystick?)")
    }

    /// Why a direct device with X/Y axes but no button is not used.
    static let noTouchButton = "direct, but ABS_X/ABS_Y without BTN_TOUCH or BTN_LEFT: nothing tells when a finger is down"

    /// Whether `--input evdev` uses this device.
    public var isTouchscreen: Bool {
        if case .touchscreen = touchscreenVerdict { return true }
        return false
    }
}
