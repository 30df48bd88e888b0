import Glibc
import KioskCore
import KioskPlatform

/// `bubble-kiosk devices`: what the kiosk could show on and take touches from.
struct DevicesCommand: KioskCommand {
    static let name = "devices"
    static let usage = """
        usage: bubble-kiosk devices
        Lists DRM cards with their connectors (status, modes with the preferred one marked *,
        physical size and pixel density, the monitor from its EDID with the edid: name that
        picks it on any port, power state: DPMS on, standby, suspend or off), fbdev
        framebuffers, HDMI-CEC adapters (addresses, screen, the TV's power), input devices,
        the keyboards among them (they never reach the game),
        and whether the machine ignores the keys that leave a kiosk (the
        bubble-kiosk-lockdown package: SysRq, Ctrl-Alt-Del, logind), and when the
        config's sleep_schedule next switches the display off and on. Works as an
        ordinary user; a device that cannot be opened says which group to join.
        """

    static func run(_ args: ArraySlice<String>) throws -> Int32 {
        let parsed = try Arguments(args, valued: [], flags: [])
        guard parsed.positionals.isEmpty else { throw UsageError("unexpected argument '\(echoed(parsed.positionals[0]))'") }
        var lines = drmLines()
        lines += fbdevLines()
        lines += cecLines()
        lines += describeInputDevices()
        // The config's findings are check-config's to print; here only the schedule's outlook.
        lines.append(CheckConfigCommand.scheduleLine(ConfigLoader.load(configPath: nil).settings))
        Console.out(lines.map { $0 + "\n" }.joined())
        return 0
    }

    /// Every card and connector, or the reason a card cannot be read (with sysfs facts then).
    static func drmLines() -> [String] {
        let cards = DRMDevice.cardPaths()
        var lines = ["DRM cards (/dev/dri/card*):"]
        if cards.isEmpty { lines.append("    none (no KMS driver loaded?); --display fbdev may still work") }
        for path in cards {
            let device: DRMDevice
            do {
                device = try DRMDevice(path: path, log: .standardError)
            } catch {
                lines.append("  \(error)")
                lines += sysfsConnectorLines(card: String(path.split(separator: "/").last ?? ""))
                continue
            }
            // Opening a card nobody is master of makes the opener master: so "free" means the
            // kiosk could take it now.
            let owner = device.isMaster ? "free" : "in use (another program is DRM master)"
            lines.append("  \(path) (\(device.driverName ?? "unknown driver")): display \(owner)")
            do {
                let connectors = try device.connectors()
                if connectors.isEmpty { lines.append("    no connectors (a render-only GPU?)") }
                for connector in connectors {
                    lines += describe(connector)
                    // Read back through libdrm: what the display's sleep switched it to.
                    if let dpms = device.dpms(connectorID: connector.id) { lines.append("      power (DPMS): \(dpms)") }
                }
            } catch {
                lines.append("    \(error)")
            }
        }
        return lines
    }

    static func describe(_ c: DRMConnector) -> [String] {
        let monitor = monitorLine(c.monitor.map { .success($0) } ?? c.monitorProblem.map { .failure($0) })
        guard c.mayBeUsable else { return ["    \(c.name): \(c.status.rawValue)"] + (monitor.map { [$0] } ?? []) }
        var head = "    \(c.name): \(c.status.rawValue), \(c.mmWidth)x\(c.mmHeight) mm"
        if let preferred = DRMModeRequest.choose(nil, among: c.modes) {
            if let density = PixelDensity.pxPerMM(pixels: preferred.size, mmWidth: c.mmWidth, mmHeight: c.mmHeight) {
                head += ", \(NumberText.fixed(density, places: 2)) px/mm at \(preferred)"
            } else {
                head += " (not believable for \(preferred.size): set [display] px_per_mm)"
            }
        }
        var modes: [String] = []
        for mode in c.modes {
            let text = mode.description + (mode.isPreferred ? "*" : "")
            if !modes.contains(text) { modes.append(text) }
        }
        return [head] + (monitor.map { [$0] } ?? [])
            + ["      \(c.modes.count) modes: " + (modes.isEmpty ? "none" : modes.joined(separator: " "))]
    }

    /// The line under a connector naming its monitor, and the `edid:` name that picks this
    /// screen in `[display] outputs` whichever port or cable it is on; nil without an EDID.
    static func monitorLine(_ edid: Result<EDID, EDID.ParseError>?) -> String? {
        switch edid {
        case .success(let monitor)?: return "      monitor: \(monitor.summary); name it \(monitor.nameToken)"
        case .failure(let problem)?: return "      EDID unreadable: \(problem)"
        case nil: return nil
        }
    }

