internal import CDRM
import Glibc
import KioskCore

/// The kiosk full screen through DRM/KMS: two dumb buffers, page flips completed in the event
/// loop, only damaged rectangles copied, and the CRTC given back as it was on exit.
///
/// The first present sets the mode (drmModeSetCrtc); later ones copy damage into the back
/// buffer and flip with DRM_MODE_PAGE_FLIP_EVENT, and `canPresent` stays false until the
/// event arrives. Where the driver refuses flips, every present uses drmModeSetCrtc instead.
///
/// `suspend()` (a VT switch away) drops DRM master; `resume()` takes it back and makes the next
/// present a full mode set. A flip or mode set refused for want of master (EACCES, EPERM) throws
/// `DisplayError.lost` and stops presenting until `resume()` succeeds.
public final class DRMDisplay: Display {
    public let name: String
    /// The size the game lays out for: the mode, turned by `rotation`.
    public let size: PixelSize
    public let reportedPxPerMM: Double?
    /// Degrees clockwise the picture is turned on the panel.
    public let rotation: Int
    public let devicePath: String
    public let connector: DRMConnector
    public let mode: DRMMode
    public var onVisible: ((TimeStamp) -> Void)?
    public var eventFD: Int32? { device.fd }
    /// Frames shown with a flip and with a mode set, and bytes copied into scanout buffers.
    public private(set) var flips = 0
    public private(set) var modeSets = 0
    public private(set) var bytesCopied = 0

    private let device: DRMDevice
    private let crtcID: UInt32
    private let turn: ScreenRotation
    private let saved: DRMCrtcState
    private let buffers: [DumbBuffer]
    /// Per buffer: game rectangles presented while it was not the one being drawn.
    private var missed: [[PixelRect]]
    /// The buffer on screen (or about to be, while a flip is pending).
    private var front = 0
    private var modeIsSet = false
    private var restored = false
    private var flipsWork = true
    private var flipPendingSince: TimeStamp?
    /// Switched away (master dropped on purpose), or master taken or refused: no presenting.
    private var suspended = false
    private var masterLost = false
    /// Switched off for the display's sleep; `crtcOff` when that took disabling the CRTC (no
    /// usable DPMS property).
    public private(set) var isPoweredOn = true
    private var crtcOff = false
    private var flipTimeouts = RateLimitedLog()
    private let flipResult: UnsafeMutablePointer<CDRM_flip_result>
    /// A flip event this late was lost (a driver bug): present again rather than freeze.
    private static let flipTimeout = Duration.milliseconds(500)

    /// Opens the card (`devicePath`, or the first /dev/dri/card* with a connected screen, or
    /// with the connector `connectorName`), becomes DRM master, picks the mode (`mode` as
    /// WxH[@Hz], else the preferred one) and a CRTC, saves that CRTC's state and allocates the
    /// buffers. Nothing on screen changes until the first `present`.
    public init(devicePath: String?, connector connectorName: String?, mode modeText: String?,
                rotation: Int) throws {
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
        let (device, resources, connector) = try Self.discover(devicePath: devicePath, connectorName: connectorName)
        try device.becomeMaster()
        guard let mode = DRMModeRequest.choose(request, among: connector.modes) else {
            throw DisplaySetupError.notFound("\(device.path) \(connector.name): no mode \(request.map { "\($0)" } ?? "") "
                + "(it offers \(connector.modes.map(\.description).joined(separator: " ")))")
        }
        guard device.supportsDumbBuffers else {
            throw DisplaySetupError.unsupported("\(device.path): the driver has no dumb buffers; try --display fbdev")
        }
        guard let crtcID = device.chooseCRTC(for: connector, resources: resources) else {
            throw DisplaySetupError.unsupported("\(device.path) \(connector.name): no free CRTC can drive it")
        }
        self.device = device
        self.devicePath = device.path
        self.connector = connector
        self.mode = mode
        self.crtcID = crtcID
        self.turn = turn
        self.rotation = rotation
        saved = try device.crtcState(id: crtcID)
        buffers = try (0..<2).map { _ in try DumbBuffer(device: device, width: mode.width, height: mode.height) }
        size = turn.logicalSize(panel: mode.size)
        missed = [[], []]
        reportedPxPerMM = PixelDensity.pxPerMM(pixels: mode.size, mmWidth: connector.mmWidth, mmHeight: connector.mmHeight)
        name = "drm:\(device.path):\(connector.name):\(mode)" + (rotation != 0 ? ":rot\(rotation)" : "")
        flipResult = .allocate(capacity: 1)
        flipResult.initialize(to: CDRM_flip_result())
    }

    deinit {
        restore()
        flipResult.deallocate()
    }

