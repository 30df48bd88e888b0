import KioskCore

/// Where frames go: the virtual framebuffer, DRM/KMS, or fbdev.
///
/// The renderer draws into a `PixelBuffer` in ordinary memory; a display only copies the damaged
/// rectangles out and never reads display memory back (except for an occasional snapshot).
///
/// A display that loses the screen to another program (DRM master taken away) throws
/// `DisplayError.lost` from `present` or `resume`, and `canPresent` stays false until a later
/// `resume()` succeeds: stop presenting and retry `resume()` with backoff, then repaint in full.
/// Paints damaged rectangles of the game's picture, scaled by `MirrorFit`, into a mirrored
/// screen's XRGB8888 buffer (its pixels and row stride). The renderer's scaler is handed in: the
/// platform draws nothing itself.
public typealias MirrorPainter = (_ picture: PixelBuffer, _ rects: [PixelRect], _ fit: MirrorFit,
                                  _ into: UnsafeMutableRawPointer, _ stride: Int) -> Void

/// Makes a black pixel buffer of a size (the renderer's `PixelMemory.blackBuffer` takes pages of
/// their own from the system; plain memory does as well).
public typealias PixelAllocator = (PixelSize) -> PixelBuffer

public protocol Display: AnyObject {
    /// Short name for status lines and logs (`virtual`, `drm:/dev/dri/card0 HDMI-A-1`).
    var name: String { get }
    /// The size the game lays out for (after rotation).
    var size: PixelSize { get }
    /// Degrees clockwise the picture is turned on the panel (0, 90, 180, 270).
    var rotation: Int { get }
    /// Physical pixel density when the display reports a believable one.
    var reportedPxPerMM: Double? { get }
    /// False while a frame is still on its way to the screen (a page flip pending): draw later.
    var canPresent: Bool { get }
    /// Has `loop` watch the display's descriptors (page-flip events, screens plugged) and call
    /// `handleEvents` and `handleHotplug`; the caller keeps the registrations while it runs.
    func watch(on loop: EventLoop) -> [LoopRegistration]
    /// Called with the monotonic time at which a presented frame became visible (the page-flip
    /// event's timestamp on DRM; at once on displays without flips). Input latency counts to it.
    var onVisible: ((TimeStamp) -> Void)? { get set }
    /// Copies `damage` of `picture` (the game's size, unturned) to the screen.
    func present(_ picture: PixelBuffer, damage: [PixelRect]) throws
    /// Handles the display's events (page flips) waiting now.
    func handleEvents()
    /// What the screen shows, in the panel's orientation (what a camera would see on the glass);
    /// black before the first frame.
    func snapshot() -> PixelBuffer
    /// Puts the screen back as it was before the kiosk started.
    func restore()
    /// Stops using the screen now, for a VT switch away: `canPresent` is false until `resume`.
    func suspend()
    /// Takes the screen back; the next `present` shows the whole frame (another program may have
    /// changed the mode and what is on screen). Throws `DisplayError.lost` when refused.
    func resume() throws
    /// False after `setPower(on: false)` switched the screen off, until it is switched on.
    var isPoweredOn: Bool { get }
    /// Switches the screen off (DPMS off: no signal, the panel's backlight off) or on again, for
    /// the display's sleep; nothing is presented while it is off. Throws when the device refuses.
    func setPower(on: Bool) throws
    /// Called after `size` changed (a desktop window resized, another monitor became main); the
    /// next `present` brings a picture of the new size. Displays of one size never call it.
    var onResize: (() -> Void)? { get set }
    /// Screens showing the game now; 0 while the display waits for one to be connected.
    var screenCount: Int { get }
    /// Called after screens came or went (after `onResize` when the size changed too): repaint
    /// everything, and look at `screenCount` again.
    var onScreensChanged: (() -> Void)? { get set }
    /// Screens plugged and unplugged arrive as events (`handleHotplug`); without them the
    /// runtime looks for screens now and then.
    var seesHotplug: Bool { get }
    /// Handles the screen events waiting now.
    func handleHotplug()
    /// Looks for screens again now (while waiting for one, in case an event was missed).
    func probeScreens()
    /// The main screen's DRM card and connector (nil for displays without one, or no screen).
    var mainConnector: DRMConnectorRef? { get }
    /// The monitor on the main screen, from its EDID (nil without one).
    var mainMonitor: EDID? { get }
}

