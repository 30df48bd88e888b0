import Glibc
import KioskCore
import KioskPlatform

/// Where fleet control's messages go: the MQTT connection, or a recorder (tests, the bench).
public protocol FleetLink: AnyObject {
    /// Queues `message`; false when it was not taken (offline, the queue full). Never blocks.
    @discardableResult func publish(_ message: MQTTMessage) -> Bool
    /// Sends `farewell` if it can, then closes (bounded in time).
    func stop(farewell: MQTTMessage?)
}

extension MQTTConnection: FleetLink {}

/// Fleet control over MQTT (`[mqtt]`): the kiosk's availability, state and events on the
/// broker, Home Assistant discovery, and the commands an operator sends from afar (display,
/// brightness, volume, touch test, reload, restart, screenshot). `FleetNames` has the topics.
///
/// The connection (`MQTTConnection`) runs on a thread of its own and hands what it hears to the
/// loop through a mailbox; publishing only queues. A broker that is away costs nothing but a
/// log line when it goes and one when it is back: the game never waits for it.
public final class FleetLayer: KioskLayer {
    /// Opens the link to the broker and starts it on the loop; `deliver` hears it on the loop.
    public typealias Connect = (MQTTEndpoint, EventLoop, @escaping ([MQTTNotice]) -> Void) throws -> FleetLink

    /// The real link: libmosquitto on a thread of its own.
    public static func mosquitto(_ endpoint: MQTTEndpoint, _ loop: EventLoop,
                                 _ deliver: @escaping ([MQTTNotice]) -> Void) throws -> FleetLink {
        let connection = try MQTTConnection(endpoint: endpoint)
        try connection.start(on: loop, deliver)
        return connection
    }

    /// The link, while `[mqtt] broker` is set and could be used.
    public private(set) var connection: FleetLink?
    private let connect: Connect
    public private(set) var names: FleetNames?
    public internal(set) var discovery: HomeAssistantDiscovery?
    /// Commands carried out, and messages refused or dropped, since the start.
    public internal(set) var commandsDone = 0
    public internal(set) var commandsRefused = 0
    private let hostName: () -> String
    weak var host: LayerHost?
    private var settings = MQTTSettings()
    private var broker: MQTTBroker?
    private var pacing = FleetStatePacing()
    var limiter = FleetCommandLimiter()
    private var stateTimer: EventLoop.TimerID?
    /// Per topic, the first bad payload of a spell is logged (a good one ends the spell).
    var refusals: [FleetCommand.Topic?: RateLimitedLog] = [:]
    /// Per topic, retained and oversized messages: said once, and then at 2, 4, 8... of them.
    var retainedSeen: [String: RateLimitedLog] = [:]
    var oversizedSeen: [String: RateLimitedLog] = [:]
    var noBacklight = RateLimitedLog()
    /// Home Assistant's `online` answered at most once per 10 s.
    var resendPacing = DiscoveryResendPacing()
    var resendTimer: EventLoop.TimerID?
    /// What `PREFIX/last_touch` said last on this connection (nil: nothing yet).
    private var lastTouchSent: String?
    /// A screen's picture being made into PNG on a thread of its own (a whole screen takes
    /// longer than a frame); one at a time, and a command meanwhile is answered by that one.
    var encoder: WorkerThread?
    var encoded: Mailbox<ScreenshotOutcome>?
    private var encodedWatch: LoopRegistration?
    /// The connection's story for the log: up or not, and the last failure said.
    private(set) var connected = false
    private var failedTries = 0
    private var lastFailure: String?

    /// - Parameters:
    ///   - hostName: where the default node id comes from.
    ///   - connect: the broker link (tests and the bench hand in a recorder).
    public init(hostName: @escaping () -> String = FleetLayer.systemHostName, connect: @escaping Connect = FleetLayer.mosquitto) {
        self.connect = connect
        self.hostName = hostName
    }

