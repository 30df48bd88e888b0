internal import CDRM
import Glibc
import KioskCore

/// A connector's power state: the values of the kernel's legacy "DPMS" connector property.
public enum DPMSState: UInt64, Sendable, CustomStringConvertible {
    case on = 0, standby = 1, suspend = 2, off = 3

    public var description: String {
        switch self {
        case .on: return "on"
        case .standby: return "standby"
        case .suspend: return "suspend"
        case .off: return "off"
        }
    }
}

extension DRMDevice {
    /// The id and current value of the connector's property called `name`; nil when it has none
    /// (or its properties cannot be read). Needs no DRM master.
    public func connectorProperty(_ name: String, connectorID: UInt32) -> (id: UInt32, value: UInt64)? {
        guard let props = drmModeObjectGetProperties(fd, connectorID, CDRM_OBJECT_CONNECTOR) else { return nil }
        defer { drmModeFreeObjectProperties(props) }
        let p = props.pointee
        for i in 0..<Int(max(p.count_props, 0)) {
            guard let property = drmModeGetProperty(fd, p.props[i]) else { continue }
            defer { drmModeFreeProperty(property) }
            if fixedCString(property.pointee.name) == name { return (p.props[i], p.prop_values[i]) }
        }
        return nil
    }

    /// The connector's DPMS state as the kernel reports it; nil without a DPMS property.
    public func dpms(connectorID: UInt32) -> DPMSState? {
        connectorProperty("DPMS", connectorID: connectorID).flatMap { DPMSState(rawValue: $0.value) }
    }

    /// Sets the connector's DPMS property (needs DRM master). Throws `SystemError` with errno
    /// when refused, or ENOENT when the connector has no DPMS property.
    public func setDPMS(_ state: DPMSState, connectorID: UInt32) throws {
        guard let property = connectorProperty("DPMS", connectorID: connectorID) else {
            throw SystemError("DPMS", "\(path) connector \(connectorID) has no DPMS property", errno: ENOENT)
        }
        guard drmModeConnectorSetProperty(fd, connectorID, property.id, state.rawValue) == 0 else {
            throw SystemError("drmModeConnectorSetProperty", "\(path) connector \(connectorID) DPMS \(state)")
        }
    }
}
