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
    public private(set) var size: PixelSize
    public private(set) var reportedPxPerMM: Double?
    /// Degrees clockwise the picture is turned on the main panel.
    public let rotation: Int
    public let devicePath: String
    public var onVisible: ((TimeStamp) -> Void)?
    public var onResize: (() -> Void)?
    public var onScreensChanged: (() -> Void)?
    public var eventFD: Int32? { device.fd }
    public var hotplugFD: Int32? { hotplug?.fd }
    public var screenCount: Int { outputs.count }
    /// Frames the main screen showed with a flip and with a mode set, and bytes copied into
    /// scanout buffers (all screens).
    public private(set) var flips = 0
    public private(set) var modeSets = 0
    public private(set) var bytesCopied = 0
    /// Switched off for the display's sleep.
    public private(set) var isPoweredOn = true

    /// The game's size before any screen was seen: the kiosk lays out again when one comes.
    public static let waitingSize = PixelSize(width: 1280, height: 800)
    /// A flip event this late was lost (a driver bug): present again rather than freeze.
    static let flipTimeout = Duration.milliseconds(500)
    /// More screens than this on one card are not driven (flip results are kept per slot).
    static let mostScreens = 8

    let device: DRMDevice
    private let turn: ScreenRotation
    private let selection: OutputSelection
    private let request: DRMModeRequest?
    private let hotplug: DeviceEventMonitor?
    /// `card0`: the name this card's events carry.
    private let cardName: String
    /// Main first.
    private var outputs: [DRMOutput] = []
    /// Each CRTC's state before the kiosk first used it: what the exit puts back.
    private var savedCRTCs: [UInt32: DRMCrtcState] = [:]
    /// Where page flips report, one per output position, alive as long as the display: an event
    /// of a screen dropped with its flip in flight still lands in memory that exists.
    private let flipSlots: UnsafeMutablePointer<CDRM_flip_result>
    private var restored = false
    /// Switched away (master dropped on purpose), or master taken or refused: no presenting.
    private var suspended = false
    private var masterLost = false
    /// A probe that came while the card was not ours: done on `resume()`.
    private var probePending = false
    private var flipTimeouts = RateLimitedLog()
    private var mirrorFailures = RateLimitedLog()
    private var said: Set<String> = []

    /// Opens the card (`devicePath`, or the first /dev/dri/card* with a screen `outputs` picks,
    /// or with the connector `connector` when given: that one overrides `outputs`), becomes DRM
    /// master, and sets up the screens that are connected now (none is no error: it waits).
    /// Nothing on screen changes until the first `present`.
    /// Throws when waiting cannot help: no card with a display engine, a connector that no
    /// card has, a mode the connected screen does not offer.
    public init(devicePath: String?, outputs selection: OutputSelection = .first, connector connectorName: String?,
                mode modeText: String?, rotation: Int) throws {
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
        let (device, connectors) = try Self.discover(devicePath: devicePath, selection: selection, required: connectorName)
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
            Console.log(.warning, "screens plugged in later are seen only by polling: \(error)")
        }
        _ = configure(connectors)
        if outputs.isEmpty {
            Console.log(.notice, "\(device.path): no screen connected (\(Self.connectorList(connectors))); waiting for a display")
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

    // MARK: finding the card and the screens

    /// The card to use, with its connectors. A named card must work; otherwise cards are tried
    /// in order and the first where `selection` finds a screen wins (card numbers change
    /// between boots), else the first card with a display engine, to wait on.
    static func discover(devicePath: String?, selection: OutputSelection,
                         required connectorName: String?) throws -> (DRMDevice, [DRMConnector]) {
        let paths = devicePath.map { [$0] } ?? DRMDevice.cardPaths()
        guard !paths.isEmpty else {
            throw DisplaySetupError.noDisplay("no /dev/dri/card* (no KMS driver loaded?); try --display fbdev")
        }
        var seen: [String] = []
        var firstError: Error?
        var waitOn: (DRMDevice, [DRMConnector])?
        for path in paths {
            do {
                let device = try DRMDevice(path: path)
                let connectors = try device.connectors()
                seen.append("\(path): \(connectors.isEmpty ? "no connectors" : connectorList(connectors))")
                if let wanted = connectorName, !connectors.contains(where: { $0.name.lowercased() == wanted.lowercased() }) {
                    continue
                }
                if !selection.choose(among: connectors.map(candidate)).isEmpty { return (device, connectors) }
                if waitOn == nil && !connectors.isEmpty { waitOn = (device, connectors) }
            } catch {
                if devicePath != nil { throw error }
                firstError = firstError ?? error
                seen.append("\(error)")
            }
        }
        if let waitOn { return waitOn }
        // Only errors (say, permission denied on the one card): that error says it best.
        if let firstError, seen.count == 1 { throw firstError }
        let what = connectorName.map { "connector \($0)" } ?? "a display engine"
        throw DisplaySetupError.noDisplay("no DRM card with \(what) (\(seen.joined(separator: "; ")))")
    }

    static func connectorList(_ connectors: [DRMConnector]) -> String {
        connectors.map { "\($0.name) \($0.status.rawValue)" }.joined(separator: ", ")
    }

    /// A connector as `OutputSelection` sees it.
    static func candidate(_ c: DRMConnector) -> OutputCandidate {
        let presence: OutputCandidate.Presence = switch c.status {
        case .connected: .connected
        case .disconnected: .disconnected
        case .unknown: .unknown
        }
        let monitor = c.monitor
        return OutputCandidate(name: c.name, presence: presence, hasModes: !c.modes.isEmpty,
                               monitorMatches: { monitor?.matches($0) ?? false })
    }

    /// Probes the connectors again (a hotplug event, or the runtime's poll while it waits) and
    /// sets the screens up anew: every screen gets a full mode set with the next present, which
    /// also brings back a monitor that lost its signal. Calls `onResize` when the main screen's
    /// size changed and `onScreensChanged` always.
    public func probeScreens() {
        guard !restored else { return }
        if suspended || masterLost {
            probePending = true
            return
        }
        let connectors: [DRMConnector]
        do {
            connectors = try device.connectors()
        } catch {
            Console.log(.error, "probing the screens: \(error)")
            return
        }
        let resized = configure(connectors)
        if resized { onResize?() }
        onScreensChanged?()
    }

    /// Reads the card's hotplug events; any event of this card (a plug, an unplug, a `change`)
    /// is a reason to probe again.
    public func handleHotplug() {
        guard let hotplug else { return }
        let events = hotplug.drain().filter { $0.name == cardName || $0.name.hasPrefix(cardName + "-") }
        guard let event = events.last else { return }
        Console.log(.info, "\(devicePath): \(event.action) event\(event.isHotplug ? " (hotplug)" : ""); probing the screens")
        probeScreens()
    }

    /// Chooses the screens among `connectors` and makes their outputs; returns whether the
    /// game's size changed.
    private func configure(_ connectors: [DRMConnector]) -> Bool {
        let chosen = Array(selection.choose(among: connectors.map(Self.candidate)).prefix(Self.mostScreens)).map { connectors[$0] }
        for name in selection.unknownNames(among: connectors.map(Self.candidate)) {
            sayOnce("[display] outputs names \(name), which \(devicePath) does not have (it has \(connectors.map(\.name).joined(separator: ", ")))")
        }
        var plan: [(DRMConnector, DRMMode)] = []
        for (i, connector) in chosen.enumerated() {
            var mode = DRMModeRequest.choose(i == 0 ? request : nil, among: connector.modes)
            if mode == nil, let request {
                sayOnce("\(connector.name): no mode \(request); using its preferred one")
                mode = DRMModeRequest.choose(nil, among: connector.modes)
            }
            if let mode { plan.append((connector, mode)) }
        }
        let before = outputs.map(\.label)
        for output in outputs { output.waitForPendingFlip(limit: Self.flipTimeout) }
        let newSize = plan.first.map { turn.logicalSize(panel: $0.1.size) } ?? size
        // Outputs that stay as they are keep their buffers; the others go first, so their CRTCs
        // are free (removing a framebuffer on screen turns its CRTC off).
        var keep: [UInt32: DRMOutput] = [:]
        for (n, (connector, mode)) in plan.enumerated() {
            if let old = outputs.first(where: { $0.connector.id == connector.id && $0.mode.isSame(as: mode) }),
               old.placement == placement(main: n == 0, panel: mode.size, game: newSize) {
                keep[connector.id] = old
            }
        }
        outputs = []
        let crtcs: [UInt32?]
        do {
            crtcs = device.assignCRTCs(for: plan.map(\.0), resources: try device.resources())
        } catch {
            Console.log(.error, "probing the screens: \(error)")
            return false
        }
        for (n, (connector, mode)) in plan.enumerated() {
            guard let crtc = crtcs[n] else {
                sayOnce("\(connector.name): no free CRTC can drive it (the card drives \(n) screens at most)")
                continue
            }
            if savedCRTCs[crtc] == nil { savedCRTCs[crtc] = try? device.crtcState(id: crtc) }
            let slot = flipSlots + outputs.count
            if let old = keep[connector.id], old.crtcID == crtc, old.flipResult == slot {
                outputs.append(old)
                continue
            }
            slot.pointee = CDRM_flip_result()
            do {
                outputs.append(try DRMOutput(device: device, connector: connector, crtcID: crtc, mode: mode,
                                             placement: placement(main: outputs.isEmpty, panel: mode.size, game: newSize),
                                             flipResult: slot))
            } catch {
                Console.log(.error, "\(connector.name) \(mode): \(error)")
            }
        }
        for output in outputs { output.forget() }
        if let main = outputs.first {
            reportedPxPerMM = PixelDensity.pxPerMM(pixels: main.mode.size, mmWidth: main.connector.mmWidth,
                                                   mmHeight: main.connector.mmHeight)
        }
        let after = outputs.map(\.label)
        if after != before {
            if after.isEmpty {
                Console.log(.warning, "\(devicePath): no screen connected (\(Self.connectorList(connectors))); "
                    + "waiting for a display, the game goes on")
            } else {
                Console.log(.notice, "\(devicePath): showing on \(after[0])"
                    + (after.count > 1 ? ", mirrored on \(after.dropFirst().joined(separator: ", "))" : ""))
            }
        }
        let resized = newSize != size
        size = newSize
        return resized
    }

    private func placement(main: Bool, panel: PixelSize, game: PixelSize) -> DRMOutput.Placement {
        main ? .turned(turn) : .mirrored(MirrorFit(source: game, target: panel))
    }

    private func sayOnce(_ line: String) {
        if said.insert(line).inserted { Console.log(.warning, line) }
    }

    // MARK: presenting

    public var canPresent: Bool {
        guard !restored, !suspended, !masterLost, !outputs.isEmpty else { return false }
        let now = EventLoop.now()
        for output in outputs where output.flipPendingSince != nil {
            guard output.dropLateFlip(olderThan: Self.flipTimeout, now: now) else { return false }
            if flipTimeouts.note() {
                Console.log(.warning, "\(output.label): no page-flip event after \(Int(Self.flipTimeout.inMilliseconds)) ms, "
                    + "going on (\(flipTimeouts.count) times)")
            }
        }
        return true
    }

    public func present(_ frame: PixelBuffer, damage: [PixelRect]) throws {
        guard !restored else { return }
        guard frame.size == size else {
            throw DisplaySetupError.unsupported("\(name): picture \(frame.size) does not fit the display's \(size)")
        }
        guard outputs.allSatisfy({ $0.flipPendingSince == nil }) else {
            // Drawing now would write into a buffer still on screen.
            throw SystemError("present", "\(name): a page flip is still pending", errno: EBUSY)
        }
        // Switched away: the frame is shown in full on resume. No screen: nothing to show on.
        guard !suspended, !outputs.isEmpty else { return }
        guard !masterLost else { throw DisplayError.lost("\(name): not DRM master; resume() first") }
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
                masterLost = true
                throw DisplayError.lost("\(error)")
            } catch where n > 0 {
                // A mirror that fails must not take the main screen with it.
                if mirrorFailures.note() { Console.log(.error, "\(output.label): \(error) (\(mirrorFailures.count) times)") }
            }
        }
        if visibleNow { onVisible?(EventLoop.now()) }
    }

    public func handleEvents() {
        if uninterrupted({ CDRM_handle_events(device.fd) }) < 0 && errno != EAGAIN {
            Console.log(.error, "\(SystemError("drmHandleEvent", name))")
        }
        for (n, output) in outputs.enumerated() {
            if let shown = output.takeCompletedFlip(), n == 0 { onVisible?(shown) }
        }
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
        guard !restored, !suspended else { return }
        suspended = true
        for output in outputs { output.waitForPendingFlip(limit: Self.flipTimeout) }
        do {
            try device.dropMaster()
        } catch {
            Console.log(.warning, "\(error)")
        }
    }

    /// Becomes DRM master again and forgets what the screens showed: the next present sets the
    /// modes with the whole frame; screens plugged meanwhile are probed now. Throws
    /// `DisplayError.lost` while another program is master.
    public func resume() throws {
        guard !restored else { return }
        if !device.isMaster && drmSetMaster(device.fd) != 0 {
            let error = SystemError("drmSetMaster", "\(name) (another program owns the display)")
            suspended = false
            masterLost = true
            throw DisplayError.lost("\(error)")
        }
        suspended = false
        masterLost = false
        for output in outputs { output.forget() }
        if !isPoweredOn {
            // Asleep while away: the console (or another program) switched the screens on meanwhile.
            isPoweredOn = true
            for output in outputs { output.forgetPower() }
            do { try setPower(on: false) } catch { Console.log(.warning, "switching the screen off again: \(error)") }
        }
        if probePending {
            probePending = false
            probeScreens()
        }
    }

    /// Switches every screen off through its DPMS property, or by disabling its CRTC where that
    /// is refused, after the flips in flight; on again the same way (a disabled CRTC gets a full
    /// mode set with the next present).
    public func setPower(on: Bool) throws {
        guard !restored, on != isPoweredOn else { return }
        if !on {
            for output in outputs { output.waitForPendingFlip(limit: Self.flipTimeout) }
        }
        var firstError: Error?
        for output in outputs {
            do { try output.setPower(on: on) } catch { firstError = firstError ?? error }
        }
        isPoweredOn = on
        if let firstError { throw firstError }
    }

    /// Puts each screen's saved CRTC back with its framebuffer, position, mode and connector (the
    /// kernel refuses a mode set without a connector), or turns it off if it was off. Safe to
    /// call more than once; only the first call acts.
    public func restore() {
        guard !restored else { return }
        // Asleep: the console must not come back dark.
        if !isPoweredOn && !suspended && !masterLost {
            do { try setPower(on: true) } catch { Console.log(.error, "switching the screen on: \(error)") }
        }
        restored = true
        // Switched away or lost: the screen is someone else's now, and not ours to change.
        guard !suspended, !masterLost else { return }
        for output in outputs {
            output.waitForPendingFlip(limit: Self.flipTimeout)
            guard let saved = savedCRTCs[output.crtcID] else { continue }
            do {
                try output.restore(saved)
            } catch {
                // Closing the card still hands the screen back to the console (fbdev emulation).
                Console.log(.error, "restoring the screen \(output.connector.name): \(error)")
            }
        }
    }
}