    public func attach(to host: LayerHost) {
        self.host = host
        settings = host.settings.mqtt
        guard let broker = settings.endpoint else { return }
        self.broker = broker
        let nodeID = settings.nodeID.isEmpty ? FleetNames.nodeID(fromHostName: hostName()) : settings.nodeID
        let names = FleetNames(nodeID: nodeID, topicPrefix: settings.topicPrefix.isEmpty ? nil : settings.topicPrefix)
        let discovery = HomeAssistantDiscovery(names: names, discoveryPrefix: settings.discoveryPrefix,
                                               softwareVersion: KioskVersion.current, model: "bubble-kiosk",
                                               hasBacklight: host.snapshot.brightness != nil)
        self.names = names
        self.discovery = discovery
        guard let password = readPassword() else { return }
        var endpoint = MQTTEndpoint(
            host: broker.host, port: broker.port, tls: broker.tls,
            caFile: settings.caFile, certFile: settings.certFile, keyFile: settings.keyFile,
            username: settings.username.isEmpty ? nil : settings.username, password: password,
            clientID: "bubble-kiosk-" + nodeID, keepalive: settings.keepalive,
            will: availability(FleetNames.payloadOffline),
            subscriptions: names.commandTopics + [discovery.statusTopic].compactMap { $0 },
            maximumIncomingPayload: FleetCommand.maximumPayloadBytes,
            reconnectSpread: settings.reconnectSpread)
        endpoint.retainFlagFromStoreOnly = Set([discovery.statusTopic].compactMap { $0 })
        do {
            let mailbox = try Mailbox<ScreenshotOutcome>(name: "mqtt screenshot")
            encodedWatch = mailbox.attach(to: host.loop, name: "mqtt screenshot") { [unowned self] outcomes in outcomes.forEach(screenshotDone) }
            encoded = mailbox
        } catch {
            log(.warning, "mqtt: \(error); screenshot commands will be refused")
        }
        let timer = host.loop.addTimer("mqtt-state")
        host.loop.onFire(timer) { [unowned self] _ in publishState() }
        stateTimer = timer
        let resend = host.loop.addTimer("mqtt-discovery")
        host.loop.onFire(resend) { [unowned self] now in
            let folded = resendPacing.folded
            if resendPacing.due(at: now) { resendDiscovery(folded: folded) }
        }
        resendTimer = resend
        do {
            connection = try connect(endpoint, host.loop) { [unowned self] notices in receive(notices) }
            log(.info, "mqtt: connecting to \(broker) as \(nodeID), topics under \(echoed(names.topicPrefix, limit: 100))/"
                + (discovery.statusTopic == nil ? ", no discovery" : ""))
        } catch {
            log(.error, "mqtt: \(error); the kiosk goes on without fleet control")
        }
    }

    public func handle(_ event: KioskEvent, _ facts: EventFacts) {
        guard connection != nil else { return }
        if connected, let names, let (hook, fields) = HookEventMapper.map(event, facts) {
            let payload = HookPayload(hook, time: facts.wall, fields: HookLayer.fields(for: hook, fields, host: host))
            connection?.publish(MQTTMessage(topic: names.eventTopic, payload: Array(JSON.object(payload.fields).text.utf8), retain: false))
        }
        publishState()
    }

    public func reload(_ settings: Settings) {
        guard settings.mqtt != self.settings else { return }
        log(.notice, "mqtt: [mqtt] changes take effect at the next start; the connection goes on as it was")
    }

    /// Says `offline` (retained) and disconnects; the broker would otherwise send the last will.
    public func stop() {
        stateTimer.map { host?.loop.arm($0, at: nil) }
        resendTimer.map { host?.loop.arm($0, at: nil) }
        encoder?.join()
        connection?.stop(farewell: connected ? availability(FleetNames.payloadOffline) : nil)
        connected = false
    }

    // MARK: - The connection's news

    private func receive(_ notices: [MQTTNotice]) {
        for notice in notices {
            switch notice {
            case .connected: connectionUp()
            case .lost(let why): connectionDown(why)
            case .message(let topic, let payload, let retained): take(topic: topic, payload: payload, retained: retained)
            case .oversized(let topic, let bytes): refuseOversized(topic: topic, bytes: bytes)
            case .remark(let text): log(.notice, "mqtt: " + text)
            }
        }
    }

    private func connectionUp() {
        log(.notice, "mqtt: connected to \(brokerName)" + (failedTries > 0 ? " after \(failedTries) failed tr\(failedTries == 1 ? "y" : "ies")" : ""))
        connected = true
        failedTries = 0
        lastFailure = nil
        connection?.publish(availability(FleetNames.payloadOnline))
        sendDiscovery()
        if let host { resendPacing.sent(at: host.loop.now) }
        resendTimer.map { host?.loop.arm($0, at: nil) }
        // The broker may have lost the retained state (restarted without persistence).
        pacing.resend()
        lastTouchSent = nil
        publishState()
    }

    private func connectionDown(_ why: String) {
        if connected {
            log(.warning, "mqtt: connection to \(brokerName) lost: \(why); trying again (the game goes on)")
            connected = false
            lastFailure = why
            return
        }
        failedTries += 1
        // A broker that stays away is one line, not one per try; a new reason is news.
        guard why != lastFailure else { return }
        lastFailure = why
        log(.warning, "mqtt: cannot connect to \(brokerName): \(why); trying again with growing pauses (the game goes on)")
    }

