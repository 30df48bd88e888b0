import Glibc
import KioskCore
import KioskLayers
import KioskPlatform
import KioskRender
import KioskRuntime
import KioskScores

/// `bubble-kiosk run`: the kiosk itself.
struct RunCommand: KioskCommand {
    static let name = "run"
    static let usage = """
        usage: bubble-kiosk run [--display drm[:CARD]|fbdev[:/dev/fbN]|virtual[:WxH]] [--drm-device CARD]
                                [--connector NAME] [--mode WxH[@Hz]] [--input evdev[:PATH]|none|replay:FILE]
                                [--grab] [--config F] [--screenshot PATH]
                                [--screenshot-every SECONDS PATH] [--status] [--attract]
                                [--duration SECONDS] [--seed N] [--stats] [--state-dir DIR] [--touch-test]
                                [--display window[:WxH] [--fullscreen]]  (bubble-kiosk-desktop)
        Runs the kiosk. --display drm (the default) shows it full screen through KMS on the first
        /dev/dri/card* with a connected screen (or CARD, or the card with --connector NAME such as
        HDMI-A-1, which overrides [display] outputs) in its preferred mode (or --mode); with no
        screen connected it waits for one, and follows screens plugged and unplugged. [display]
        outputs = all mirrors the game on every screen. fbdev writes to /dev/fb0 (or the one named)
        on boards without KMS. [display] rotation turns the picture for portrait mounting.
        --display virtual draws into memory (default 1280x800); --screenshot writes
        the screen as PNG on exit, --screenshot-every while running; --status prints one line a
        second; --attract starts the demo round at once; --duration stops after that many seconds
        (0.1 to 10^8, a plain decimal; default: run until SIGINT or SIGTERM). --input replay:FILE
        plays an evemu recording in real time as if it came from a touchscreen; --input evdev uses
        every touchscreen, including ones plugged in later, and evdev:PATH that one device. The default is evdev, or none with a
        virtual display. --grab (or [input] grab = true) keeps the touch devices from other
        programs. --stats prints frames, wake-ups and input-to-screen latency (input event time to
        the frame showing it) at exit. --state-dir is where SIGUSR1 screenshots go unless
        [operator] screenshot_path says otherwise ($STATE_DIRECTORY under systemd), and where
        scores.db keeps high scores and play statistics (default /var/lib/bubble-kiosk).
        --touch-test opens the touch-test screen at start (every contact with its device, slot, id,
        positions and pressure, trails, gestures, devices, a grid); it closes after [operator]
        touch_test_timeout_s without a touch, or by the operator gesture. Under a service manager
        a new binary installed over its own is started at the next quiet start screen, demo or
        sleeping display (exit status 11; at the latest after [kiosk] update_restart_max_min).
        bubble-kiosk-desktop adds --display window (its default): a desktop window (default
        1280x800, or --fullscreen) played with the mouse (Shift-click parks a second finger) or touch.
        SIGINT, SIGTERM and SIGQUIT stop it, SIGHUP reloads the configuration, SIGUSR1 writes a
        screenshot; SIGUSR2, SIGALRM, SIGVTALRM, SIGXCPU, SIGXFSZ, SIGPWR, SIGIO, SIGPROF,
        SIGSTKFLT, SIGSYS, SIGTRAP and the real-time signals (but the VT's) are logged and ignored
        (past a file-size limit a write then fails as a write error). An
        output path holding a FIFO, a device or a directory is refused and left as it is.
        """

    /// `--duration` bounds: at least a few frames (a shorter run ends before the first frame
    /// shows), at most about three years, far inside the clock's range.
    static let durations: ClosedRange<Double> = 0.1...1e8
    /// `--screenshot-every` bounds: PNGs no faster than ten a second, at least one a day.
    static let screenshotPeriods: ClosedRange<Double> = 0.1...86_400

