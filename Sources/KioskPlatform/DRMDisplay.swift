internal import CDRM
import Glibc
import KioskCore

/// The kiosk full screen through DRM/KMS on the screens `[display] outputs` picks: the main one
/// shows the game (turned by `rotation`), the others mirror it scaled (`DRMOutput`). Page flips
/// complete in the event loop; only damaged rectangles are copied; each CRTC is given back as
/// it was on exit.
///
/// Screens come and go: the card's hotplug events (`DeviceEventMonitor`) make it probe the
/// connectors again and choose, set modes and repaint anew. With no screen connected it waits
/// (`screenCount` 0) instead of failing; the game goes on meanwhile.
///
/// `suspend()` (a VT switch away) drops DRM master; `resume()` takes it back and makes the next
/// present a full mode set. A flip or mode set refused for want of master (EACCES, EPERM) throws
/// `DisplayError.lost` and stops presenting until `resume()` succeeds.
public final class DRMDisplay: Display {
    /// The size the game lays out for: the main screen's mode, turned by `rotation` (while no
    /// screen was ever connected, `waitingSize` or the `--mode` asked for).
    public internal(set) var size: PixelSize
    public internal(set) var reportedPxPerMM: Double?
    /// Degrees clockwise the picture is turned on the main panel.
    public let rotation: Int
    public let devicePath: String
    public var onVisible: ((TimeStamp) -> Void)?
    public var onResize: (() -> Void)?
    public var onScreensChanged: (() -> Void)?
    public var seesHotplug: Bool { hotplug != nil }

    /// Whose the card is, and whether the screens are on: one state, changed by `present`,
    /// `suspend`, `resume`, `setPower` and `restore` only.
    public enum State: Equatable, Sendable {
        /// Why the card is not the kiosk's for now.
        public enum Away: Equatable, Sendable {
            /// Given up for a VT switch away.
            case switched
            /// Another program took DRM master, or refused to give it back.
            case masterLost
        }
        /// The kiosk's: presenting (the screens switched off for sleep while not `poweredOn`).
        case ours(poweredOn: Bool)
        /// Not the kiosk's: nothing is presented; screens plugged meanwhile are probed on
        /// `resume` (`probePending`).
        case away(Away, poweredOn: Bool, probePending: Bool)
        /// The exit put the screens back: nothing is shown any more.
        case restored

        var isOurs: Bool { if case .ours = self { true } else { false } }
    }

    public internal(set) var state = State.ours(poweredOn: true)

    public func watch(on loop: EventLoop) -> [LoopRegistration] {
        let timer = loop.addTimer("page-flip timeout")
        loop.onFire(timer) { [unowned self] now in dropLateFlips(at: now) }
        flipTimer = (loop, timer)
        var watches = [loop.register(device.descriptor, name: name) { [unowned self] in handleEvents() }]
        if let hotplug {
            watches.append(loop.register(number: hotplug.fd, name: "screen hotplug") { [unowned self] in handleHotplug() })
        }
        return watches
    }
    public var screenCount: Int { outputs.count }
    public var mainMonitor: EDID? { outputs.first?.connector.monitor }
    public var mainConnector: DRMConnectorRef? {
        guard let main = outputs.first, let card = Int(cardName.dropFirst(4)) else { return nil }
        return DRMConnectorRef(card: card, connectorID: main.connector.id)
    }
    /// Frames the main screen showed with a flip and with a mode set, and bytes copied into
    /// scanout buffers (all screens).
    public private(set) var flips = 0
    public private(set) var modeSets = 0
    public private(set) var bytesCopied = 0
    /// Switched off for the display's sleep.
    public var isPoweredOn: Bool {
        switch state {
        case .ours(let on), .away(_, let on, _): on
        case .restored: true
        }
    }

    /// The game's size before any screen was seen: the kiosk lays out again when one comes.
    public static let waitingSize = PixelSize(width: 1280, height: 800)
    /// A flip event this late was lost (a driver bug): present again rather than freeze.
    static let flipTimeout = Duration.milliseconds(500)
    /// More screens than this on one card are not driven (flip results are kept per slot).
    static let mostScreens = 8

