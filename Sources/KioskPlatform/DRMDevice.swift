internal import CDRM
import Glibc
import KioskCore

/// Why a display could not be set up, in words an operator can act on.
public enum DisplaySetupError: Error, CustomStringConvertible {
    /// Another program (a compositor, another kiosk) is DRM master of the card.
    case notMaster(path: String)
    /// The device node exists but the user may not open it.
    case permissionDenied(path: String, group: String)
    /// No card (or no card with a connected screen), with what was seen on the way.
    case noDisplay(String)
    /// `--connector` or `--mode` named something the card does not have.
    case notFound(String)
    /// The device works but cannot drive the kiosk (pixel format, no dumb buffers, no CRTC).
    case unsupported(String)

    public var description: String {
        switch self {
        case .notMaster(let path):
            return "\(path): cannot become DRM master (another program owns the display: stop it, or switch VT)"
        case .permissionDenied(let path, let group):
            return "\(path): permission denied: add the user to the \(group) group "
                + "(usermod -aG \(group) USER, then log in again)"
        case .noDisplay(let text), .notFound(let text), .unsupported(let text):
            return text
        }
    }
}

/// One display mode of a connector (a `drmModeModeInfo` with its numbers unpacked).
public struct DRMMode: CustomStringConvertible {
    public var width: Int
    public var height: Int
    /// Vertical refresh in whole Hz, as the kernel rounds it.
    public var refresh: Int
    public var isPreferred: Bool
    public var isInterlaced: Bool
    /// The kernel's own record, handed back unchanged to drmModeSetCrtc.
    var info: drmModeModeInfo

    init(_ info: drmModeModeInfo) {
        self.info = info
        width = Int(info.hdisplay)
        height = Int(info.vdisplay)
        refresh = Int(info.vrefresh)
        isPreferred = info.type & CDRM_MODE_TYPE_PREFERRED != 0
        isInterlaced = info.flags & CDRM_MODE_FLAG_INTERLACE != 0
    }

    /// A mode for tests and tools that never reaches the kernel.
    public init(width: Int, height: Int, refresh: Int, preferred: Bool = false, interlaced: Bool = false) {
        var info = drmModeModeInfo()
        info.hdisplay = UInt16(clamping: width)
        info.vdisplay = UInt16(clamping: height)
        info.vrefresh = UInt32(clamping: refresh)
        info.type = preferred ? CDRM_MODE_TYPE_PREFERRED : 0
        info.flags = interlaced ? CDRM_MODE_FLAG_INTERLACE : 0
        self.init(info)
    }

    public var size: PixelSize { PixelSize(width: width, height: height) }
    /// `1280x800@75`, `1920x1080i@60` when interlaced.
    public var description: String { "\(width)x\(height)\(isInterlaced ? "i" : "")@\(refresh)" }
}

/// What `--mode WxH[@Hz]` asks for.
public struct DRMModeRequest: Equatable, Sendable, CustomStringConvertible {
    public var width: Int
    public var height: Int
    public var refresh: Int?

    public init(width: Int, height: Int, refresh: Int? = nil) {
        self.width = width
        self.height = height
        self.refresh = refresh
    }

    /// Parses `1920x1080` or `1920x1080@60`; nil for anything else.
    public init?(parsing text: String) {
        let parts = text.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count <= 2, let size = PixelSize(parsing: String(parts[0])) else { return nil }
        var refresh: Int?
        if parts.count == 2 {
            guard let hz = Int(parts[1]), (1...1000).contains(hz) else { return nil }
            refresh = hz
        }
        self.init(width: size.width, height: size.height, refresh: refresh)
    }

    public var description: String { "\(width)x\(height)" + (refresh.map { "@\($0)" } ?? "") }

    /// The mode to use among a connector's: with no request the preferred one (else the first
    /// progressive one); with a request the matching size (and refresh, ±1 Hz for 59.94-style
    /// rates), preferring the preferred mode, then progressive, then the highest refresh.
    public static func choose(_ request: DRMModeRequest?, among modes: [DRMMode]) -> DRMMode? {
        guard let request else {
            return modes.first(where: \.isPreferred) ?? modes.first(where: { !$0.isInterlaced }) ?? modes.first
        }
        let fitting = modes.filter { mode in
            mode.width == request.width && mode.height == request.height
                && request.refresh.map { abs(mode.refresh - $0) <= 1 } ?? true
        }
        return fitting.max { a, b in
            (a.isPreferred ? 1 : 0, a.isInterlaced ? 0 : 1, a.refresh) < (b.isPreferred ? 1 : 0, b.isInterlaced ? 0 : 1, b.refresh)
        }
    }
}