    /// The broker as the log names it.
    private var brokerName: String { broker.map { "\($0)" } ?? "?" }

    func sendDiscovery() {
        guard var discovery, let host else { return }
        discovery.hasBacklight = host.snapshot.brightness != nil
        self.discovery = discovery
        for config in discovery.configs {
            connection?.publish(MQTTMessage(topic: config.topic, payload: Array(config.payload.text.utf8), retain: true))
        }
    }

    private func availability(_ payload: String) -> MQTTMessage {
        MQTTMessage(topic: names?.availabilityTopic ?? "", payload: Array(payload.utf8), retain: true)
    }

    // MARK: - State

    /// What `PREFIX/state` says now.
    public var state: FleetState? {
        guard let host else { return nil }
        let kiosk = host.snapshot
        let game = kiosk.game
        let highScore = max(kiosk.scoreBoard.lists.values.compactMap { $0.allTime.first }.max() ?? 0, kiosk.bestAnnounced)
        return FleetState(
            screen: kiosk.onScreen.fleetScreen, mode: game.round?.mode ?? game.modes.first ?? .classic,
            score: game.round?.score ?? 0, displayOn: !kiosk.asleep, brightness: kiosk.brightness,
            volume: Int(((kiosk.volume ?? host.settings.sounds.volume) * 100).rounded()),
            roundsToday: roundsToday(kiosk, host), highScore: highScore,
            lastTouch: kiosk.activity.lastTouch.map { host.wallClock.wallTime(at: $0) },
            touchscreens: kiosk.liveFigures.touchscreens ?? 0,
            version: KioskVersion.current, uptime: host.loop.now - kiosk.startTime, tv: kiosk.tv?.stateWord)
    }

    /// Rounds people started today: this process's, and those of earlier runs the score store
    /// counted at the start (a restart at noon does not start the day again).
    private func roundsToday(_ kiosk: KioskSnapshot, _ host: LayerHost) -> Int {
        let today = host.wallClock.local(at: host.loop.now).day.number
        let before = kiosk.scoreBoard.roundsBeforeStart.flatMap { $0.day == today ? $0.rounds : nil } ?? 0
        return before + kiosk.roundsByDay.count(onDay: today)
    }

    /// Publishes the state if pacing allows, and arms the timer for the next look.
    func publishState() {
        guard connected, let names, let host, let state, let stateTimer else { return }
        let step = pacing.update(state, at: host.loop.now)
        if let send = step.send {
            connection?.publish(MQTTMessage(topic: names.stateTopic, payload: Array(send.json.text.utf8), retain: true))
            publishLastTouch(send, names)
            // The backlight came or went (a write failed): the light's brightness with it.
            if let discovery, discovery.hasBacklight != (send.brightness != nil) { sendDiscovery() }
        }
        host.loop.arm(stateTimer, at: step.next)
    }

    /// `PREFIX/last_touch` when the state's last touch changed (Home Assistant's timestamp
    /// sensor reads it there); nothing before the first touch.
    private func publishLastTouch(_ state: FleetState, _ names: FleetNames) {
        guard let time = state.lastTouch else { return }
        let text = ClockText.iso8601(time)
        guard text != lastTouchSent else { return }
        if connection?.publish(MQTTMessage(topic: names.lastTouchTopic, payload: Array(text.utf8), retain: true)) == true {
            lastTouchSent = text
        }
    }

    // MARK: - Helpers

    /// The password from `password_file` (its first line, whatever ends it); nil after one line
    /// saying why, and then MQTT stays off: a kiosk that cannot log in would only try again and
    /// again. `.some(nil)` when no password is configured.
    private func readPassword() -> String?? {
        guard let path = settings.passwordFile else { return .some(nil) }
        let shown = echoed(path, limit: 200)
        do {
            let bytes = try FileSystem.readBytes(path, limit: 4096)
            if settings.username.isEmpty {
                log(.warning, "mqtt: password_file is set but username is not: the password is not used")
                return .some(nil)
            }
            let (password, warning) = MQTTPasswordFile.password(from: bytes)
            if let warning { log(.warning, "mqtt: password_file \(shown): \(warning)") }
            return .some(password)
        } catch let error as SystemError {
            log(.error, "mqtt: password_file \(shown): \(error.reason); the kiosk goes on without fleet control")
        } catch {
            log(.error, "mqtt: password_file \(shown): \(error); the kiosk goes on without fleet control")
        }
        return nil
    }

    func log(_ level: Console.Level, _ message: String) {
        host?.log(level, message)
    }

    /// The machine's host name (the default node id).
    public static func systemHostName() -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return "" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
