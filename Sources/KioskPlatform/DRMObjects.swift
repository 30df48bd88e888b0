internal import CDRM
import Glibc
import KioskCore

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

    /// The same timing: the kernel's record field by field (two modes of one size can differ in
    /// refresh, interlacing or pixel clock).
    public func isSame(as other: DRMMode) -> Bool {
        let a = info, b = other.info
        return a.clock == b.clock && a.hdisplay == b.hdisplay && a.vdisplay == b.vdisplay && a.htotal == b.htotal
            && a.vtotal == b.vtotal && a.vrefresh == b.vrefresh && a.flags == b.flags
    }
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
    /// The monitor plugged in, from its EDID: names the screen whichever port it is on. Nil when
    /// there is no EDID (nothing plugged in, a panel without one) or it cannot be read.
    public var monitor: EDID?
    /// Why the EDID the connector has cannot be read (then `monitor` is nil).
    public var monitorProblem: EDID.ParseError?

    public init(id: UInt32, name: String, status: Status, mmWidth: Int, mmHeight: Int, modes: [DRMMode],
                encoderIDs: [UInt32], currentEncoderID: UInt32, monitor: EDID? = nil,
                monitorProblem: EDID.ParseError? = nil) {
        self.id = id
        self.name = name
        self.status = status
        self.mmWidth = mmWidth
        self.mmHeight = mmHeight
        self.modes = modes
        self.encoderIDs = encoderIDs
        self.currentEncoderID = currentEncoderID
        self.monitor = monitor
        self.monitorProblem = monitorProblem
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
