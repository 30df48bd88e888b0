internal import CSDL2
import Glibc
import KioskCore
import KioskPlatform

/// The window could not be opened (no X11 or Wayland desktop, SDL refused).
public struct WindowError: Error, CustomStringConvertible {
    public let description: String
    init(_ what: String) { description = "\(what): \(String(cString: SDL_GetError()))" }
    init(noDesktop what: String) { description = what }
    init(_ error: SystemError) { description = "\(error)" }
}

/// A desktop window through SDL2 (X11 or Wayland): the same in-memory frame the kiosk draws,
/// uploaded to a streaming texture one damaged rectangle at a time and presented with vsync.
///
/// SDL has no descriptor of its own. On X11 the loop watches the X connection's descriptor, so
/// an idle window costs no wake-ups; on other drivers (Wayland) a timerfd wakes it every 8 ms.
/// Both sit in one epoll set (`eventFD`) with an eventfd that `present` signals when SDL took
/// events off the connection while presenting (they would otherwise wait for the next one).
///
/// Resizing the window makes a frame and a texture of the new size and tells the runtime
/// (`onResize`), which lays the game out again; closing it sends the process SIGTERM, so the
/// kiosk stops as cleanly as under `kill`.
public final class SDLWindowDisplay: Display {
    public private(set) var size: PixelSize
    public private(set) var reportedPxPerMM: Double?
    public private(set) var name: String
    public var canPresent: Bool { true }
    public func watch(on loop: EventLoop) -> [LoopRegistration] {
        guard let wakeups else { return [] }
        return [loop.register(wakeups.epoll, name: name) { [unowned self] in handleEvents() }]
    }
    public var onVisible: ((TimeStamp) -> Void)?
    public var onResize: (() -> Void)?
    /// A window has no power to switch: the display's sleep is only recorded.
    public private(set) var isPoweredOn = true
    public func setPower(on: Bool) throws { isPoweredOn = on }
    /// Window (screen) points to frame pixels: above 1 on HiDPI screens.
    public private(set) var pointScale: SIMD2<Double> = [1, 1]
    /// Pointer and touch events go here (the window's `SDLTouchInput`).
    var pointerSink: ((inout SDL_Event) -> Void)?
    /// How the loop learns of SDL events: "x11-fd" or "timer-8ms".
    public private(set) var wakeSource = "x11-fd"

    /// Small enough for any desktop, large enough that the Start button and a few bubbles fit.
    public static let minimumSize = PixelSize(width: 320, height: 240)

    private let window: OpaquePointer
    private let renderer: OpaquePointer
    private var texture: OpaquePointer
    private var screen: PixelBuffer
    private let clock: KioskClock
    private let fullscreen: Bool
    private let driver: String
    /// The loop's descriptors, owned by the window until `restore`.
    private var wakeups: Wakeups?
    private var closing = false
    private var restored = false
    private let log: Logger

    /// Opens a window of `requested` frame pixels (or the whole screen with `fullscreen`).
    public init(size requested: PixelSize, fullscreen: Bool, clock: KioskClock = MonotonicClock.shared, log: Logger) throws {
        self.clock = clock
        self.log = log
        self.fullscreen = fullscreen
        SDL_SetHint(SDL_HINT_NO_SIGNAL_HANDLERS, "1")  // the kiosk's signalfd owns SIGINT/SIGTERM
        SDL_SetHint(SDL_HINT_TOUCH_MOUSE_EVENTS, "0")  // real fingers come as fingers only
        SDL_SetHint(SDL_HINT_MOUSE_TOUCH_EVENTS, "0")
        SDL_SetHint(SDL_HINT_VIDEO_X11_NET_WM_BYPASS_COMPOSITOR, "0")
        guard SDL_Init(SDL_INIT_VIDEO) == 0 else { throw WindowError("cannot start SDL video") }
        // Without a desktop SDL falls back to drawing nowhere; unless asked for, say so instead.
        driver = SDL_GetCurrentVideoDriver().map { String(cString: $0) } ?? "?"
        if (driver == "offscreen" || driver == "dummy") && getenv("SDL_VIDEODRIVER") == nil {
            SDL_Quit()
            throw WindowError(noDesktop: "no desktop to open a window on (DISPLAY and WAYLAND_DISPLAY are unset or unusable); --display virtual draws into memory")
        }
        var flags = SDL_WINDOW_ALLOW_HIGHDPI.rawValue
        flags |= fullscreen ? SDL_WINDOW_FULLSCREEN_DESKTOP.rawValue : SDL_WINDOW_RESIZABLE.rawValue
        let centred: Int32 = 0x2FFF_0000  // SDL_WINDOWPOS_CENTERED
        guard let window = SDL_CreateWindow("bubble-kiosk", centred, centred,
                                            Int32(requested.width), Int32(requested.height), flags) else {
            SDL_Quit()
            throw WindowError("cannot open a window")
        }
        self.window = window
        SDL_SetWindowMinimumSize(window, Int32(Self.minimumSize.width), Int32(Self.minimumSize.height))
        guard let renderer = SDL_CreateRenderer(window, -1, SDL_RENDERER_PRESENTVSYNC.rawValue)
                ?? SDL_CreateRenderer(window, -1, 0) else {
            SDL_DestroyWindow(window); SDL_Quit()
            throw WindowError("cannot draw in the window")
        }
        self.renderer = renderer
        let geometry = Self.geometry(window, renderer)
        guard let texture = Self.texture(renderer, geometry.size) else {
            SDL_DestroyRenderer(renderer); SDL_DestroyWindow(window); SDL_Quit()
            throw WindowError("cannot make the window's texture")
        }
        self.texture = texture
        (size, pointScale, reportedPxPerMM) = geometry
        screen = PixelBuffer(size: size)
        name = Self.name(size, fullscreen: fullscreen, driver: driver)
        let x11 = CSDL2_x11_connection_fd(window)
        do {
            wakeups = try Wakeups(x11: x11)
        } catch let error as SystemError {
            SDL_DestroyTexture(texture); SDL_DestroyRenderer(renderer); SDL_DestroyWindow(window); SDL_Quit()
            throw WindowError(error)
        }
        if x11 < 0 { wakeSource = "timer-8ms" }
        SDL_SetRenderDrawColor(renderer, 0, 0, 0, 255)
        SDL_RenderClear(renderer)
        SDL_RenderPresent(renderer)
        signalWake()  // the first pump: window-shown events
    }

