internal import CDRM
import Glibc
import KioskCore

/// An open DRM card (/dev/dri/cardN): typed access to its KMS objects and master status.
public final class DRMDevice {
    public let path: String
    /// The card, closed with the device.
    public let descriptor: FileDescriptor
    /// The card's number for libdrm calls, while the device lives.
    var fd: Int32 { descriptor.rawValue }
    /// Where what happens to the card and its buffers is said.
    let log: Logger

    /// Opens the card read-write, non-blocking (events are read only when poll says so).
    public init(path: String, log: Logger) throws {
        self.path = path
        self.log = log
        do {
            descriptor = try FileDescriptor.open(path, O_RDWR | O_CLOEXEC | O_NONBLOCK)
        } catch let error as SystemError where error.errno == EACCES || error.errno == EPERM {
            throw DisplaySetupError.permissionDenied(path: path, group: "video")
        }
    }

    /// `/dev/dri/card*` in numeric order (card2 before card10). Numbers change between boots,
    /// so callers choose by what is connected, not by index.
    public static func cardPaths(directory: String = "/dev/dri") -> [String] {
        let names = (try? FileSystem.listDirectory(directory)) ?? []
        let cards = names.compactMap { name -> (Int, String)? in
            guard name.hasPrefix("card"), let n = Int(name.dropFirst(4)) else { return nil }
            return (n, directory + "/" + name)
        }
        return cards.sorted { $0.0 < $1.0 }.map(\.1)
    }

    /// The kernel driver's name (`bochs-drm`, `vc4`, `i915`).
    public var driverName: String? {
        guard let version = drmGetVersion(fd) else { return nil }
        defer { drmFreeVersion(version) }
        guard let name = version.pointee.name else { return nil }
        return String(cString: name)
    }

    public var isMaster: Bool { drmIsMaster(fd) != 0 }

    /// Becomes DRM master if not already (the first opener usually is); throws `.notMaster`
    /// when another program holds it.
    public func becomeMaster() throws {
        if isMaster { return }
        guard drmSetMaster(fd) == 0 else { throw DisplaySetupError.notMaster(path: path) }
    }

    /// Gives up DRM master (for a VT switch), so the console or another program can drive the
    /// card; nothing to do when not master.
    public func dropMaster() throws {
        guard isMaster else { return }
        guard drmDropMaster(fd) == 0 else { throw SystemError("drmDropMaster", path) }
    }

    public var supportsDumbBuffers: Bool {
        var value: UInt64 = 0
        return drmGetCap(fd, CDRM_CAP_DUMB_BUFFER, &value) == 0 && value != 0
    }

    public func resources() throws -> DRMResources {
        guard let res = drmModeGetResources(fd) else {
            // A render-only node (GPU without display engine) fails here with EOPNOTSUPP/EINVAL.
            throw SystemError("drmModeGetResources", "\(path) (no KMS display engine?)")
        }
        defer { drmModeFreeResources(res) }
        let r = res.pointee
        return DRMResources(connectorIDs: Self.ids(r.connectors, r.count_connectors),
                            encoderIDs: Self.ids(r.encoders, r.count_encoders),
                            crtcIDs: Self.ids(r.crtcs, r.count_crtcs))
    }

    /// The connector's state; this probes it (reads the EDID), which can take a moment.
    public func connector(id: UInt32) throws -> DRMConnector {
        guard let c = drmModeGetConnector(fd, id) else {
            throw SystemError("drmModeGetConnector", "\(path) connector \(id)")
        }
        defer { drmModeFreeConnector(c) }
        let p = c.pointee
        let status: DRMConnector.Status = p.connection == DRM_MODE_CONNECTED ? .connected
            : p.connection == DRM_MODE_DISCONNECTED ? .disconnected : .unknown
        let modes = (0..<Int(max(p.count_modes, 0))).map { DRMMode(p.modes[$0]) }
        var connector = DRMConnector(id: id, name: DRMConnector.name(type: p.connector_type, typeID: p.connector_type_id),
                                     status: status, mmWidth: Int(p.mmWidth), mmHeight: Int(p.mmHeight), modes: modes,
                                     encoderIDs: Self.ids(p.encoders, p.count_encoders), currentEncoderID: p.encoder_id)
        switch EDID.read(edidBytes(connectorID: id)) {
        case .success(let edid)?: connector.monitor = edid
        case .failure(let problem)?: connector.monitorProblem = problem
        case nil: break
        }
        return connector
    }

    /// The EDID the kernel read from the connector's monitor (the "EDID" property's blob, as
    /// refreshed by the probe in `connector(id:)`); nil when it has none. Needs no DRM master.
    public func edidBytes(connectorID: UInt32) -> [UInt8]? {
        guard let property = connectorProperty("EDID", connectorID: connectorID), property.value != 0,
              let blob = drmModeGetPropertyBlob(fd, UInt32(truncatingIfNeeded: property.value)) else { return nil }
        defer { drmModeFreePropertyBlob(blob) }
        guard let data = blob.pointee.data, blob.pointee.length > 0 else { return nil }
        return Array(UnsafeRawBufferPointer(start: data, count: Int(blob.pointee.length)))
    }