    /// The card and connector to use. A named card must work; otherwise cards are tried in
    /// order and the first with the named (or any) connected connector wins, because card
    /// numbers change between boots.
    static func discover(devicePath: String?, connectorName: String?) throws -> (DRMDevice, DRMResources, DRMConnector) {
        let paths = devicePath.map { [$0] } ?? DRMDevice.cardPaths()
        guard !paths.isEmpty else {
            throw DisplaySetupError.noDisplay("no /dev/dri/card* (no KMS driver loaded?); try --display fbdev")
        }
        var seen: [String] = []
        var firstError: Error?
        var undetected: (DRMDevice, DRMResources, DRMConnector)?
        for path in paths {
            do {
                let device = try DRMDevice(path: path)
                let resources = try device.resources()
                let connectors = try resources.connectorIDs.map { try device.connector(id: $0) }
                if let wanted = connectorName {
                    if let c = connectors.first(where: { $0.name == wanted }) {
                        guard c.mayBeUsable else {
                            throw DisplaySetupError.noDisplay("\(path): connector \(wanted) is \(c.status.rawValue)")
                        }
                        return (device, resources, c)
                    }
                } else if let c = connectors.first(where: \.isUsable) {
                    return (device, resources, c)
                } else if undetected == nil, let c = connectors.first(where: \.mayBeUsable) {
                    undetected = (device, resources, c)
                }
                let list = connectors.map { "\($0.name) \($0.status.rawValue)" }.joined(separator: ", ")
                seen.append("\(path): \(list.isEmpty ? "no connectors" : list)")
            } catch {
                if devicePath != nil { throw error }
                firstError = firstError ?? error
                seen.append("\(error)")
            }
        }
        if let undetected { return undetected }
        // Only errors (say, permission denied on the one card): that error says it best.
        if let firstError, seen.count == 1 { throw firstError }
        let what = connectorName.map { "connector \($0)" } ?? "a connected screen"
        throw DisplaySetupError.noDisplay("no DRM card with \(what) (\(seen.joined(separator: "; ")))")
    }

    public var canPresent: Bool {
        guard !restored, !suspended, !masterLost else { return false }
        guard let since = flipPendingSince else { return true }
        if EventLoop.now() - since < Self.flipTimeout { return false }
        if flipTimeouts.note() {
            Console.log(.warning, "\(name): no page-flip event after \(Int(Self.flipTimeout.inMilliseconds)) ms, "
                + "going on (\(flipTimeouts.count) times)")
        }
        flipPendingSince = nil
        return true
    }

    public func present(_ frame: PixelBuffer, damage: [PixelRect]) throws {
        guard !restored else { return }
        guard frame.size == size else {
            throw DisplaySetupError.unsupported("\(name): picture \(frame.size) does not fit the display's \(size)")
        }
        guard flipPendingSince == nil else {
            // Drawing now would write into the buffer still on screen.
            throw SystemError("present", "\(name): a page flip is still pending", errno: EBUSY)
        }
        // Switched away: the frame is shown in full on resume. Lost: only resume() helps.
        guard !suspended else { return }
        guard !masterLost else { throw DisplayError.lost("\(name): not DRM master; resume() first") }
        let bounds = frame.bounds
        guard modeIsSet else {
            // The whole picture into one buffer, then the mode set that puts it on screen.
            copy(frame, [bounds], into: buffers[0])
            try setCrtc(buffers[0])
            modeIsSet = true
            modeSets += 1
            front = 0
            missed = [[], [bounds]]
            onVisible?(EventLoop.now())
            return
        }
        let back = 1 - front
        copy(frame, DamageRegion.merged(missed[back] + damage, within: bounds), into: buffers[back])
        missed[back] = []
        missed[front] = DamageRegion.merged(missed[front] + damage, within: bounds)
        if flipsWork {
            if CDRM_page_flip(device.fd, crtcID, buffers[back].fbID, flipResult) == 0 {
                front = back
                flips += 1
                flipPendingSince = EventLoop.now()
                return
            }
            let code = errno
            if code == EACCES || code == EPERM {
                throw lost(SystemError("drmModePageFlip", "\(name) CRTC \(crtcID)", errno: code))
            }
            if code == EBUSY {
                // Transient: the back buffer keeps the frame.
                throw SystemError("drmModePageFlip", "\(name) CRTC \(crtcID)", errno: code)
            }
            flipsWork = false
            Console.log(.warning, "\(name): page flips refused (\(String(cString: strerror(code))), "
                + "errno \(code)); showing each frame with drmModeSetCrtc")
        }
        try setCrtc(buffers[back])
        front = back
        modeSets += 1
        onVisible?(EventLoop.now())
    }

    public func handleEvents() {
        if uninterrupted({ CDRM_handle_events(device.fd) }) < 0 && errno != EAGAIN {
            Console.log(.error, "\(SystemError("drmHandleEvent", name))")
        }
        guard flipResult.pointee.done != 0 else { return }
        flipResult.pointee.done = 0
        flipPendingSince = nil
        // The kernel stamps the event with CLOCK_MONOTONIC, the clock the event loop uses.
        let r = flipResult.pointee
        onVisible?(TimeStamp(seconds: Int64(r.tv_sec), microseconds: Int64(r.tv_usec)))
    }

