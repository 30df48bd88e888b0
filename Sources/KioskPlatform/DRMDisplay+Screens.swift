internal import CDRM
import Glibc
import KioskCore

/// Finding the card and choosing its screens: at start, and again on every hotplug event.
extension DRMDisplay {
    /// The card to use, with its connectors. A named card must work; otherwise cards are tried
    /// in order and the first where `selection` finds a screen wins (card numbers change
    /// between boots), else the first card with a display engine, to wait on.
    static func discover(devicePath: String?, selection: OutputSelection, required connectorName: String?,
                         log: Logger) throws -> (DRMDevice, DRMResources, [DRMConnector]) {
        let paths = devicePath.map { [$0] } ?? DRMDevice.cardPaths()
        guard !paths.isEmpty else {
            throw DisplaySetupError.noDisplay("no /dev/dri/card* (no KMS driver loaded?); try --display fbdev")
        }
        var seen: [String] = []
        var firstError: Error?
        var waitOn: (DRMDevice, DRMResources, [DRMConnector])?
        for path in paths {
            do {
                let device = try DRMDevice(path: path, log: log)
                let resources = try device.resources()
                let connectors = try device.connectors(in: resources)
                seen.append("\(path): \(connectors.isEmpty ? "no connectors" : connectorList(connectors))")
                if let wanted = connectorName, !connectors.contains(where: { $0.name.lowercased() == wanted.lowercased() }) {
                    continue
                }
                if !selection.choose(among: connectors.map(candidate)).isEmpty { return (device, resources, connectors) }
                if waitOn == nil && !connectors.isEmpty { waitOn = (device, resources, connectors) }
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
        switch state {
        case .restored: return
        case .away(let why, let on, _):
            // Not ours now: done on `resume()`.
            state = .away(why, poweredOn: on, probePending: true)
            return
        case .ours: break
        }
        let resources: DRMResources, connectors: [DRMConnector]
        do {
            resources = try device.resources()
            connectors = try device.connectors(in: resources)
        } catch {
            log(.error, "probing the screens: \(error)")
            return
        }
        let resized = configure(connectors, resources: resources)
        if resized { onResize?() }
        onScreensChanged?()
    }

    /// Reads the card's hotplug events; any event of this card (a plug, an unplug, a `change`)
    /// is a reason to probe again.
    public func handleHotplug() {
        guard let hotplug else { return }
        let events = hotplug.drain().filter { $0.name == cardName || $0.name.hasPrefix(cardName + "-") }
        guard let event = events.last else { return }
        log(.info, "\(devicePath): \(event.action) event\(event.isHotplug ? " (hotplug)" : ""); probing the screens")
        probeScreens()
    }

    /// Chooses the screens among `connectors` and makes their outputs; returns whether the
    /// game's size changed.
    func configure(_ connectors: [DRMConnector], resources: DRMResources) -> Bool {
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
        let crtcs = device.assignCRTCs(for: plan.map(\.0), resources: resources)
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
                                             flipResult: slot, paintMirror: paintMirror))
            } catch {
                log(.error, "\(connector.name) \(mode): \(error)")
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
                log(.warning, "\(devicePath): no screen connected (\(Self.connectorList(connectors))); "
                    + "waiting for a display, the game goes on")
            } else {
                log(.notice, "\(devicePath): showing on \(after[0])"
                    + (after.count > 1 ? ", mirrored on \(after.dropFirst().joined(separator: ", "))" : ""))
            }
        }
        let resized = newSize != size
        size = newSize
        return resized
    }

    func placement(main: Bool, panel: PixelSize, game: PixelSize) -> DRMOutput.Placement {
        main ? .turned(turn) : .mirrored(MirrorFit(source: game, target: panel))
    }

    func sayOnce(_ line: String) {
        if said[line, default: RateLimitedLog()].noteFirst() { log(.warning, line) }
    }
}