extension Display {
    /// Displays that never rotate.
    public var rotation: Int { 0 }

    /// Displays nobody else can take (memory, fbdev without a master) keep drawing.
    public func suspend() {}
    public func resume() throws {}

    /// Displays without power control stay on.
    public var isPoweredOn: Bool { true }
    public func setPower(on: Bool) throws {}

    /// Displays with a screen of their own always have it.
    public var screenCount: Int { 1 }
    public var onScreensChanged: (() -> Void)? {
        get { nil }
        set {}
    }
    public var seesHotplug: Bool { false }
    public func handleHotplug() {}

    /// Displays without events of their own need no watching.
    public func watch(on loop: EventLoop) -> [LoopRegistration] { [] }
    public func probeScreens() {}

    /// Displays without DRM connectors.
    public var mainConnector: DRMConnectorRef? { nil }
    public var mainMonitor: EDID? { nil }

    /// Displays of one size take no resize observer.
    public var onResize: (() -> Void)? {
        get { nil }
        set {}
    }

    /// The panel's size in its own orientation: what touch devices span.
    public var nativeSize: PixelSize {
        ScreenRotation(degreesOrNone: rotation).logicalSize(panel: size)
    }
}

/// The screen was taken away from a display that was working (DRM master lost or refused).
public enum DisplayError: Error, CustomStringConvertible {
    /// What was refused, and on which display.
    case lost(String)

    public var description: String {
        switch self {
        case .lost(let what): return "display lost: \(what)"
        }
    }
}

/// A screen in memory, for development and tests on machines without a display.
///
/// It keeps its own copy of what is "on screen" and takes only damaged rectangles, exactly like
/// a real scanout buffer, so a screenshot also proves the damage tracking right.
public final class VirtualDisplay: Display {
    public private(set) var size: PixelSize
    public let reportedPxPerMM: Double? = nil
    public var name: String { "virtual:\(size)" }
    public var canPresent: Bool { true }
    /// The "scanout buffer".
    public private(set) var screen: PixelBuffer
    /// Frames presented and bytes copied, for the status line and the benchmark.
    public private(set) var presented = 0
    public private(set) var bytesCopied = 0
    public var onVisible: ((TimeStamp) -> Void)?
    public var onResize: (() -> Void)?
    /// The recorded power state, and frames presented while it was off (tests expect none).
    public private(set) var isPoweredOn = true
    public private(set) var presentedWhileOff = 0
    /// Screens connected: 0 plays an unplugged monitor (`setScreens`).
    public private(set) var screenCount = 1
    public var onScreensChanged: (() -> Void)?
    /// False plays a display whose page flips never complete: frames are taken but never shown.
    public var completesFrames = true
    private let clock: KioskClock
    private let allocate: PixelAllocator

    /// - Parameters:
    ///   - clock: stamps the moment a frame "becomes visible" (virtual time in tests).
    ///   - allocate: where the "scanout buffer" comes from.
    public init(size: PixelSize, clock: KioskClock = MonotonicClock.shared,
                allocate: @escaping PixelAllocator = { PixelBuffer(size: $0) }) {
        self.size = size
        self.clock = clock
        self.allocate = allocate
        screen = allocate(size)
    }

    /// A screen of another size, black until the next frame (tests of a resized window).
    public func resize(to new: PixelSize) {
        guard new != size else { return }
        size = new
        screen = allocate(new)
        onResize?()
    }

    /// Screens plugged or unplugged (tests of a monitor that comes and goes).
    public func setScreens(_ count: Int) {
        screenCount = max(count, 0)
        onScreensChanged?()
    }

    public func present(_ picture: PixelBuffer, damage: [PixelRect]) throws {
        // A frame drawn for the old size, before the runtime laid out again, has no place here.
        guard picture.size == size, screenCount > 0 else { return }
        for rect in damage {
            picture.copy(rect, to: screen.pixels, destinationStride: screen.stride)
            bytesCopied += rect.area * 4
        }
        presented += 1
        if !isPoweredOn { presentedWhileOff += 1 }
        if completesFrames { onVisible?(clock.now) }
    }

    public func setPower(on: Bool) throws { isPoweredOn = on }

    public func handleEvents() {}

    public func snapshot() -> PixelBuffer {
        let shot = PixelBuffer(size: size)
        shot.copyRows(from: screen.pixels, sourceStride: screen.stride)
        return shot
    }

    public func restore() {}
}