    /// The epoll set the loop polls, with the eventfd `present` signals and, without an X11
    /// connection to watch, the 8 ms timerfd; closed together when the window goes.
    private final class Wakeups {
        let epoll: FileDescriptor
        let wake: FileDescriptor
        // A var: reading through an Optional of a move-only `let` would consume it.
        private(set) var timer: FileDescriptor?
        var timerFD: Int32? { timer?.rawValue }

        init(x11: Int32) throws {
            let epoll = try Self.make("epoll_create1") { CSDL2_epoll_create() }
            let wake = try Self.make("eventfd") { CSDL2_eventfd_create() }
            try retryingInterrupts("epoll_ctl", "window wake-ups") { CSDL2_epoll_add(epoll.rawValue, wake.rawValue) }
            if x11 >= 0 {
                try retryingInterrupts("epoll_ctl", "window X11 connection") { CSDL2_epoll_add(epoll.rawValue, x11) }
                timer = nil
            } else {
                let timer = try Self.make("timerfd_create") { CSDL2_timerfd_create() }
                try retryingInterrupts("timerfd_settime", "window 8 ms timer") { CSDL2_timerfd_every(timer.rawValue, 8) }
                try retryingInterrupts("epoll_ctl", "window timer") { CSDL2_epoll_add(epoll.rawValue, timer.rawValue) }
                self.timer = consume timer
            }
            self.epoll = epoll
            self.wake = wake
        }

        private static func make(_ call: String, _ body: () -> Int32) throws -> FileDescriptor {
            FileDescriptor(adopting: try retryingInterrupts(call, "window wake-ups", body))
        }
    }

    /// Wakes the loop for events SDL already took off the connection. EAGAIN (the counter
    /// is full) means it is awake anyway.
    private func signalWake() {
        guard let wake = wakeups?.wake.rawValue else { return }
        if uninterrupted({ CSDL2_eventfd_signal(wake) }) != 0 && errno != EAGAIN {
            log(.error, "\(SystemError("write", "window wake-up eventfd"))")
        }
    }

    /// Reads a counter so the epoll set stops being readable; EAGAIN: it was not set.
    private func drain(_ fd: Int32?, _ what: String) {
        guard let fd else { return }
        if uninterrupted({ CSDL2_counter_drain(fd) }) != 0 && errno != EAGAIN {
            log(.error, "\(SystemError("read", "window \(what)"))")
        }
    }

    /// The frame is as many pixels as the window really has (twice its points at 2x HiDPI), and
    /// the density is the monitor's DPI (physical pixels per inch) scaled like the frame.
    private static func geometry(_ window: OpaquePointer, _ renderer: OpaquePointer)
        -> (size: PixelSize, pointScale: SIMD2<Double>, pxPerMM: Double?) {
        var w: Int32 = 0, h: Int32 = 0, pw: Int32 = 0, ph: Int32 = 0
        SDL_GetWindowSize(window, &w, &h)
        SDL_GetRendererOutputSize(renderer, &pw, &ph)
        if pw <= 0 || ph <= 0 { pw = w; ph = h }
        let scale: SIMD2<Double> = w > 0 && h > 0 ? [Double(pw) / Double(w), Double(ph) / Double(h)] : [1, 1]
        var ddpi: Float = 0
        let dpi = SDL_GetDisplayDPI(SDL_GetWindowDisplayIndex(window), &ddpi, nil, nil) == 0 && ddpi > 0
        return (PixelSize(width: Int(max(pw, 1)), height: Int(max(ph, 1))), scale,
                dpi ? Double(ddpi) / 25.4 * scale.x : nil)
    }