/// A connector (a socket or panel): its kernel name such as `HDMI-A-1`, state and modes.
public struct DRMConnector {
    /// The kernel's drmModeConnection: `unknown` is common for panels that cannot detect.
    public enum Status: String { case connected, disconnected, unknown }

    public var id: UInt32
    /// `HDMI-A-1`: the type's kernel name and the per-type index, as in /sys/class/drm.
    public var name: String
    public var status: Status
    /// Physical size as the EDID reports it; 0 when unknown.
    public var mmWidth: Int
    public var mmHeight: Int
    public var modes: [DRMMode]
    public var encoderIDs: [UInt32]
    /// The encoder driving it now (0: none).
    public var currentEncoderID: UInt32

    public init(id: UInt32, name: String, status: Status, mmWidth: Int, mmHeight: Int, modes: [DRMMode],
                encoderIDs: [UInt32], currentEncoderID: UInt32) {
        self.id = id
        self.name = name
        self.status = status
        self.mmWidth = mmWidth
        self.mmHeight = mmHeight
        self.modes = modes
        self.encoderIDs = encoderIDs
        self.currentEncoderID = currentEncoderID
    }

    /// Connected and offering at least one mode: something the kiosk can show on.
    public var isUsable: Bool { status == .connected && !modes.isEmpty }
    /// Not known to be unplugged and offering modes: usable when asked for by name, or when no
    /// card has a connected screen (some fixed panels cannot detect and say `unknown`).
    public var mayBeUsable: Bool { status != .disconnected && !modes.isEmpty }

    /// The kernel's names for DRM_MODE_CONNECTOR_* (drm_connector_enum_list), so names match
    /// /sys/class/drm and the kernel log even with libdrm older than drmModeGetConnectorTypeName.
    static let typeNames = ["Unknown", "VGA", "DVI-I", "DVI-D", "DVI-A", "Composite", "SVIDEO", "LVDS",
                            "Component", "DIN", "DP", "HDMI-A", "HDMI-B", "TV", "eDP", "Virtual", "DSI",
                            "DPI", "Writeback", "SPI", "USB"]

    /// `HDMI-A-1` from DRM_MODE_CONNECTOR_HDMIA (11) and type id 1.
    public static func name(type: UInt32, typeID: UInt32) -> String {
        let base = Int(type) < typeNames.count ? typeNames[Int(type)] : "Type\(type)"
        return "\(base)-\(typeID)"
    }
}

/// An encoder: which CRTCs it can take its picture from.
public struct DRMEncoder {
    public var id: UInt32
    /// The CRTC it is attached to now (0: none).
    public var crtcID: UInt32
    /// Bit i set: the i-th CRTC of the card's resources can feed it.
    public var possibleCRTCs: UInt32

    public init(id: UInt32, crtcID: UInt32, possibleCRTCs: UInt32) {
        self.id = id
        self.crtcID = crtcID
        self.possibleCRTCs = possibleCRTCs
    }
}

/// A CRTC's configuration, saved before the first mode set so the exit can put it back.
public struct DRMCrtcState {
    public var id: UInt32
    /// The framebuffer it scanned out (0: it was off).
    public var bufferID: UInt32
    public var x: UInt32
    public var y: UInt32
    var mode: drmModeModeInfo?
}

/// The card's object ids, in the kernel's order (CRTC bit masks count in this order).
public struct DRMResources {
    public var connectorIDs: [UInt32]
    public var encoderIDs: [UInt32]
    public var crtcIDs: [UInt32]
}

/// An open DRM card (/dev/dri/cardN): typed access to its KMS objects and master status.
public final class DRMDevice {
    public let path: String
    /// The card, closed with the device.
    public let descriptor: FileDescriptor
    /// The card's number for libdrm calls, while the device lives.
    var fd: Int32 { descriptor.rawValue }

    /// Opens the card read-write, non-blocking (events are read only when poll says so).
    public init(path: String) throws {
        self.path = path
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
        return DRMConnector(id: id, name: DRMConnector.name(type: p.connector_type, typeID: p.connector_type_id),
                            status: status, mmWidth: Int(p.mmWidth), mmHeight: Int(p.mmHeight), modes: modes,
                            encoderIDs: Self.ids(p.encoders, p.count_encoders), currentEncoderID: p.encoder_id)
    }

