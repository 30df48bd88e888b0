/// The kiosk's side of the TV's power over HDMI-CEC, as a Playback device: Standby to the TV
/// when the display sleeps, Image View On and Active Source when it wakes, answers to the TV's
/// questions, and what the TV's own messages mean for the kiosk (its remote put it to standby).
///
/// Pure: the platform carries frames to and from the adapter and reports how each transmit
/// ended; each call returns what to send, what the kiosk should do and what to log, so tests
/// drive it on virtual time.
public struct TVPowerControl: Sendable {
    /// What the kiosk should do because of the TV.
    public enum Request: Equatable, Sendable {
        /// The TV went to standby by itself (its remote, another device's system standby): the
        /// display sleeps for that reason.
        case sleepForTV
        /// The TV came back on without the kiosk (its remote, its input chosen): a display that
        /// sleeps because the TV went to standby wakes.
        case wakeForTV
    }

    /// How much a line matters: the platform maps it to a syslog level.
    public enum Severity: Equatable, Sendable { case info, notice, warning }

    /// What one call asks of the platform and the kiosk.
    public struct Output: Equatable, Sendable {
        public var send: [CECMessage] = []
        public var requests: [Request] = []
        public var lines: [(Severity, String)] = []

        public init() {}

        public static func == (a: Output, b: Output) -> Bool {
            a.send == b.send && a.requests == b.requests
                && a.lines.map { "\($0.0) \($0.1)" } == b.lines.map { "\($0.0) \($0.1)" }
        }

        mutating func log(_ severity: Severity, _ text: String) { lines.append((severity, text)) }
    }

    /// After the first frame, this long before the TV is switched on: a kiosk that starts in
    /// its closed hours falls asleep at once, and the TV should not flash on first.
    public static let startSettle = Duration.seconds(1)
    /// After a power command, when to ask the TV how it is (TVs take seconds to switch).
    public static let afterCommand = Duration.seconds(5)
    /// Between two questions otherwise: follows a TV switched by its remote without a word.
    public static let pollInterval = Duration.seconds(600)

    /// The OSD name the TV shows for the kiosk.
    public let name: String
    /// The adapter's physical address; `f.f.f.f` while the TV's hotplug is down.
    public private(set) var physicalAddress = PhysicalAddress.invalid
    /// The logical address claimed (4 for Playback Device 1); nil while none is.
    public private(set) var logicalAddress: UInt8?
    /// What the TV said of its power last; nil before it answered, or when it stopped answering.
    public private(set) var tvPower: CECPowerStatus?
    /// The kiosk's display is awake (what the kiosk reports as its own power, and wants of the TV).
    public private(set) var displayAwake = true
    /// The kiosk said Active Source last and no other source took the TV since.
    public private(set) var isActiveSource = false
    /// Awake, but Active Source could not be said yet (no physical address): said once it is.
    private var activeSourcePending = false
    /// Asleep, but Standby could not be sent (no logical address yet: the claim still going on
    /// after a start, or the TV's hotplug down): sent once there is one.
    private var standbyPending = false
    /// When the start's switch-on is due (after the first frame), nil once done or superseded.
    private var startDue: TimeStamp?
    private var nextPoll: TimeStamp?
    /// Frames to the TV that failed in a row: the first of a spell is logged.
    private var failures = RateLimitedLog()

    public init(name: String) { self.name = name }

    /// The address frames come from: the claimed one, else "unregistered" (15), which an
    /// unconfigured adapter may still send Image View On from.
    private var me: UInt8 { logicalAddress ?? 15 }

    /// The status others read (`devices`, metrics, the MQTT state).
    public var status: TVStatus {
        TVStatus(physicalAddress: physicalAddress, logicalAddress: logicalAddress, tvPower: tvPower,
                 activeSource: isActiveSource)
    }

    /// The earliest moment `due` has something to do.
    public var nextDeadline: TimeStamp? {
        [startDue, logicalAddress == nil ? nil : nextPoll].compactMap { $0 }.min()
    }

