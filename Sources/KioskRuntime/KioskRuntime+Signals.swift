import Glibc
import KioskCore
import KioskPlatform
import KioskRender

/// Signals from operators and the service manager: stop, reload, screenshot.
extension KioskRuntime {
    /// What each watched signal does: stop, reload, screenshot, or a VT switch.
    public func handle(signal signo: Int32) {
        switch signo {
        case SIGINT, SIGTERM, SIGQUIT:
            log(.notice, "signal \(signo), stopping")
            reporter.service.stopping()
            loop.stop()
        case SIGHUP:
            reload()
        case SIGUSR1:
            writeScreenshot(screenshotPath)
        case stage.console?.switchSignal:
            switchVT(at: loop.now)
        default:
            break
        }
    }

    /// Reads the configuration again; a file with errors keeps every running setting.
    public func reload() {
        // The unit's reload command ran with its TTYReset=, which turned the keyboard back on.
        stage.console?.keepKeyboard()
        // systemd compares the stamp with its own monotonic clock: the real one, not the loop's.
        reporter.service.reloading(monotonicUS: EventLoop.now().microseconds)
        defer { reporter.service.reloaded(status: serviceStatus) }
        let result = options.loadConfig()
        for d in result.diagnostics { log(d.severity == .error ? .error : .warning, "\(d)") }
        if result.hasErrors {
            log(.error, "reload refused: the configuration has errors; keeping the running settings")
            return
        }
        let changes = ReloadPolicy.changes(from: settings, to: result.settings)
        settings = ReloadPolicy.merged(settings, result.settings, upTo: .nextRound)
        session.reload(settings)
        touches.transform = Self.touchTransform(display, settings, input)
        operatorConsole.configure(settings, pxPerMM: session.game.field.pxPerMM)
        touchTest.configure(settings.gestures, transform: touches.transform)
        applyLook()
        log(.notice, ReloadPolicy.summary(changes, files: result.files.count))
        layers.reload(settings)
    }

    /// Where SIGUSR1 writes its screenshot.
    public var screenshotPath: String {
        if let path = settings.operator.screenshotPath { return path }
        guard let dir = options.stateDirectory, !dir.isEmpty else { return "screenshot.png" }
        return joinPath(dir, "screenshot.png")
    }

    /// Writes what the screen shows as PNG through `OutputFile` (atomic; a FIFO, a device or a
    /// directory at `path` is refused and left alone); a failure is one line, the kiosk goes on.
    public func writeScreenshot(_ path: String) {
        do {
            try OutputFile.write(path, PNGWriter.pngBytes(display.snapshot()))
            if path == screenshotPath { log(.info, "screenshot written to \(echoed(path, limit: 200))") }
        } catch {
            log(.error, "screenshot \(echoed(path, limit: 200)): \(OutputFile.reason(error))")
        }
    }
}
