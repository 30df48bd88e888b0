#if canImport(Glibc)
import Glibc
#endif
import KioskCore

/// A panel's backlight through its sysfs class directory (`/sys/class/backlight/NAME`, or a
/// directory with the same files): `max_brightness` read once, `brightness` read and written
/// in raw units, `bl_power` (0 on, 4 FB_BLANK_POWERDOWN off) written when the file exists.
/// Attributes are written in place (`OutputFile.writeInPlace`); errors carry errno and the file.
public struct Backlight: Sendable {
    /// Where the kernel lists backlight devices.
    public static let classDirectory = "/sys/class/backlight"
    /// `bl_power` values: FB_BLANK_UNBLANK and FB_BLANK_POWERDOWN.
    static let powerOnValue = 0
    static let powerOffValue = 4

    public let directory: String
    /// The device's `max_brightness`, at least 1.
    public let maximum: Int
    /// The device has a `bl_power` file (most do; some drivers leave it out).
    public let hasPower: Bool

    /// The device's name (the directory's last component), for log lines.
    public var name: String { String(directory.split(separator: "/").last ?? Substring(directory)) }

    /// Reads `max_brightness` in `directory`; throws `SystemError` when it cannot be read and
    /// `BacklightError` when it is not a positive whole number.
    public init(directory: String) throws {
        self.directory = directory
        maximum = try Self.readNumber(joinPath(directory, "max_brightness"), positive: true)
        hasPower = FileSystem.exists(joinPath(directory, "bl_power"))
    }

    public var brightnessPath: String { joinPath(directory, "brightness") }
    public var powerPath: String { joinPath(directory, "bl_power") }

    /// The level last set (`brightness`, not `actual_brightness`, which some panels report in
    /// other steps): what the kiosk puts back at exit.
    public func brightness() throws -> Int { try Self.readNumber(brightnessPath, positive: false) }

    /// True when `bl_power` says on, nil without the file.
    public func power() throws -> Bool? {
        guard hasPower else { return nil }
        return try Self.readNumber(powerPath, positive: false) == Self.powerOnValue
    }

    /// Sets `brightness` to `level`, clamped to 0...maximum.
    public func setBrightness(_ level: Int) throws {
        try OutputFile.writeInPlace(brightnessPath, Array("\(min(max(level, 0), maximum))\n".utf8))
    }

    /// Switches `bl_power`; nothing without the file.
    public func setPower(on: Bool) throws {
        guard hasPower else { return }
        try OutputFile.writeInPlace(powerPath, Array("\(on ? Self.powerOnValue : Self.powerOffValue)\n".utf8))
    }

    /// The largest level taken: drivers keep these attributes in 32 bits; anything above is a
    /// broken driver or not sysfs at all, and refused before any arithmetic on it.
    public static let largestLevel = Int(UInt32.max)

    static func readNumber(_ path: String, positive: Bool) throws -> Int {
        // sysfs says every attribute is a page (st_size 4096) whatever it holds.
        let text = try FileSystem.readText(path, limit: 4096)
        let trimmed = text.split(whereSeparator: { $0 == "\n" || $0 == " " || $0 == "\t" }).first.map(String.init) ?? ""
        guard let value = Int(trimmed), ((positive ? 1 : 0)...largestLevel).contains(value) else {
            throw BacklightError(path: path, text: text, expected: "a whole number from \(positive ? 1 : 0) to \(largestLevel)")
        }
        return value
    }

    /// Where `choice` points: a device directory, or nil (none wanted, or none there) with the
    /// line to log about it, if any (`auto` finding nothing is worth an info line at most).
    public static func locate(_ choice: BacklightChoice, classDirectory: String = classDirectory)
        -> (directory: String?, note: (Console.Level, String)?) {
        switch choice {
        case .none:
            return (nil, nil)
        case .auto:
            let names = (try? FileSystem.listDirectory(classDirectory)) ?? []
            guard let first = names.first else { return (nil, (.info, "backlight: none in \(classDirectory)")) }
            return (joinPath(classDirectory, first), nil)
        case .named(let name):
            let path = joinPath(classDirectory, name)
            guard FileSystem.isDirectory(path) else {
                let present = (try? FileSystem.listDirectory(classDirectory)) ?? []
                return (nil, (.warning, "backlight: no \(echoed(path, limit: 200)) ([display] backlight = \(echoed(name, limit: 100))); "
                    + (present.isEmpty ? "no backlight device here" : "there is \(present.map { echoed($0, limit: 60) }.joined(separator: ", "))")
                    + "; the kiosk goes on without backlight control"))
            }
            return (path, nil)
        case .directory(let path):
            guard FileSystem.isDirectory(path) else {
                return (nil, (.warning, "backlight: \(echoed(path, limit: 200)) is no directory; the kiosk goes on without backlight control"))
            }
            return (path, nil)
        }
    }

    /// How to let the kiosk write the device's files after `error`: the udev rule and group for
    /// permission, the unit's sandbox for a read-only mount.
    public func remedy(for error: any Error) -> String {
        guard let error = error as? SystemError else { return "" }
        switch error.errno {
        case EROFS:
            // The unit opens /sys/devices, where every sysfs backlight lives: a read-only file is
            // a directory elsewhere ([display] backlight = /absolute/dir) or a unit without that.
            // Short: a log line is cut at Console.maximumLineLength.
            let dir = echoed(directory, limit: 80)
            return "; outside /sys/devices the unit's sandbox is read-only: add ReadWritePaths=-\(dir)/brightness -\(dir)/bl_power "
                + "in a drop-in (systemctl edit bubble-kiosk)"
        case EACCES, EPERM:
            return "; the file must be writable by the group video (the udev rule 60-bubble-kiosk-backlight.rules "
                + "does it: udevadm trigger --subsystem-match=backlight --action=add) and the kiosk's user in that group"
        default:
            return ""
        }
    }
}

/// A backlight attribute that does not hold the number it should (garbage, a negative, 0 for
/// `max_brightness`).
public struct BacklightError: Error, Equatable, CustomStringConvertible {
    public var path: String
    public var text: String
    public var expected: String

    public var description: String {
        "\(echoed(path, limit: 200)): expected \(expected), got '\(echoed(text.trimmingSuffixNewline, limit: 40))'"
    }
}

private extension String {
    var trimmingSuffixNewline: String { hasSuffix("\n") ? String(dropLast()) : self }
}