    public func connectors() throws -> [DRMConnector] {
        try connectors(in: resources())
    }

    /// The connectors of `resources` (read once by a caller that needs both).
    public func connectors(in resources: DRMResources) throws -> [DRMConnector] {
        try resources.connectorIDs.map { try connector(id: $0) }
    }

    public func encoder(id: UInt32) -> DRMEncoder? {
        guard let e = drmModeGetEncoder(fd, id) else { return nil }
        defer { drmModeFreeEncoder(e) }
        return DRMEncoder(id: id, crtcID: e.pointee.crtc_id, possibleCRTCs: e.pointee.possible_crtcs)
    }

    public func crtcState(id: UInt32) throws -> DRMCrtcState {
        guard let c = drmModeGetCrtc(fd, id) else { throw SystemError("drmModeGetCrtc", "\(path) CRTC \(id)") }
        defer { drmModeFreeCrtc(c) }
        let p = c.pointee
        return DRMCrtcState(id: id, bufferID: p.buffer_id, x: p.x, y: p.y, mode: p.mode_valid != 0 ? p.mode : nil)
    }

    /// A CRTC for each of `connectors` (nil where none is left), per drm-howto.
    public func assignCRTCs(for connectors: [DRMConnector], resources: DRMResources) -> [UInt32?] {
        var encoders: [UInt32: DRMEncoder] = [:]
        for id in resources.encoderIDs { encoders[id] = encoder(id: id) }
        // CRTCs lit for screens the kiosk does not use (console clones): taking one would blank that screen.
        let ours = Set(connectors.map(\.id))
        var busy: Set<UInt32> = []
        for id in resources.connectorIDs where !ours.contains(id) {
            if let c = drmModeGetConnectorCurrent(fd, id) {
                if c.pointee.encoder_id != 0, let crtc = encoders[c.pointee.encoder_id]?.crtcID, crtc != 0 { busy.insert(crtc) }
                drmModeFreeConnector(c)
            }
        }
        return Self.assignCRTCs(for: connectors, encoders: encoders, crtcIDs: resources.crtcIDs, busy: busy)
    }

    /// The choice itself, without the kernel (tested on its own): first every connector keeps
    /// the CRTC its current encoder feeds from (no picture moves), then each of the others gets
    /// the first CRTC one of its encoders can use that is neither busy nor taken.
    public static func assignCRTCs(for connectors: [DRMConnector], encoders: [UInt32: DRMEncoder],
                                   crtcIDs: [UInt32], busy: Set<UInt32> = []) -> [UInt32?] {
        var result: [UInt32?] = Array(repeating: nil, count: connectors.count)
        var taken: Set<UInt32> = []
        for (n, connector) in connectors.enumerated() {
            if let current = encoders[connector.currentEncoderID], current.crtcID != 0,
               crtcIDs.contains(current.crtcID), !taken.contains(current.crtcID) {
                result[n] = current.crtcID
                taken.insert(current.crtcID)
            }
        }
        for (n, connector) in connectors.enumerated() where result[n] == nil {
            search: for encoderID in connector.encoderIDs {
                guard let encoder = encoders[encoderID] else { continue }
                for (i, crtc) in crtcIDs.enumerated() where i < 32 && encoder.possibleCRTCs & (1 << UInt32(i)) != 0 {
                    if !busy.contains(crtc) && !taken.contains(crtc) {
                        result[n] = crtc
                        taken.insert(crtc)
                        break search
                    }
                }
            }
        }
        return result
    }

    /// Shows `bufferID` on `crtcID` for `connectorID` in `mode` (a full mode set; blocks).
    public func setCrtc(_ crtcID: UInt32, bufferID: UInt32, x: UInt32 = 0, y: UInt32 = 0,
                        connectorID: UInt32, mode: DRMMode) throws {
        try setCrtc(crtcID, bufferID: bufferID, x: x, y: y, connectorID: connectorID, modeInfo: mode.info)
    }

    func setCrtc(_ crtcID: UInt32, bufferID: UInt32, x: UInt32, y: UInt32, connectorID: UInt32,
                 modeInfo: drmModeModeInfo) throws {
        var connector = connectorID
        var info = modeInfo
        guard drmModeSetCrtc(fd, crtcID, bufferID, x, y, &connector, 1, &info) == 0 else {
            throw SystemError("drmModeSetCrtc", "\(path) CRTC \(crtcID) connector \(connectorID)")
        }
    }

    /// Turns the CRTC off (how a CRTC that was off before the kiosk is given back).
    func disableCrtc(_ crtcID: UInt32) throws {
        guard drmModeSetCrtc(fd, crtcID, 0, 0, 0, nil, 0, nil) == 0 else {
            throw SystemError("drmModeSetCrtc", "\(path) CRTC \(crtcID) off")
        }
    }

    private static func ids(_ pointer: UnsafeMutablePointer<UInt32>?, _ count: Int32) -> [UInt32] {
        guard let pointer, count > 0 else { return [] }
        return Array(UnsafeBufferPointer(start: pointer, count: Int(count)))
    }
}