    static func run(_ argv: ArraySlice<String>) throws -> Int32 {
        // --screenshot-every takes two values; take it out before the generic parser.
        var rest = Array(argv)
        var every: (Double, String)?
        if let i = rest.firstIndex(of: "--screenshot-every") {
            // Plain decimals, as in the config: no `0x10`, `1e-1`, `inf`.
            guard i + 2 < rest.count, let seconds = parseConfigDouble(rest[i + 1]), screenshotPeriods.contains(seconds) else {
                throw UsageError("--screenshot-every expects SECONDS PATH, SECONDS from 0.1 to 86400")
            }
            every = (seconds, rest[i + 2])
            rest.removeSubrange(i...(i + 2))
        }
        let args = try Arguments(rest[...], valued: ["display", "input", "config", "screenshot", "duration", "seed",
                                                         "drm-device", "connector", "mode", "state-dir"],
                                 flags: ["status", "attract", "stats", "grab", "fullscreen", "touch-test"])
        guard args.positionals.isEmpty else { throw UsageError("unexpected argument '\(echoed(args.positionals[0]))'") }
        var duration: Double?
        if let d = args.value("duration") {
            guard let v = parseConfigDouble(d), durations.contains(v) else {
                throw UsageError("--duration expects seconds from 0.1 to \(Int(durations.upperBound)) written as a plain decimal, got '\(echoed(d))'")
            }
            duration = v
        }
        let seed = try args.seed() ?? UInt64(bitPattern: EventLoop.now().microseconds) ^ UInt64(getpid())
        // Signals are blocked (and SIGPIPE ignored) from here on, so a SIGTERM while the display
        // is being set up still ends in the clean exit path; threads started later inherit that.
        let log = Logger.standardError
        let loop = try EventLoop(log: log)
        let configPath = args.value("config")
        let config = ConfigLoader.load(configPath: configPath)
        for d in config.diagnostics { Console.log(d.severity == .error ? .error : .warning, "\(d)") }
        if let configPath, config.unreadableFiles.contains(configPath) {
            // The one file asked for is unreadable: no guessing what the operator meant. Findings
            // in a file that was read (however many) only fall back to defaults, as a reload does.
            Console.log(.error, "not starting: the file given with --config cannot be read (exit \(ExitStatus.configUnusable.rawValue))")
            return ExitStatus.configUnusable.rawValue
        }
        let settings = config.settings
        let display: Display
        do {
            display = try makeDisplay(args.value("display") ?? (WindowBackend.registered == nil ? "drm" : "window"), args: args,
                                      settings: settings.display, log: log)
        } catch let error as DisplaySetupError {
            // Not master, no screen, no permission: say so plainly; the supervisor retries.
            Console.log(.error, "\(error)")
            if case .notMaster = error { return ExitStatus.displayBusy.rawValue }
            return ExitStatus.noDisplay.rawValue
        } catch let error as SystemError {
            // The card or framebuffer named cannot be opened or read.
            Console.log(.error, "\(error)")
            return ExitStatus.noDisplay.rawValue
        }
        // Touch devices span the panel in its own orientation; the runtime turns that into game space.
        // Real screens get real touch by default; the virtual one is for development and tests.
        let isWindow = WindowBackend.registered?.owns(display) ?? false
        let defaultInput = isWindow ? "window" : display is VirtualDisplay ? "none" : "evdev"
        guard let input = try makeInput(args.value("input") ?? defaultInput, screen: display.nativeSize,
                                        grab: args.has("grab") || settings.input.grab,
                                        window: isWindow ? display : nil, log: log) else { return 2 }
        var options = KioskRuntime.Options()
        options.screenshotPath = usableOutput(args.value("screenshot"), option: "--screenshot")
        options.screenshotEvery = every.flatMap { e in usableOutput(e.1, option: "--screenshot-every").map { (.seconds(e.0), $0) } }
        options.statusLines = args.has("status")
        options.attractNow = args.has("attract")
        options.duration = duration.map { .seconds($0) }
        options.seed = seed
        options.stats = args.has("stats")
        options.touchTest = args.has("touch-test")
        options.stateDirectory = StateDirectory.resolve(flag: args.value("state-dir"))
        let notifier = SystemdNotifier(log: log)
        // Only a service manager starts the new program after the exit; from a shell (or a
        // developer's rebuild) the kiosk keeps running what it started with.
        if notifier.isSupervised {
            options.program = InstalledProgram.current()
            if options.program == nil {
                Console.log(.warning, "cannot tell which file this program runs from (/proc/self/exe): an upgrade takes effect at the next restart")
            }
        }
        // Only DRM can give the screen up: fbdev would keep drawing over the other VT.
        let console = display is DRMDisplay ? try openConsole(loop, keyboard: ConsoleKeyboardPolicy(allowVTSwitch: settings.kiosk.allowVTSwitch), log: log) : nil
        let runtime = KioskRuntime(settings: settings, display: display, input: input, loop: loop, options: options,
                                   console: console, notifier: notifier, logger: log,
                                   loadConfig: { ConfigLoader.load(configPath: configPath) })
        runtime.attach(operatorLayers(scoreDirectory: StateDirectory.resolveForStore(flag: args.value("state-dir"))))
        Console.log(.info, "display \(echoed(display.name, limit: 120)), input \(echoed(input.name, limit: 120)), seed \(seed)" + (console == nil ? "" : ", on a VT"))
        return try runtime.run()
    }

    /// `path` when the kiosk may write it; nil after one line saying why not (a FIFO, a device,
    /// a directory is there): the kiosk runs on without that output rather than not at all.
    static func usableOutput(_ path: String?, option: String) -> String? {
        guard let path else { return nil }
        do {
            try OutputFile.check(path)
            return path
        } catch {
            Console.log(.error, "\(option) ignored: \(error)")
            return nil
        }
    }

