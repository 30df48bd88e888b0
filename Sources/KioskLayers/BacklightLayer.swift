import KioskCore
import KioskPlatform

/// The backlight layer: `[display] brightness` from the start, dimming after
/// `dim_after_idle_min` without a touch, `bl_power` off while the display sleeps and on again
/// when it wakes (the runtime switches DPMS; many DSI panels keep their backlight lit through
/// it). `BacklightPolicy` decides; this layer reads and writes the device (`Backlight`).
///
/// One timer ("backlight"), armed only for the dim deadline. Nothing is written unless the
/// wanted level or power differs from what was last written. The exit puts the level back as
/// found and the power on: the panel is never left dark. A file it cannot write is one log line
/// (which file, why, how to fix it), and the kiosk goes on without backlight control.
public final class BacklightLayer: KioskLayer {
    /// The device in use; nil without one, or after a failure.
    public private(set) var backlight: Backlight?
    /// The raw level found at start, put back at exit.
    public private(set) var found = 0
    /// Level and power as last written (or found); nil: unknown.
    public private(set) var level: Int?
    public private(set) var powerOn: Bool?
    /// Writes made since the start.
    public private(set) var writes = 0
    private let classDirectory: String
    private var policy = BacklightPolicy(DisplaySettings())
    private var dimmed = false
    private weak var host: LayerHost?
    private var timer: EventLoop.TimerID?

    /// - Parameter classDirectory: where `auto` and a device name look (tests hand in their own).
    public init(classDirectory: String = Backlight.classDirectory) {
        self.classDirectory = classDirectory
    }

    public func attach(to host: LayerHost) {
        self.host = host
        let display = host.settings.display
        policy = BacklightPolicy(display)
        let (directory, note) = Backlight.locate(BacklightChoice(display.backlight) ?? .auto, classDirectory: classDirectory)
        if let note { log(note.0, note.1) }
        guard let directory else { return }
        do {
            let device = try Backlight(directory: directory)
            found = try device.brightness()
            if found > device.maximum {
                // A driver that reports more than it allows: taken at its word for the maximum.
                log(.warning, "backlight \(echoed(directory, limit: 200)): brightness \(found) is above max_brightness \(device.maximum) "
                    + "(a driver fault?); taken as \(device.maximum)")
                found = device.maximum
            }
            level = found
            powerOn = try device.power()
            backlight = device
            log(.info, "backlight \(echoed(directory, limit: 200)): max_brightness \(device.maximum), found at \(found)"
                + (powerOn == false ? ", powered down" : ""))
        } catch {
            log(.warning, "backlight: \(Self.describe(error, in: directory)); the kiosk goes on without backlight control")
            return
        }
        let timer = host.loop.addTimer("backlight")
        host.loop.onFire(timer) { [unowned self] now in apply(at: now) }
        self.timer = timer
        apply(at: host.loop.now)
    }

    public func handle(_ event: KioskEvent, _ facts: EventFacts) {
        guard backlight != nil else { return }
        switch event {
        case .touchTest, .touch, .operatorGesture, .displaySleep: apply(at: facts.time)
        default: return
        }
    }

    public func reload(_ settings: Settings) {
        policy = BacklightPolicy(settings.display)
        guard let host, backlight != nil else { return }
        apply(at: host.loop.now)
    }

    /// The level as fleet control shows it, 0-255 of the device's range; nil without a device.
    public var level255: Int? {
        guard let backlight, let level, backlight.maximum > 0 else { return nil }
        let clamped = min(max(level, 0), backlight.maximum)
        return Int((Double(clamped) * 255 / Double(backlight.maximum)).rounded())
    }

    /// Sets the undimmed level from fleet control (0-255, 0 being the lowest level that still
    /// shows, never black: switching off is the display's sleep) until the next reload.
    /// False without a device.
    @discardableResult
    public func setLevel255(_ value: Int) -> Bool {
        guard let host, backlight != nil else { return false }
        // The policy turns any share above 0 into at least one step.
        policy.brightness = max(Double(min(value, 255)) * 100 / 255, 0.01)
        apply(at: host.loop.now)
        return true
    }

    public func perform(_ command: KioskCommand, by who: String) -> Bool {
        guard case .brightness(let value) = command else { return false }
        return setLevel255(value)
    }

    public func contribute(to snapshot: inout KioskSnapshot) { snapshot.brightness = level255 }

    /// Puts the level back as found and the power on.
    public func stop() {
        guard let backlight else { return }
        if let timer { host?.loop.arm(timer, at: nil) }
        if powerOn == false { write(backlight.powerPath) { try backlight.setPower(on: true) } }
        if level != found { write(backlight.brightnessPath) { try backlight.setBrightness(found) } }
    }

    /// Writes what the policy wants at `now` and arms the timer for its next look.
    private func apply(at now: TimeStamp) {
        guard let backlight, let kiosk = host?.snapshot else { return }
        // While the touch-test screen is open, someone is at the panel: never dim under them.
        // Woken by a touch (or the schedule's end), the panel comes back bright.
        let activity = kiosk.onScreen == .touchTest ? now : kiosk.activity.latest
        let decision = policy.decide(lastActivity: activity, asleep: kiosk.asleep, at: now, found: found, maximum: backlight.maximum)
        // Off before a change of level (nothing flashes), on after it.
        if backlight.hasPower && !decision.powerOn && powerOn != false {
            guard write(backlight.powerPath, { try backlight.setPower(on: false) }) else { return }
            powerOn = false
        }
        // The level the policy leaves alone goes back to what was found (a reload to `auto`).
        let wanted = decision.level ?? found
        if wanted != level {
            guard write(backlight.brightnessPath, { try backlight.setBrightness(wanted) }) else { return }
            level = wanted
        }
        if backlight.hasPower && decision.powerOn && powerOn != true {
            guard write(backlight.powerPath, { try backlight.setPower(on: true) }) else { return }
            powerOn = true
        }
        if decision.dimmed != dimmed {
            dimmed = decision.dimmed
            log(.info, dimmed ? "backlight dimmed to \(wanted) of \(backlight.maximum) after \(NumberText.plain(policy.dimAfterIdle.inSeconds / 60)) min without a touch"
                : "backlight back to \(wanted) of \(backlight.maximum)")
        }
        if let timer { host?.loop.arm(timer, at: decision.recheck) }
    }

    /// Runs `body`; on failure logs one line and gives up the device. True when it worked.
    @discardableResult
    private func write(_ path: String, _ body: () throws -> Void) -> Bool {
        guard let backlight else { return false }
        do {
            try body()
            writes += 1
            return true
        } catch {
            log(.error, "backlight: cannot write \(echoed(path, limit: 200)): \(OutputFile.reason(error))"
                + backlight.remedy(for: error) + "; the kiosk goes on without backlight control")
            self.backlight = nil
            if let timer { host?.loop.arm(timer, at: nil) }
            return false
        }
    }

    /// What went wrong on opening the device, naming the file.
    private static func describe(_ error: any Error, in directory: String) -> String {
        switch error {
        case is SystemError, is BacklightError: return "\(error)"
        default: return "\(echoed(directory, limit: 200)): \(error)"
        }
    }

    private func log(_ level: Console.Level, _ message: String) {
        host?.log(level, message)
    }
}