    let device: DRMDevice
    let turn: ScreenRotation
    let selection: OutputSelection
    let request: DRMModeRequest?
    let hotplug: DeviceEventMonitor?
    /// `card0`: the name this card's events carry.
    let cardName: String
    /// Main first.
    var outputs: [DRMOutput] = []
    /// Each CRTC's state before the kiosk first used it: what the exit puts back.
    var savedCRTCs: [UInt32: DRMCrtcState] = [:]
    /// Where page flips report, one per output position, alive as long as the display: an event
    /// of a screen dropped with its flip in flight still lands in memory that exists.
    let flipSlots: UnsafeMutablePointer<CDRM_flip_result>
    private var flipTimeouts = RateLimitedLog()
    /// Wakes the loop when a page flip is overdue (`flipTimeout`); made by `watch(on:)`.
    private var flipTimer: (loop: EventLoop, id: EventLoop.TimerID)?
    private var mirrorFailures = RateLimitedLog()
    let paintMirror: MirrorPainter
    /// Where what happens to the screens is said.
    let log: Logger
    /// Warnings given, each said once.
    var said: [String: RateLimitedLog] = [:]

    /// Opens the card (`devicePath`, or the first /dev/dri/card* with a screen `outputs` picks,
    /// or with the connector `connector` when given: that one overrides `outputs`), becomes DRM
    /// master, and sets up the screens that are connected now (none is no error: it waits).
    /// Nothing on screen changes until the first `present`.
    /// Throws when waiting cannot help: no card with a display engine, a connector that no
    /// card has, a mode the connected screen does not offer.
    ///
    /// `paintMirror` scales the game's picture onto the screens that mirror it.
    public init(devicePath: String?, outputs selection: OutputSelection = .first, connector connectorName: String?,
                mode modeText: String?, rotation: Int, paintMirror: @escaping MirrorPainter, log: Logger) throws {
        self.paintMirror = paintMirror
        self.log = log
        guard let turn = ScreenRotation(degrees: rotation) else {
            throw DisplaySetupError.unsupported("rotation must be \(ScreenRotation.allowedText), got \(rotation)")
        }
        var request: DRMModeRequest?
        if let modeText {
            guard let r = DRMModeRequest(parsing: modeText) else {
                throw DisplaySetupError.notFound("--mode expects WxH or WxH@Hz such as 1920x1080@60, got '\(modeText)'")
            }
            request = r
        }
        let selection = connectorName.map { OutputSelection.named([$0]) } ?? selection
        let (device, resources, connectors) = try Self.discover(devicePath: devicePath, selection: selection, required: connectorName,
                                                                log: log)
        try device.becomeMaster()
        guard device.supportsDumbBuffers else {
            throw DisplaySetupError.unsupported("\(device.path): the driver has no dumb buffers; try --display fbdev")
        }
        let chosen = selection.choose(among: connectors.map(Self.candidate))
        if let request, let main = chosen.first.map({ connectors[$0] }), DRMModeRequest.choose(request, among: main.modes) == nil {
            throw DisplaySetupError.notFound("\(device.path) \(main.name): no mode \(request) "
                + "(it offers \(main.modes.map(\.description).joined(separator: " ")))")
        }
        self.device = device
        self.devicePath = device.path
        cardName = String(device.path.split(separator: "/").last ?? "card")
        self.turn = turn
        self.rotation = rotation
        self.selection = selection
        self.request = request
        size = turn.logicalSize(panel: request.map { PixelSize(width: $0.width, height: $0.height) } ?? Self.waitingSize)
        flipSlots = .allocate(capacity: Self.mostScreens)
        flipSlots.initialize(repeating: CDRM_flip_result(), count: Self.mostScreens)
        do {
            hotplug = try DeviceEventMonitor(subsystem: "drm")
        } catch {
            hotplug = nil
            log(.warning, "screens plugged in later are seen only by polling: \(error)")
        }
        _ = configure(connectors, resources: resources)
        if outputs.isEmpty {
            log(.notice, "\(device.path): no screen connected (\(Self.connectorList(connectors))); waiting for a display")
        }
    }

