internal import CLinux
#if canImport(Glibc)
import Glibc
#endif
import KioskCore

/// One HDMI-CEC adapter (`/dev/cecN`) through the kernel's CEC framework: the Raspberry Pi's
/// vc4 HDMI ports, USB adapters (pulse8-cec), the vivid test driver. The kernel claims the
/// logical address, answers the bus's routine questions and retries frames; the kiosk says what
/// to send and reads what comes (`TVPowerControl` decides).
public final class CECAdapter {
    public let path: String
    /// The driver's and the adapter's names (`vc4`, `vc4-hdmi-0`).
    public let driver: String
    public let name: String
    let capabilities: UInt32
    let fd: FileDescriptor

    /// Opens the adapter, non-blocking for the poll loop (a frame's result then comes back
    /// through `receive`), blocking for a question that waits for its answer (`devices`).
    public init(path: String, blocking: Bool = false) throws {
        self.path = path
        let fd = try FileDescriptor.open(path, O_RDWR | O_CLOEXEC | (blocking ? 0 : O_NONBLOCK))
        var caps = cec_caps()
        try retryingInterrupts("CEC_ADAP_G_CAPS", path) { CLinux_cec_caps(fd.rawValue, &caps) }
        self.fd = fd
        driver = Self.text(of: &caps.driver)
        name = Self.text(of: &caps.name)
        capabilities = caps.capabilities
    }

    /// The device nodes there are, `/dev/cec0` first.
    public static func devicePaths(directory: String = "/dev") -> [String] {
        let names = (try? FileSystem.listDirectory(directory)) ?? []
        return names.compactMap { n -> (Int, String)? in
            guard n.hasPrefix("cec"), let i = Int(n.dropFirst(3)) else { return nil }
            return (i, directory + "/" + n)
        }.sorted { $0.0 < $1.0 }.map(\.1)
    }

    /// The adapter can claim logical addresses itself (every HDMI port and USB adapter can).
    public var canClaim: Bool { capabilities & CLinux_CEC_CAP_LOG_ADDRS != 0 }

    /// The DRM card and connector id the adapter belongs to, where the driver says (vc4 does;
    /// USB adapters and vivid do not).
    public var drmConnector: DRMConnectorRef? {
        guard capabilities & CLinux_CEC_CAP_CONNECTOR_INFO != 0 else { return nil }
        var info = cec_connector_info()
        guard uninterrupted({ CLinux_cec_connector(fd.rawValue, &info) }) == 0,
              info.type == CLinux_CEC_CONNECTOR_TYPE_DRM else { return nil }
        return DRMConnectorRef(card: Int(info.drm.card_no), connectorID: info.drm.connector_id)
    }

    /// The adapter leaves its physical address to software (USB adapters such as Pulse-Eight's;
    /// an HDMI port's driver sets its own from the EDID).
    public var needsPhysicalAddress: Bool { capabilities & CLinux_CEC_CAP_PHYS_ADDR != 0 }

    /// Gives such an adapter its physical address (the kernel then claims logical addresses).
    public func setPhysicalAddress(_ address: PhysicalAddress) throws {
        var value = address.value
        try retryingInterrupts("CEC_ADAP_S_PHYS_ADDR", path) { CLinux_cec_set_phys_addr(fd.rawValue, &value) }
    }

    public func physicalAddress() throws -> PhysicalAddress {
        var value: UInt16 = 0xffff
        try retryingInterrupts("CEC_ADAP_G_PHYS_ADDR", path) { CLinux_cec_phys_addr(fd.rawValue, &value) }
        return PhysicalAddress(value)
    }

    /// The logical addresses claimed now and the OSD name they were claimed with.
    public func claimed() throws -> (addresses: [UInt8], osdName: String) {
        var las = cec_log_addrs()
        try retryingInterrupts("CEC_ADAP_G_LOG_ADDRS", path) { CLinux_cec_log_addrs(fd.rawValue, &las) }
        let all = withUnsafeBytes(of: las.log_addr) { Array($0) }
        let addresses = all.prefix(Int(min(las.num_log_addrs, 4))).filter { $0 != 0xff }
        return (addresses, Self.text(of: &las.osd_name))
    }

    /// Claims a Playback address named `osdName`, as initiator and follower. On this
    /// non-blocking descriptor the claim finishes later: a state event says with which address.
    public func claimPlayback(osdName: String) throws {
        try retryingInterrupts("CEC_S_MODE", path) { CLinux_cec_set_follower(fd.rawValue) }
        try retryingInterrupts("CEC_ADAP_S_LOG_ADDRS", path) { CLinux_cec_claim_playback(fd.rawValue, osdName) }
    }

    /// Queues `message`; returns its sequence number, which its result carries.
    @discardableResult
    public func transmit(_ message: CECMessage) throws -> UInt32 {
        let bytes = message.bytes
        let sequence = try retryingInterrupts("CEC_TRANSMIT", "\(path) \(message)") {
            bytes.withUnsafeBufferPointer { CLinux_cec_transmit(fd.rawValue, $0.baseAddress, UInt32($0.count)) }
        }
        return UInt32(truncatingIfNeeded: sequence)
    }

