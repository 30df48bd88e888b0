import KioskCore
import KioskPlatform

/// The TV's power over HDMI-CEC (`[display] cec`): Standby with the display's sleep, Image View
/// On and Active Source when it wakes, the TV's own standby followed. `TVPowerControl` decides;
/// this carries its frames to the adapter and back, and hands its requests to the runtime. An
/// adapter that fails or goes away is one log line, and the kiosk plays on without it.
public final class TVLayer: KioskLayer {
    /// Opens an adapter by path (tests hand in a bus of their own).
    public typealias Opener = (String) throws -> CECPort

    /// The adapter in use; nil without one (off, none found, gone).
    public private(set) var port: CECPort?
    public private(set) var control: TVPowerControl
    /// Frames sent whose result has not come back, by sequence number.
    private var inFlight: [UInt32: CECMessage] = [:]
    /// The display's next sleep is the TV's doing (its Standby came first).
    private var sleepIsTVs = false
    private var registration: LoopRegistration?
    private var timer: EventLoop.TimerID?
    private weak var host: LayerHost?
    private let open: Opener
    private let list: () -> [String]
    /// The claim's line is said when the address is first known.
    private var claimSaid = false

    /// - Parameters:
    ///   - devices: the adapters there are (`/dev/cec*`).
    ///   - open: opens one (non-blocking).
    public init(devices: @escaping () -> [String] = { CECAdapter.devicePaths() },
                open: @escaping Opener = { try CECAdapter(path: $0) }) {
        list = devices
        self.open = open
        control = TVPowerControl(name: DisplaySettings().cecName)
    }

    public func attach(to host: LayerHost) {
        self.host = host
        let display = host.settings.display
        control = TVPowerControl(name: display.cecName)
        guard let port = choose(CECChoice(display.cec) ?? .auto, screen: host.displayConnector) else { return }
        adoptPhysicalAddress(port, host.displayPhysicalAddress)
        do {
            try port.claimPlayback(osdName: display.cecName)
        } catch {
            log(.warning, "cec: \(port.path): cannot claim a logical address: \(error); the kiosk plays on without TV control")
            return
        }
        self.port = port
        let timer = host.loop.addTimer("cec")
        host.loop.onFire(timer) { [unowned self] now in apply(control.due(at: now)) }
        self.timer = timer
        registration = port.watch(on: host.loop) { [unowned self] in readable() }
        // The claim may be done already (a blocking driver); else its event follows.
        if let physical = try? port.physicalAddress(), let claimed = try? port.claimed() {
            addressesChanged(physical, claimed.addresses.first)
        }
    }

    /// An adapter that leaves its physical address to software (a USB adapter) gets the one the
    /// screen's EDID gives its port, unless it has one already (kept in its own memory).
    private func adoptPhysicalAddress(_ port: CECPort, _ fromEDID: PhysicalAddress?) {
        guard port.needsPhysicalAddress, !((try? port.physicalAddress())?.isValid ?? false) else { return }
        guard let address = fromEDID, address.isValid else {
            log(.notice, "cec: \(port.path) needs a physical address and the screen's EDID gives none: "
                + "set it with cec-ctl -d \(port.path) --phys-addr A.B.C.D (the TV's HDMI input: 1.0.0.0 for HDMI 1)")
            return
        }
        do {
            try port.setPhysicalAddress(address)
            log(.info, "cec: \(port.path) takes physical address \(address) from the screen's EDID")
        } catch {
            log(.warning, "cec: \(port.path): cannot set physical address \(address): \(error)")
        }
    }

    /// The adapter `choice` names, opened; nil (and a line saying why) for none.
    private func choose(_ choice: CECChoice, screen: DRMConnectorRef?) -> CECPort? {
        switch choice {
        case .off:
            return nil
        case .device(let path):
            do {
                return try open(path)
            } catch {
                log(.warning, "cec: [display] cec = \(echoed(path, limit: 80)): \(error); the kiosk plays on without TV control")
                return nil
            }
        case .auto:
            var opened: [(port: CECPort, candidate: CECChoice.Candidate)] = []
            for path in list() {
                do {
                    let port = try open(path)
                    opened.append((port, .init(path: path, connector: (port as? CECAdapter)?.drmConnector)))
                } catch {
                    log(.warning, "cec: \(error) (skipped)")
                }
            }
            let (path, why) = CECChoice.pickAutomatically(opened.map(\.candidate), screen: screen)
            guard let path, let port = opened.first(where: { $0.candidate.path == path })?.port else {
                log(opened.isEmpty ? .info : .notice, "cec: \(why): the TV's power is not controlled")
                return nil
            }
            log(.info, "cec: using \(path) (\(port.name)): \(why)")
            return port
        }
    }