    /// The adapter's addresses changed (claimed, lost with the TV's hotplug, found again).
    public mutating func adapterChanged(physical: PhysicalAddress, logical: UInt8?, at now: TimeStamp) -> Output {
        var out = Output()
        let claimedNow = logicalAddress == nil && logical != nil
        physicalAddress = physical
        logicalAddress = logical
        if claimedNow { nextPoll = now + .seconds(1) }
        if logical == nil || !physical.isValid { isActiveSource = false }
        if standbyPending, !displayAwake, let me = logical {
            standbyPending = false
            out.send.append(.standby(from: me))
            out.log(.info, "cec: the TV to standby (now that logical address \(me) is claimed)")
            nextPoll = now + Self.afterCommand
        }
        if activeSourcePending, displayAwake, physical.isValid, let me = logical {
            activeSourcePending = false
            isActiveSource = true
            out.send.append(.activeSource(from: me, physical))
            out.log(.info, "cec: the physical address is \(physical) again: Active Source")
        }
        return out
    }

    /// The first frame is on screen: the TV is switched on shortly after, if the display is
    /// still awake then.
    public mutating func started(awake: Bool, at now: TimeStamp) {
        displayAwake = awake
        startDue = now + Self.startSettle
    }

    /// The display fell asleep or woke. `fromTV`: because the TV itself went to standby (then
    /// nothing is sent: it is off already).
    public mutating func displayChanged(awake: Bool, fromTV: Bool = false, at now: TimeStamp) -> Output {
        displayAwake = awake
        startDue = nil
        var out = Output()
        if fromTV { return out }
        if awake { switchOn(&out, at: now) } else { switchOff(&out, at: now) }
        return out
    }

    /// Timers: the start's switch-on, the next question about the TV's power.
    public mutating func due(at now: TimeStamp) -> Output {
        var out = Output()
        if let start = startDue, now >= start {
            startDue = nil
            if displayAwake { switchOn(&out, at: now) }
        }
        if let me = logicalAddress, let poll = nextPoll, now >= poll {
            out.send.append(.giveDevicePowerStatus(from: me))
            nextPoll = now + Self.pollInterval
        }
        return out
    }