    private static func texture(_ renderer: OpaquePointer, _ size: PixelSize) -> OpaquePointer? {
        SDL_CreateTexture(renderer, SDL_PIXELFORMAT_RGB888.rawValue, Int32(SDL_TEXTUREACCESS_STREAMING.rawValue),
                          Int32(size.width), Int32(size.height))
    }

    /// `window:1280x800:x11`, `window:1920x1080:fullscreen:wayland`: no spaces, like every
    /// display's name, so status lines stay key=value pairs.
    private static func name(_ size: PixelSize, fullscreen: Bool, driver: String) -> String {
        "window:\(size)\(fullscreen ? ":fullscreen" : ""):\(driver)"
    }

    /// The window has another size or sits on a monitor of another density: a frame and
    /// texture to match, then the runtime lays out. (If SDL cannot make the texture, the old
    /// size stays, scaled to the window.)
    private func resized() {
        let geometry = Self.geometry(window, renderer)
        pointScale = geometry.pointScale
        guard geometry.size != size || geometry.pxPerMM != reportedPxPerMM else { return }
        if geometry.size != size {
            guard let fresh = Self.texture(renderer, geometry.size) else { return }
            SDL_DestroyTexture(texture)
            texture = fresh
            size = geometry.size
            screen = PixelBuffer(size: size)
        }
        reportedPxPerMM = geometry.pxPerMM
        name = Self.name(size, fullscreen: fullscreen, driver: driver)
        onResize?()
    }

    public func present(_ picture: PixelBuffer, damage: [PixelRect]) throws {
        // A frame drawn for the old size, before the runtime laid out again, has no place here.
        guard picture.size == size else { return }
        for rect in damage {
            picture.copy(rect, to: screen.pixels, destinationStride: screen.stride)
            var r = SDL_Rect(x: Int32(rect.x), y: Int32(rect.y), w: Int32(rect.width), h: Int32(rect.height))
            let start = picture.pixels + rect.y * picture.stride + rect.x * 4
            SDL_UpdateTexture(texture, &r, start, Int32(picture.stride))
        }
        show()
        onVisible?(clock.now)
    }

    private func show() {
        SDL_RenderCopy(renderer, texture, nil, nil)
        SDL_RenderPresent(renderer)
        // Presenting may read the X connection (a sync): events it queued would not make the
        // descriptor readable again, so look now and wake the loop for them.
        SDL_PumpEvents()
        if SDL_HasEvents(SDL_FIRSTEVENT.rawValue, SDL_LASTEVENT.rawValue) == SDL_TRUE { signalWake() }
    }

    /// The loop saw the epoll set readable: take every SDL event and hand it on.
    public func handleEvents() {
        drain(wakeups?.wake.rawValue, "wake-up eventfd")
        drain(wakeups?.timerFD, "timer")
        var event = SDL_Event()
        while SDL_PollEvent(&event) != 0 {
            switch event.type {
            case SDL_QUIT.rawValue:
                close()
            case SDL_WINDOWEVENT.rawValue:
                switch UInt32(event.window.event) {
                case SDL_WINDOWEVENT_CLOSE.rawValue: close()
                case SDL_WINDOWEVENT_EXPOSED.rawValue, SDL_WINDOWEVENT_SHOWN.rawValue: show()
                // Moved to another monitor: its density may differ, and HiDPI scaling with it.
                case SDL_WINDOWEVENT_SIZE_CHANGED.rawValue, SDL_WINDOWEVENT_DISPLAY_CHANGED.rawValue: resized()
                default: break
                }
            case SDL_MOUSEBUTTONDOWN.rawValue, SDL_MOUSEBUTTONUP.rawValue, SDL_MOUSEMOTION.rawValue,
                 SDL_FINGERDOWN.rawValue, SDL_FINGERUP.rawValue, SDL_FINGERMOTION.rawValue:
                pointerSink?(&event)
            default:
                break
            }
        }
    }

    /// Closing the window ends the program the way SIGTERM does (the loop's signalfd takes it).
    private func close() {
        guard !closing else { return }
        closing = true
        kill(getpid(), SIGTERM)
    }

    public func snapshot() -> PixelBuffer {
        let shot = PixelBuffer(size: size)
        shot.copyRows(from: screen.pixels, sourceStride: screen.stride)
        return shot
    }

    public func restore() {
        guard !restored else { return }
        restored = true
        pointerSink = nil
        wakeups = nil  // closes them, before SDL lets go of the X11 connection
        SDL_DestroyTexture(texture)
        SDL_DestroyRenderer(renderer)
        SDL_DestroyWindow(window)
        SDL_Quit()
    }
}