    /// The layers operators configure, each fed by the runtime's events and none of them on the
    /// frame path, in the order they hear them: sounds, fleet metrics (`[metrics] textfile`),
    /// `[hooks]`, high scores and play statistics (scores.db in the state directory, on a
    /// writer thread), the backlight (`[display] backlight`, brightness, dimming, sleep), the
    /// TV's power over HDMI-CEC (`[display] cec`), and fleet control over MQTT (`[mqtt]`, whose volume and brightness commands the runtime hands
    /// to the sound and backlight layers). `bench` loads a kiosk with the same list.
    /// - Parameter soundsAtOnce: start the sound thread when attached rather than after the first
    ///   frame (the bench, which needs it ready before its round).
    static func operatorLayers(scoreDirectory: String, soundsAtOnce: Bool = false) -> [KioskLayer] {
        [SoundLayer(startAtOnce: soundsAtOnce), MetricsExporter(), HookLayer(), ScoreKeeper(directory: scoreDirectory),
         BacklightLayer(), TVLayer(), FleetLayer()]
    }

    /// The VT on standard input, when the kiosk runs on a Linux console. The switch signal is
    /// blocked first: the kernel may send it as soon as the VT is ours, and its default action
    /// would end the process. Without a usable VT the kiosk still runs, without switching.
    static func openConsole(_ loop: EventLoop, keyboard: ConsoleKeyboardPolicy, log: Logger) throws -> ConsoleOwner? {
        try loop.watch(signal: VirtualTerminal.signal)
        do {
            guard let vt = try VirtualTerminal.openStandardInput(keyboard: keyboard, log: log) else { return nil }
            Console.log(.info, "\(vt.name): VT switching on signal \(vt.switchSignal)"
                + (vt.isActive ? "" : " (not the active VT: waiting for it)"))
            return vt
        } catch {
            Console.log(.warning, "no VT switching: \(error)")
            return nil
        }
    }

    static func makeDisplay(_ spec: String, args: Arguments, settings: DisplaySettings, log: Logger) throws -> Display {
        let (kind, arg) = split(spec)
        if args.has("fullscreen") && kind != "window" { throw UsageError("--fullscreen goes with --display window") }
        switch kind {
        case "window":
            guard let backend = WindowBackend.registered else {
                throw UsageError("--display window is bubble-kiosk-desktop's; this binary has drm, fbdev and virtual")
            }
            var size = PixelSize(width: 1280, height: 800)
            if let text = arg {
                guard let s = PixelSize(parsing: text) else {
                    throw UsageError("--display window:WxH expects a size such as 1280x800, each side at most \(PixelSize.maximumSide), got '\(echoed(text))'")
                }
                size = s
            }
            do {
                return try backend.makeDisplay(size, args.has("fullscreen"))
            } catch {
                throw DisplaySetupError.noDisplay("\(error)")
            }
        case "drm":
            if arg != nil && args.value("drm-device") != nil { throw UsageError("give the card once: drm:CARD or --drm-device") }
            if let m = args.value("mode"), DRMModeRequest(parsing: m) == nil { throw UsageError("--mode expects WxH[@Hz], got '\(echoed(m))'") }
            return try DRMDisplay(devicePath: arg ?? args.value("drm-device"), outputs: settings.outputSelection,
                                  connector: args.value("connector"), mode: args.value("mode"), rotation: settings.rotation,
                                  paintMirror: MirrorScaler.paint, log: log)
        case "fbdev":
            return try FBDevDisplay(path: arg ?? "/dev/fb0", rotation: settings.rotation, log: log)
        case "virtual":
            guard let text = arg else { return VirtualDisplay(size: PixelSize(width: 1280, height: 800), allocate: { PixelMemory.blackBuffer(size: $0) }) }
            guard let size = PixelSize(parsing: text) else {
                throw UsageError("--display virtual:WxH expects a size such as 1280x800, each side at most \(PixelSize.maximumSide), got '\(echoed(text))'")
            }
            return VirtualDisplay(size: size, allocate: { PixelMemory.blackBuffer(size: $0) })
        default:
            throw UsageError("--display expects drm[:CARD], fbdev[:/dev/fbN]\(WindowBackend.registered == nil ? "" : ", window[:WxH]") or virtual[:WxH], got '\(echoed(spec))'")
        }
    }

    /// The input named on the command line; nil (after printing why) when a recording is unusable.
    static func makeInput(_ spec: String, screen: PixelSize, grab: Bool = false, window: Display? = nil, log: Logger) throws -> TouchInput? {
        let (kind, arg) = split(spec)
        switch kind {
        case "window":
            guard let window, let backend = WindowBackend.registered else {
                throw UsageError("--input window needs --display window (bubble-kiosk-desktop)")
            }
            return backend.makeInput(window)
        case "none":
            return NoTouchInput()
        case "evdev":
            if arg == "" { throw UsageError("--input evdev:PATH needs a device path") }
            return EvdevTouchInput(path: arg, screen: screen, grab: grab, log: log)
        case "replay":
            guard let path = arg else { throw UsageError("--input replay:FILE needs a file") }
            guard let recording = loadRecording(path) else { return nil }
            return ReplayTouchInput(recording: recording, path: path, screen: screen, log: log)
        default:
            throw UsageError("--input expects evdev, evdev:PATH, none or replay:FILE, got '\(echoed(spec))'")
        }
    }

    private static func split(_ spec: String) -> (String, String?) {
        guard let colon = spec.firstIndex(of: ":") else { return (spec, nil) }
        return (String(spec[..<colon]), String(spec[spec.index(after: colon)...]))
    }
}