    /// The buffer on screen, in the panel's orientation. Reads display memory, which is slow:
    /// for occasional screenshots only.
    public func snapshot() -> PixelBuffer {
        let shot = PixelBuffer(size: mode.size)
        if modeIsSet { shot.copyRows(from: buffers[front].pixels, sourceStride: Int(buffers[front].pitch)) }
        return shot
    }

    /// Drops DRM master for a VT switch away, after the flip in flight (if any) completed, so
    /// the console or the next VT's program can set its own mode. Only the first call acts.
    public func suspend() {
        guard !restored, !suspended else { return }
        suspended = true
        waitForPendingFlip()
        do {
            try device.dropMaster()
        } catch {
            Console.log(.warning, "\(error)")
        }
    }

    /// Becomes DRM master again and forgets what the screen showed: the next present sets the
    /// mode with the whole frame. Throws `DisplayError.lost` while another program is master.
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
        flipPendingSince = nil
        modeIsSet = false
        front = 0
        missed = [[], []]
        if !isPoweredOn {
            // Asleep while away: the console (or another program) switched the screen on meanwhile.
            isPoweredOn = true
            crtcOff = false
            do { try setPower(on: false) } catch { Console.log(.warning, "switching the screen off again: \(error)") }
        }
    }

    /// Switches the screen off through the connector's DPMS property, or by disabling the CRTC
    /// where that is refused, after the flip in flight; on again the same way (a disabled CRTC
    /// gets a full mode set with the next present).
    public func setPower(on: Bool) throws {
        guard !restored, on != isPoweredOn else { return }
        if !on {
            waitForPendingFlip()
            do {
                try device.setDPMS(.off, connectorID: connector.id)
            } catch let error as SystemError where error.errno == EACCES || error.errno == EPERM {
                throw error
            } catch {
                try device.disableCrtc(crtcID)
                crtcOff = true
                modeIsSet = false
            }
            isPoweredOn = false
            return
        }
        if crtcOff {
            crtcOff = false
            front = 0
            missed = [[], []]
        } else {
            try device.setDPMS(.on, connectorID: connector.id)
        }
        isPoweredOn = true
    }

    /// Puts the saved CRTC back with its framebuffer, position, mode and our connector (the
    /// kernel refuses a mode set without a connector), or turns it off if it was off. Safe to
    /// call more than once; only the first call acts.
    public func restore() {
        guard !restored else { return }
        // Asleep: the console must not come back dark.
        if !isPoweredOn && !suspended && !masterLost {
            let wasOff = crtcOff
            do { try setPower(on: true) } catch { Console.log(.error, "switching the screen on: \(error)") }
            if wasOff { modeIsSet = true }
        }
        restored = true
        // Switched away or lost: the screen is someone else's now, and not ours to change.
        guard modeIsSet, !suspended, !masterLost else { return }
        waitForPendingFlip()
        do {
            if saved.bufferID != 0, let modeInfo = saved.mode {
                try device.setCrtc(saved.id, bufferID: saved.bufferID, x: saved.x, y: saved.y,
                                   connectorID: connector.id, modeInfo: modeInfo)
            } else {
                try device.disableCrtc(saved.id)
            }
        } catch {
            // Closing the card still hands the screen back to the console (fbdev emulation).
            Console.log(.error, "restoring the screen: \(error)")
        }
    }

    /// A mode set of `buffer` on our CRTC; refused for want of master, the display is lost.
    private func setCrtc(_ buffer: DumbBuffer) throws {
        do {
            try device.setCrtc(crtcID, bufferID: buffer.fbID, connectorID: connector.id, mode: mode)
        } catch let error as SystemError where error.errno == EACCES || error.errno == EPERM {
            throw lost(error)
        }
    }

    /// Marks master as lost (no presenting until `resume()`) and makes the error to throw.
    private func lost(_ error: SystemError) -> DisplayError {
        masterLost = true
        return .lost("\(error)")
    }

    /// Some drivers refuse a mode set while a flip is queued: let it finish first (bounded).
    private func waitForPendingFlip() {
        guard flipPendingSince != nil else { return }
        var waited = Duration.zero
        var pfd = pollfd(fd: device.fd, events: Int16(POLLIN), revents: 0)
        while flipResult.pointee.done == 0 && waited < Self.flipTimeout {
            let ready = uninterrupted { poll(&pfd, 1, 50) }
            if ready < 0 {
                Console.log(.error, "\(SystemError("poll", "\(name) waiting for a page flip"))")
                break
            }
            if ready > 0 && uninterrupted({ CDRM_handle_events(device.fd) }) < 0 && errno != EAGAIN {
                Console.log(.error, "\(SystemError("drmHandleEvent", name))")
                break
            }
            waited += .milliseconds(50)
        }
        flipResult.pointee.done = 0
        flipPendingSince = nil
    }

    private func copy(_ frame: PixelBuffer, _ rects: [PixelRect], into buffer: DumbBuffer) {
        for rect in rects {
            turn.copy(rect, from: frame.pixels, sourceStride: frame.stride, logical: size,
                      to: buffer.pixels, destinationStride: buffer.pitch)
            bytesCopied += rect.area * 4
        }
    }
}
