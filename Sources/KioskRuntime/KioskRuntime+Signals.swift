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
            service.stopping()
            loop.stop()
        case SIGHUP:
            reload()
        case SIGUSR1:
            writeScreenshot(screenshotPath)
        case console?.switchSignal:
            switchVT(at: loop.now)
        default:
            break
        }
    }

    /// Reads the configuration again; a file with errors keeps every running setting.
    public func reload() {
        // systemd compares the stamp with its own monotonic clock: the real one, not the loop's.
        service.reloading(monotonicUS: EventLoop.now().microseconds)
        defer { service.reloaded(status: serviceStatus) }
        let result = loadConfig()
        for d in result.diagnostics { log(d.severity == .error ? .error : .warning, "\(d)") }
        if result.hasErrors {
            log(.error, "reload refused: the configuration has errors; keeping the running settings")
            return
        }
        let changes = ReloadPolicy.changes(from: settings, to: result.settings)
        settings = ReloadPolicy.merged(settings, result.settings, upTo: .nextRound)
        session.reload(settings)
        touchTransform = Self.touchTransform(display, settings)
        log(.notice, ReloadPolicy.summary(changes, files: result.files.count))
        reloadLayers(settings)
    }

    /// Where SIGUSR1 writes its screenshot.
    public var screenshotPath: String {
        if let path = settings.operator.screenshotPath { return path }
        guard let dir = options.stateDirectory, !dir.isEmpty else { return "screenshot.png" }
        return dir.hasSuffix("/") ? dir + "screenshot.png" : dir + "/screenshot.png"
    }

    /// Writes what the screen shows as PNG, atomically (a reader never sees half a file).
    public func writeScreenshot(_ path: String) {
        let tmp = path + ".tmp.\(getpid())"
        do {
            try PNGWriter.writePNG(display.snapshot(), to: tmp)
            try retryingInterrupts("rename", path) { rename(tmp, path) }
            if !path.isEmpty && path == screenshotPath { log(.info, "screenshot written to \(path)") }
        } catch {
            unlink(tmp)
            log(.error, "screenshot \(path): \(error)")
        }
    }
}
