import KioskCommands
import KioskDesktop

// bubble-kiosk-desktop: the kiosk's commands plus a desktop window through SDL2
// (`run --display window`, the default here), for developers and designers.
WindowBackend.registered = WindowBackend(
    makeDisplay: { size, fullscreen in try SDLWindowDisplay(size: size, fullscreen: fullscreen, log: .standardError) },
    makeInput: { display in (display as? SDLWindowDisplay).map { SDLTouchInput(window: $0) } },
    owns: { $0 is SDLWindowDisplay }
)
BubbleKiosk.main()
