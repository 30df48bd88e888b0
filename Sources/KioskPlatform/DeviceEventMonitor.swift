internal import CUdev
import Glibc
import KioskCore

/// The kernel's device events for one subsystem (`drm`: a screen plugged, unplugged, or its
/// card changed), read through libudev from the kernel's own netlink source, so it works on a
/// minimal image without udevd. Its descriptor goes into the one poll loop.
public final class DeviceEventMonitor {
    /// One event as the kernel sent it.
    public struct Event: Equatable, Sendable {
        /// `add`, `remove`, `change`...
        public var action: String
        /// `card0`, `card0-HDMI-A-1`.
        public var name: String
        /// The kernel marked it a hotplug (a real plug carries `HOTPLUG=1`; a `change` written
        /// to the card's uevent file does not).
        public var isHotplug: Bool
    }

    public let subsystem: String
    private let udev: OpaquePointer
    private let monitor: OpaquePointer

    /// Listens to `subsystem`'s events. Throws when the netlink socket cannot be made (a
    /// sandbox without AF_NETLINK).
    public init(subsystem: String) throws {
        self.subsystem = subsystem
        guard let udev = udev_new() else { throw SystemError("udev_new", "device events for \(subsystem)") }
        guard let monitor = udev_monitor_new_from_netlink(udev, "kernel") else {
            let error = SystemError("udev_monitor_new_from_netlink", "kernel device events for \(subsystem) (AF_NETLINK allowed?)")
            udev_unref(udev)
            throw error
        }
        var status = udev_monitor_filter_add_match_subsystem_devtype(monitor, subsystem, nil)
        if status >= 0 { status = udev_monitor_enable_receiving(monitor) }
        guard status >= 0 else {
            let error = SystemError("udev_monitor_enable_receiving", "kernel device events for \(subsystem)", errno: -status)
            udev_monitor_unref(monitor)
            udev_unref(udev)
            throw error
        }
        self.udev = udev
        self.monitor = monitor
    }

    deinit {
        udev_monitor_unref(monitor)
        udev_unref(udev)
    }

    /// The socket to poll (non-blocking, owned by libudev).
    var fd: Int32 { udev_monitor_get_fd(monitor) }

    /// Every event waiting now (none when nothing is readable).
    public func drain() -> [Event] {
        var events: [Event] = []
        // Bounded: a flood of events must not hold the loop.
        for _ in 0..<64 {
            guard let device = udev_monitor_receive_device(monitor) else { break }
            defer { udev_device_unref(device) }
            let action = udev_device_get_action(device).map { String(cString: $0) } ?? "change"
            let name = udev_device_get_sysname(device).map { String(cString: $0) } ?? "?"
            let hotplug = udev_device_get_property_value(device, "HOTPLUG").map { String(cString: $0) } == "1"
            events.append(Event(action: String(action.prefix(32)), name: String(name.prefix(64)), isHotplug: hotplug))
        }
        return events
    }
}