    deinit {
        restore()
        flipSlots.deallocate()
    }

    /// `drm:/dev/dri/card0:HDMI-A-1:1920x1080@60` (mirrors follow with `+`), `...:no-screen`.
    public var name: String {
        let screens = outputs.isEmpty ? "no-screen" : outputs.map(\.label).joined(separator: "+")
        return "drm:\(devicePath):\(screens)" + (rotation != 0 ? ":rot\(rotation)" : "")
    }

    /// The screens in use, main first (`HDMI-A-1:1920x1080@60`).
    public var screenLabels: [String] { outputs.map(\.label) }

    // MARK: presenting

    public var canPresent: Bool {
        state.isOurs && !outputs.isEmpty && outputs.allSatisfy { $0.flipPendingSince == nil }
    }

    /// Flips whose event is overdue were lost (a driver bug): given up, so presenting goes on
    /// rather than freezes; the loop's iteration after this timer presents again.
    private func dropLateFlips(at now: TimeStamp) {
        for output in outputs where output.dropLateFlip(olderThan: Self.flipTimeout, now: now) {
            if flipTimeouts.note() {
                log(.warning, "\(output.label): no page-flip event after \(Int(Self.flipTimeout.inMilliseconds)) ms, "
                    + "going on (\(flipTimeouts.count) times)")
            }
        }
        armFlipTimer()
    }

    /// The flip timer at the oldest pending flip's limit, or off.
    private func armFlipTimer() {
        guard let flipTimer else { return }
        let oldest = outputs.compactMap(\.flipPendingSince).min()
        flipTimer.loop.arm(flipTimer.id, at: oldest.map { $0 + Self.flipTimeout })
    }

    public func present(_ frame: PixelBuffer, damage: [PixelRect]) throws {
        guard state != .restored else { return }
        guard frame.size == size else {
            throw DisplaySetupError.unsupported("\(name): picture \(frame.size) does not fit the display's \(size)")
        }
        guard outputs.allSatisfy({ $0.flipPendingSince == nil }) else {
            // Drawing now would write into a buffer still on screen.
            throw SystemError("present", "\(name): a page flip is still pending", errno: EBUSY)
        }
        // Switched away: the frame is shown in full on resume. No screen: nothing to show on.
        if case .away(.switched, _, _) = state { return }
        guard !outputs.isEmpty else { return }
        guard state.isOurs else { throw DisplayError.lost("\(name): not DRM master; resume() first") }
        var visibleNow = false
        for (n, output) in outputs.enumerated() {
            do {
                switch try output.present(frame, damage: damage, copied: &bytesCopied) {
                case .now:
                    if n == 0 {
                        modeSets += 1
                        visibleNow = true
                    }
                case .flipQueued:
                    if n == 0 { flips += 1 }
                }
            } catch let error as SystemError where error.errno == EACCES || error.errno == EPERM {
                state = .away(.masterLost, poweredOn: isPoweredOn, probePending: false)
                armFlipTimer()
                throw DisplayError.lost("\(error)")
            } catch where n > 0 {
                // A mirror that fails must not take the main screen with it.
                if mirrorFailures.note() { log(.error, "\(output.label): \(error) (\(mirrorFailures.count) times)") }
            }
        }
        armFlipTimer()
        if visibleNow { onVisible?(EventLoop.now()) }
    }

    public func handleEvents() {
        if uninterrupted({ CDRM_handle_events(device.fd) }) < 0 && errno != EAGAIN {
            log(.error, "\(SystemError("drmHandleEvent", name))")
        }
        for (n, output) in outputs.enumerated() {
            if let shown = output.takeCompletedFlip(), n == 0 { onVisible?(shown) }
        }
        armFlipTimer()
    }