    /// Connector facts from /sys/class/drm, which anyone may read, for a card we cannot open.
    static func sysfsConnectorLines(card: String) -> [String] {
        let base = "/sys/class/drm"
        let entries = ((try? FileSystem.listDirectory(base)) ?? []).filter { $0.hasPrefix(card + "-") }
        return entries.flatMap { entry in
            let dir = "\(base)/\(entry)"
            let status = (try? FileSystem.readText(dir + "/status"))?.split(separator: "\n").first.map(String.init) ?? "?"
            let modes = ((try? FileSystem.readText(dir + "/modes")) ?? "").split(separator: "\n")
            var seen: [Substring] = []
            for m in modes where !seen.contains(m) { seen.append(m) }
            let name = String(entry.dropFirst(card.count + 1))
            let line = "    \(name): \(status) (from sysfs)" + (seen.isEmpty ? "" : ", modes: \(seen.joined(separator: " "))")
            // The edid file is world-readable, like status and modes: empty when nothing is plugged in.
            let monitor = monitorLine(EDID.read(try? FileSystem.readBytes(dir + "/edid")))
            return [line] + (monitor.map { [$0] } ?? [])
        }
    }

    /// HDMI-CEC adapters: their addresses, the screen each belongs to, and what the TV says of
    /// its power (asked now, for a second at most).
    static func cecLines() -> [String] {
        let paths = CECAdapter.devicePaths()
        var lines = ["HDMI-CEC adapters (/dev/cec*):"]
        if paths.isEmpty { lines.append("    none ([display] cec has nothing to switch the TV with)") }
        for path in paths {
            let adapter: CECAdapter
            do {
                adapter = try CECAdapter(path: path, blocking: true)
            } catch {
                lines.append("  \(error)" + ((error as? SystemError)?.errno == EACCES ? " (join the group video)" : ""))
                continue
            }
            let physical = (try? adapter.physicalAddress()) ?? .invalid
            let claimed = try? adapter.claimed()
            var line = "  \(path) (\(adapter.driver), \(adapter.name)): physical address \(physical)"
            if physical == .invalid { line += " (no hotplug: the TV off, or no cable)" }
            if let claimed, let first = claimed.addresses.first {
                line += ", logical address \(first) (\(CECMessage.deviceName(first))) \"\(claimed.osdName)\""
            } else {
                line += ", no logical address claimed"
            }
            lines.append(line)
            lines.append("      screen: " + (adapter.drmConnector.map { "\($0)" } ?? "not said by the driver (USB adapters, vivid)"))
            let me = claimed?.addresses.first ?? 15
            if me == CECMessage.tv {
                lines.append("      TV power: this adapter is the TV's own (logical address 0): nothing to ask")
                continue
            }
            do {
                let answer = try adapter.ask(.giveDevicePowerStatus(from: me), reply: CECOpcode.reportPowerStatus, timeout: .seconds(1))
                let power = answer?.operands.first.flatMap(CECPowerStatus.init(rawValue:))
                lines.append("      TV power: " + (power.map { "\($0)" } ?? "no answer"))
            } catch {
                lines.append("      TV power: cannot ask: \((error as? SystemError)?.reason ?? "\(error)")")
            }
        }
        return lines
    }

    /// Legacy framebuffers, for `--display fbdev`.
    static func fbdevLines() -> [String] {
        let names = ((try? FileSystem.listDirectory("/dev")) ?? []).filter { $0.hasPrefix("fb") && Int($0.dropFirst(2)) != nil }
        var lines = ["fbdev framebuffers (/dev/fb*):"]
        if names.isEmpty { lines.append("    none") }
        for name in names.sorted(by: { Int($0.dropFirst(2))! < Int($1.dropFirst(2))! }) {
            let fb: FramebufferProbe
            do {
                fb = try FramebufferProbe.probe("/dev/" + name)
            } catch {
                lines.append("  \(error)")
                continue
            }
            let verdict: String
            if fb.problem == nil {
                verdict = " XRGB8888, usable with --display fbdev"
            } else if !fb.isXRGB8888 {
                verdict = ", not XRGB8888: --display fbdev would refuse it"
            } else {
                verdict = " XRGB8888, but --display fbdev would refuse it (the visible screen lies outside its memory)"
            }
            lines.append("  \(fb.path) (\(fb.id)): \(fb.width)x\(fb.height), \(fb.bitsPerPixel) bpp" + verdict)
        }
        return lines
    }
}
