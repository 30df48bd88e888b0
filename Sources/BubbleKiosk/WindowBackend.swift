import KioskCore
import KioskPlatform

/// A window display an executable adds to `run` (`--display window[:WxH]`, `--fullscreen`,
/// `--input window`). `bubble-kiosk-desktop` registers its SDL window before `main()`; the kiosk
/// binary registers nothing and links no window system at all.
public struct WindowBackend {
    /// Opens a window of that many pixels, or the whole screen.
    public var makeDisplay: (_ size: PixelSize, _ fullscreen: Bool) throws -> Display
    /// The pointer and touch input of a display `makeDisplay` made.
    public var makeInput: (_ window: Display) -> TouchInput?
    /// Whether a display is one of this backend's windows.
    public var owns: (_ display: Display) -> Bool

    public init(makeDisplay: @escaping (PixelSize, Bool) throws -> Display,
                makeInput: @escaping (Display) -> TouchInput?,
                owns: @escaping (Display) -> Bool) {
        self.makeDisplay = makeDisplay
        self.makeInput = makeInput
        self.owns = owns
    }

    /// Set once, on the main thread, before `BubbleKiosk.main()`; read only after.
    nonisolated(unsafe) public static var registered: WindowBackend?
}