    public func connectors() throws -> [DRMConnector] {
        try resources().connectorIDs.map { try connector(id: $0) }
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

    /// A CRTC for `connector` per drm-howto: the one its current encoder feeds from, else the
    /// first CRTC one of its encoders can use that no other connector is using.
    public func chooseCRTC(for connector: DRMConnector, resources: DRMResources) -> UInt32? {
        var encoders: [UInt32: DRMEncoder] = [:]
        for id in resources.encoderIDs { encoders[id] = encoder(id: id) }
        // CRTCs lit for other screens (console clones): taking one would blank that screen.
        var busy: Set<UInt32> = []
        for id in resources.connectorIDs where id != connector.id {
            if let c = drmModeGetConnectorCurrent(fd, id) {
                if c.pointee.encoder_id != 0, let crtc = encoders[c.pointee.encoder_id]?.crtcID, crtc != 0 { busy.insert(crtc) }
                drmModeFreeConnector(c)
            }
        }
        return Self.chooseCRTC(for: connector, encoders: encoders, crtcIDs: resources.crtcIDs, busy: busy)
    }

    /// The choice itself, without the kernel (tested on its own).
    public static func chooseCRTC(for connector: DRMConnector, encoders: [UInt32: DRMEncoder],
                                  crtcIDs: [UInt32], busy: Set<UInt32> = []) -> UInt32? {
        if let current = encoders[connector.currentEncoderID], current.crtcID != 0,
           crtcIDs.contains(current.crtcID) {
            return current.crtcID
        }
        for encoderID in connector.encoderIDs {
            guard let encoder = encoders[encoderID] else { continue }
            for (i, crtc) in crtcIDs.enumerated() where i < 32 && encoder.possibleCRTCs & (1 << UInt32(i)) != 0 {
                if !busy.contains(crtc) { return crtc }
            }
        }
        return nil
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

/// A CPU-drawable XRGB8888 scanout buffer (a "dumb" buffer) with its framebuffer id, mapped
/// into memory. The mapping is often write-combined: write it sequentially, never read it in
/// a hot path.
public final class DumbBuffer {
    public let width: Int
    public let height: Int
    /// Bytes per row, at least `width * 4` (drivers may pad).
    public let pitch: Int
    public let byteCount: Int
    /// The framebuffer id for drmModeSetCrtc and drmModePageFlip.
    public let fbID: UInt32
    public let pixels: UnsafeMutableRawPointer
    private let handle: UInt32
    /// Kept so the card's fd outlives the buffer.
    private let device: DRMDevice

    public init(device: DRMDevice, width: Int, height: Int) throws {
        let context = "\(device.path) \(width)x\(height) dumb buffer"
        var handle: UInt32 = 0, pitch: UInt32 = 0, size: UInt64 = 0
        guard CDRM_create_dumb(device.fd, UInt32(width), UInt32(height), 32, &handle, &pitch, &size) == 0 else {
            throw SystemError("DRM_IOCTL_MODE_CREATE_DUMB", context)
        }
        var fbID: UInt32 = 0
        guard drmModeAddFB(device.fd, UInt32(width), UInt32(height), 24, 32, pitch, handle, &fbID) == 0 else {
            let error = SystemError("drmModeAddFB", context)
            // Cleanup on a failure path: the error already being thrown is the one to report.
            _ = CDRM_destroy_dumb(device.fd, handle)
            throw error
        }
        var offset: UInt64 = 0
        var mapped: UnsafeMutableRawPointer?
        var failedCall = "DRM_IOCTL_MODE_MAP_DUMB"
        if CDRM_map_dumb(device.fd, handle, &offset) == 0 {
            failedCall = "mmap"
            let p = mmap(nil, Int(size), PROT_READ | PROT_WRITE, MAP_SHARED, device.fd, off_t(truncatingIfNeeded: offset))
            if p != UnsafeMutableRawPointer(bitPattern: -1) { mapped = p }
        }
        guard let mapped else {
            let error = SystemError(failedCall, context)
            // Cleanup on a failure path: the error already being thrown is the one to report.
            _ = drmModeRmFB(device.fd, fbID)
            _ = CDRM_destroy_dumb(device.fd, handle)
            throw error
        }
        self.device = device
        self.width = width
        self.height = height
        self.pitch = Int(pitch)
        self.byteCount = Int(size)
        self.fbID = fbID
        self.handle = handle
        self.pixels = mapped
        mapped.initializeMemory(as: UInt8.self, repeating: 0, count: byteCount)
    }

    deinit {
        // Nothing to retry: the kernel frees them with the card's descriptor anyway. Logged
        // because a failure here points at a driver problem.
        let context = "\(device.path) \(width)x\(height) dumb buffer"
        if munmap(pixels, byteCount) != 0 { Console.errorLine("bubble-kiosk: \(SystemError("munmap", context))") }
        if drmModeRmFB(device.fd, fbID) != 0 { Console.errorLine("bubble-kiosk: \(SystemError("drmModeRmFB", context))") }
        if CDRM_destroy_dumb(device.fd, handle) != 0 {
            Console.errorLine("bubble-kiosk: \(SystemError("DRM_IOCTL_MODE_DESTROY_DUMB", context))")
        }
    }
}