    /// Sends `message` and waits up to `timeout` for the answer with opcode `reply` (a blocking
    /// adapter); nil when none came.
    public func ask(_ message: CECMessage, reply: UInt8, timeout: Duration) throws -> CECMessage? {
        let bytes = message.bytes
        var answer = [UInt8](repeating: 0, count: CECMessage.maximumLength)
        let ms = UInt32(max(min(timeout.inMilliseconds, 10_000), 1))
        let n = try retryingInterrupts("CEC_TRANSMIT", "\(path) \(message)") {
            bytes.withUnsafeBufferPointer { b in
                answer.withUnsafeMutableBufferPointer { CLinux_cec_ask(fd.rawValue, b.baseAddress, UInt32(b.count), reply, ms, $0.baseAddress) }
            }
        }
        return n > 0 ? CECMessage(bytes: Array(answer.prefix(Int(n)))) : nil
    }

    /// What the adapter's queue holds next.
    public enum Incoming: Equatable {
        /// A frame from the bus.
        case frame(CECMessage)
        /// How a frame the kiosk sent ended.
        case sent(sequence: UInt32, CECTransmitResult)
    }

    /// The next frame or result; nil when none waits. Throws when the adapter is gone (ENODEV).
    public func receive() throws -> Incoming? {
        var bytes = [UInt8](repeating: 0, count: CECMessage.maximumLength)
        var sequence: UInt32 = 0
        var status: UInt8 = 0
        let n = uninterrupted { bytes.withUnsafeMutableBufferPointer { CLinux_cec_receive(fd.rawValue, $0.baseAddress, &sequence, &status) } }
        if n < 0 {
            if errno == EAGAIN { return nil }
            throw SystemError("CEC_RECEIVE", path)
        }
        // A result carries the sequence number its transmit was given; a frame from the bus has none.
        if sequence != 0 || status != 0 { return .sent(sequence: sequence, Self.result(status)) }
        // An empty frame never comes; were one to, poll() wakes the loop again for what follows.
        return CECMessage(bytes: Array(bytes.prefix(Int(n)))).map { .frame($0) }
    }

    /// What a transmit status says.
    static func result(_ status: UInt8) -> CECTransmitResult {
        if status & CLinux_CEC_TX_STATUS_OK != 0 { return .acknowledged }
        if status & CLinux_CEC_TX_STATUS_NACK != 0 { return .notAcknowledged }
        var words: [String] = []
        for (bit, word) in [(1, "arbitration lost"), (3, "low drive"), (4, "error"), (5, "retries exhausted"),
                            (6, "aborted"), (7, "timeout")] where status & (1 << bit) != 0 {
            words.append(word)
        }
        return .failed(words.isEmpty ? "status 0x" + CECMessage.hex(status) : words.joined(separator: ", "))
    }

    /// An adapter event: its addresses now, or messages it dropped.
    public enum Event: Equatable {
        case state(physical: PhysicalAddress, logicalMask: UInt16)
        case lostMessages
    }

    /// The next event; nil when none waits. Throws when the adapter is gone.
    public func nextEvent() throws -> Event? {
        var physical: UInt16 = 0xffff
        var mask: UInt16 = 0
        let kind = uninterrupted { CLinux_cec_event(fd.rawValue, &physical, &mask) }
        if kind < 0 {
            if errno == EAGAIN { return nil }
            throw SystemError("CEC_DQEVENT", path)
        }
        switch kind {
        case CLinux_CEC_EVENT_STATE_CHANGE: return .state(physical: PhysicalAddress(physical), logicalMask: mask)
        case CLinux_CEC_EVENT_LOST_MSGS: return .lostMessages
        default: return try nextEvent()
        }
    }

    /// The lowest logical address in a claimed mask (the Playback one), nil for none.
    public static func logicalAddress(inMask mask: UInt16) -> UInt8? {
        (0..<15).first { mask & (1 << $0) != 0 }.map { UInt8($0) }
    }

    private static func text<T>(of field: inout T) -> String {
        withUnsafeBytes(of: &field) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
    }
}

/// What the TV layer needs of a CEC adapter: the real one, or a bus played by a test.
public protocol CECPort: AnyObject {
    var path: String { get }
    var name: String { get }
    func physicalAddress() throws -> PhysicalAddress
    /// True when the adapter leaves its physical address to software.
    var needsPhysicalAddress: Bool { get }
    func setPhysicalAddress(_ address: PhysicalAddress) throws
    func claimed() throws -> (addresses: [UInt8], osdName: String)
    func claimPlayback(osdName: String) throws
    @discardableResult func transmit(_ message: CECMessage) throws -> UInt32
    func receive() throws -> CECAdapter.Incoming?
    func nextEvent() throws -> CECAdapter.Event?
    /// Has `loop` call `body` when a frame, a result or an event waits.
    func watch(on loop: EventLoop, _ body: @escaping () -> Void) -> LoopRegistration
}

extension CECAdapter: CECPort {
    public func watch(on loop: EventLoop, _ body: @escaping () -> Void) -> LoopRegistration {
        // Frames and results are POLLIN, the adapter's events POLLPRI; a removed adapter POLLERR.
        loop.register(fd, name: "cec \(path)", urgent: true, onReadable: body)
    }
}