    /// A frame from the bus (to the kiosk, or broadcast).
    public mutating func received(_ m: CECMessage, at now: TimeStamp) -> Output {
        var out = Output()
        guard let opcode = m.opcode, m.initiator != logicalAddress || m.initiator == 15 else { return out }
        let toMe = logicalAddress.map { m.destination == $0 } ?? false
        // A message that is only ever broadcast means nothing when addressed, and the other way round.
        if CECOpcode.broadcastOnly.contains(opcode) && !m.isBroadcast { return out }
        switch opcode {
        case CECOpcode.standby:
            guard toMe || m.isBroadcast else { return out }
            if m.initiator == CECMessage.tv { tvPower = .standby }
            if displayAwake {
                out.log(.notice, "cec: the TV went to standby (\(m.initiator == CECMessage.tv ? "its remote or menu" : "logical address \(m.initiator)'s Standby")): the display sleeps")
                out.requests.append(.sleepForTV)
            }
        case CECOpcode.reportPowerStatus where m.initiator == CECMessage.tv:
            guard let byte = m.operands.first, let power = CECPowerStatus(rawValue: byte) else { return out }
            let before = tvPower
            tvPower = power
            if power.isOn, before.map({ !$0.isOn }) ?? false {
                out.log(.info, "cec: the TV reports it is \(power) again")
                out.requests.append(.wakeForTV)
            }
        case CECOpcode.activeSource:
            guard let address = m.addressOperand, address != physicalAddress || m.initiator != me else { return out }
            if isActiveSource || address != physicalAddress {
                out.log(.info, "cec: another source took the TV: logical address \(m.initiator) at \(address)")
            }
            isActiveSource = false
            activeSourcePending = false
            if m.initiator == CECMessage.tv { tvPower = .on }
        case CECOpcode.setStreamPath:
            // The TV's input chose the kiosk.
            guard let address = m.addressOperand, address == physicalAddress, physicalAddress.isValid else { return out }
            if displayAwake, let me = logicalAddress {
                isActiveSource = true
                out.send.append(.activeSource(from: me, physicalAddress))
            } else if !displayAwake {
                out.requests.append(.wakeForTV)
            }
        case CECOpcode.requestActiveSource:
            if displayAwake, isActiveSource, physicalAddress.isValid, let me = logicalAddress {
                out.send.append(.activeSource(from: me, physicalAddress))
            }
        case CECOpcode.giveDevicePowerStatus where toMe:
            out.send.append(.reportPowerStatus(from: me, to: m.initiator, displayAwake ? .on : .standby))
        case CECOpcode.giveOSDName where toMe:
            out.send.append(.setOSDName(from: me, to: m.initiator, name))
        case CECOpcode.abort where toMe:
            out.send.append(.featureAbort(from: me, to: m.initiator, opcode: opcode, reason: 4))
        default:
            // A question the kiosk cannot answer is refused, as the follower must; answers and
            // broadcasts are not.
            if toMe, !Self.answers.contains(opcode) {
                out.send.append(.featureAbort(from: me, to: m.initiator, opcode: opcode))
            }
        }
        return out
    }

    /// Messages that answer or announce: never refused.
    static let answers: Set<UInt8> = [
        CECOpcode.featureAbort, CECOpcode.reportPowerStatus, CECOpcode.setOSDName, CECOpcode.cecVersion,
        CECOpcode.deviceVendorID, CECOpcode.reportPhysicalAddress, CECOpcode.menuStatus, CECOpcode.routingInformation,
        CECOpcode.standby, CECOpcode.activeSource, CECOpcode.routingChange, CECOpcode.setStreamPath,
        CECOpcode.requestActiveSource,
    ]

    /// How a frame the kiosk sent ended. Failures to reach the TV are logged once per spell.
    public mutating func transmitted(_ m: CECMessage, _ result: CECTransmitResult, at now: TimeStamp) -> Output {
        var out = Output()
        guard m.destination == CECMessage.tv else {
            if case .failed(let why) = result, failures.noteFirst() {
                out.log(.warning, "cec: \(m) failed (\(why)); the kiosk plays on")
            }
            return out
        }
        switch result {
        case .acknowledged:
            if failures.count > 0 {
                out.log(.info, "cec: the TV answers again (after \(failures.count) failed message\(failures.count == 1 ? "" : "s"))")
                failures.reset()
            }
        case .notAcknowledged, .failed:
            if m.opcode == CECOpcode.giveDevicePowerStatus { tvPower = nil }
            if failures.noteFirst() {
                out.log(.warning, "cec: the TV did not take \(m) (\(result)): is it unplugged, or off at the wall? "
                        + "The kiosk plays on and says so once until the TV answers again")
            }
        }
        return out
    }

    private mutating func switchOn(_ out: inout Output, at now: TimeStamp) {
        standbyPending = false
        // Image View On even without a physical address (a TV in standby often drops hotplug):
        // from "unregistered" when nothing is claimed.
        out.send.append(.imageViewOn(from: me))
        if physicalAddress.isValid, let me = logicalAddress {
            out.send.append(.activeSource(from: me, physicalAddress))
            isActiveSource = true
            activeSourcePending = false
            out.log(.info, "cec: the TV on: Image View On, Active Source \(physicalAddress)")
        } else {
            activeSourcePending = true
            out.log(.info, "cec: the TV on: Image View On; Active Source once the physical address is known (now \(physicalAddress))")
        }
        nextPoll = now + Self.afterCommand
    }

    private mutating func switchOff(_ out: inout Output, at now: TimeStamp) {
        activeSourcePending = false
        isActiveSource = false
        guard let me = logicalAddress else {
            standbyPending = true
            out.log(.info, "cec: no logical address yet (claiming, or the TV's hotplug is down): Standby once there is one")
            return
        }
        out.send.append(.standby(from: me))
        out.log(.info, "cec: the TV to standby")
        nextPoll = now + Self.afterCommand
    }
}

/// The TV as the kiosk sees it over CEC, for `devices`, the metrics and the MQTT state.
public struct TVStatus: Equatable, Sendable {
    public var physicalAddress: PhysicalAddress
    public var logicalAddress: UInt8?
    /// What the TV said of its power last; nil: no answer.
    public var tvPower: CECPowerStatus?
    public var activeSource: Bool

    public init(physicalAddress: PhysicalAddress, logicalAddress: UInt8?, tvPower: CECPowerStatus?, activeSource: Bool) {
        self.physicalAddress = physicalAddress
        self.logicalAddress = logicalAddress
        self.tvPower = tvPower
        self.activeSource = activeSource
    }

    /// The MQTT state's `tv`: `on`, `standby` (also on their way there) or `unknown`.
    public var stateWord: String {
        guard let power = tvPower else { return "unknown" }
        return power.isOn ? "on" : "standby"
    }
}