    /// The main screen's buffer, in the panel's orientation (black without a screen). Reads
    /// display memory, which is slow: for occasional screenshots only.
    public func snapshot() -> PixelBuffer {
        outputs.first?.snapshot() ?? PixelBuffer(size: turn.logicalSize(panel: size))
    }

    // MARK: the VT, power and the exit

    /// Drops DRM master for a VT switch away, after the flips in flight (if any) completed, so
    /// the console or the next VT's program can set its own mode. Only the first call acts.
    public func suspend() {
        guard case .ours(let on) = state else { return }
        state = .away(.switched, poweredOn: on, probePending: false)
        for output in outputs { output.waitForPendingFlip(limit: Self.flipTimeout) }
        armFlipTimer()
        do {
            try device.dropMaster()
        } catch {
            log(.warning, "\(error)")
        }
    }

    /// Becomes DRM master again and forgets what the screens showed: the next present sets the
    /// modes with the whole frame; screens plugged meanwhile are probed now. Throws
    /// `DisplayError.lost` while another program is master.
    public func resume() throws {
        let (poweredOn, probePending): (Bool, Bool)
        switch state {
        case .restored: return
        case .ours(let on): (poweredOn, probePending) = (on, false)
        case .away(_, let on, let probe): (poweredOn, probePending) = (on, probe)
        }
        if !device.isMaster && drmSetMaster(device.fd) != 0 {
            let error = SystemError("drmSetMaster", "\(name) (another program owns the display)")
            state = .away(.masterLost, poweredOn: poweredOn, probePending: probePending)
            throw DisplayError.lost("\(error)")
        }
        // The console (or another program) may have switched the screens on meanwhile.
        state = .ours(poweredOn: true)
        for output in outputs { output.forget() }
        if !poweredOn {
            // Asleep while away: off again.
            for output in outputs { output.forgetPower() }
            do { try setPower(on: false) } catch { log(.warning, "switching the screen off again: \(error)") }
        }
        if probePending { probeScreens() }
    }

    /// Switches every screen off through its DPMS property, or by disabling its CRTC where that
    /// is refused, after the flips in flight; on again the same way (a disabled CRTC gets a full
    /// mode set with the next present).
    public func setPower(on: Bool) throws {
        guard state != .restored, on != isPoweredOn else { return }
        if !on {
            for output in outputs { output.waitForPendingFlip(limit: Self.flipTimeout) }
        }
        var firstError: Error?
        for output in outputs {
            do { try output.setPower(on: on) } catch { firstError = firstError ?? error }
        }
        switch state {
        case .ours: state = .ours(poweredOn: on)
        case .away(let why, _, let probe): state = .away(why, poweredOn: on, probePending: probe)
        case .restored: break
        }
        if let firstError { throw firstError }
    }

    /// Puts each screen's saved CRTC back with its framebuffer, position, mode and connector (the
    /// kernel refuses a mode set without a connector), or turns it off if it was off. Safe to
    /// call more than once; only the first call acts.
    public func restore() {
        let ours: Bool
        switch state {
        case .restored: return
        case .ours(let on):
            // Asleep: the console must not come back dark.
            if !on {
                do { try setPower(on: true) } catch { log(.error, "switching the screen on: \(error)") }
            }
            ours = true
        case .away:
            ours = false
        }
        state = .restored
        flipTimer.map { $0.loop.arm($0.id, at: nil) }
        // Switched away or lost: the screen is someone else's now, and not ours to change.
        guard ours else { return }
        for output in outputs {
            output.waitForPendingFlip(limit: Self.flipTimeout)
            guard let saved = savedCRTCs[output.crtcID] else { continue }
            do {
                try output.restore(saved)
            } catch {
                // Closing the card still hands the screen back to the console (fbdev emulation).
                log(.error, "restoring the screen \(output.connector.name): \(error)")
            }
        }
    }
}