    public func handle(_ event: KioskEvent, _ facts: EventFacts) {
        guard port != nil else { return }
        switch event {
        case .firstFrame:
            control.started(awake: !(host?.snapshot.asleep ?? false), at: facts.time)
            armTimer()
        case .displaySleep(let asleep):
            let fromTV = asleep && sleepIsTVs
            sleepIsTVs = false
            apply(control.displayChanged(awake: !asleep, fromTV: fromTV, at: facts.time))
        default:
            return
        }
    }

    public func contribute(to snapshot: inout KioskSnapshot) {
        guard port != nil else { return }
        snapshot.tv = control.status
    }

    public func stop() { drop() }

    /// Everything the adapter has for the kiosk: events (addresses), then frames and results.
    private func readable() {
        guard let port, let now = host?.loop.now else { return }
        do {
            while let event = try port.nextEvent() {
                switch event {
                case .state(let physical, let mask):
                    addressesChanged(physical, CECAdapter.logicalAddress(inMask: mask))
                case .lostMessages:
                    log(.notice, "cec: \(port.path): the adapter dropped messages (the loop was too slow to read them)")
                }
            }
            while let incoming = try port.receive() {
                switch incoming {
                case .frame(let message):
                    apply(control.received(message, at: now))
                case .sent(let sequence, let result):
                    guard let message = inFlight.removeValue(forKey: sequence) else { continue }
                    apply(control.transmitted(message, result, at: now))
                }
            }
        } catch {
            gone(error)
        }
    }

    private func addressesChanged(_ physical: PhysicalAddress, _ logical: UInt8?) {
        guard let port, let now = host?.loop.now else { return }
        if let logical, !claimSaid {
            claimSaid = true
            log(.info, "cec: \(port.path) (\(port.name)): \(CECMessage.deviceName(logical)) (logical address \(logical)), "
                + "physical address \(physical), OSD name \"\(control.name)\"")
        }
        apply(control.adapterChanged(physical: physical, logical: logical, at: now))
    }

    /// Sends, logs and asks what the control's output says, then arms the timer.
    private func apply(_ out: TVPowerControl.Output) {
        for (severity, line) in out.lines {
            switch severity {
            case .info: log(.info, line)
            case .notice: log(.notice, line)
            case .warning: log(.warning, line)
            }
        }
        if let port {
            for message in out.send {
                do {
                    inFlight[try port.transmit(message)] = message
                } catch let error as SystemError where error.deviceGone {
                    gone(error)
                    break
                } catch {
                    // Refused before it reached the bus (no address yet, a busy queue): a failure
                    // like one on the bus.
                    if let now = host?.loop.now { apply(control.transmitted(message, .failed("\(error)"), at: now)) }
                }
            }
        }
        for request in out.requests {
            switch request {
            case .sleepForTV:
                sleepIsTVs = true
                host?.perform(.tvPower(on: false), by: "the TV")
                sleepIsTVs = false
            case .wakeForTV:
                host?.perform(.tvPower(on: true), by: "the TV")
            }
        }
        armTimer()
    }

    private func armTimer() {
        guard let timer, let loop = host?.loop else { return }
        loop.arm(timer, at: port == nil ? nil : control.nextDeadline)
    }

    /// The adapter went away (unplugged, its driver unbound) or broke: said once, then without.
    private func gone(_ error: any Error) {
        guard let port else { return }
        log(.warning, "cec: \(port.path) is gone (\(error)): the kiosk plays on without TV control")
        drop()
    }

    private func drop() {
        registration = nil
        port = nil
        inFlight = [:]
        armTimer()
    }

    private func log(_ level: Console.Level, _ message: String) {
        host?.log(level, message)
    }
}
