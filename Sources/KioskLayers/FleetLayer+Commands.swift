import KioskCore
import KioskPlatform

/// The commands an operator sends from afar (`PREFIX/NAME/set`), and Home Assistant's status.
extension FleetLayer {
    func take(topic: String, payload: [UInt8], retained: Bool) {
        guard let names, let host else { return }
        if let status = discovery?.statusTopic, topic == status {
            // The stored `online` (a retained birth message) comes with every connection, which
            // sends the configs anyway; a live one, retained or not, is Home Assistant starting.
            if !retained, HomeAssistantDiscovery.saysOnline(payload) { homeAssistantOnline(at: host.loop.now) }
            return
        }
        let command = names.command(forTopic: topic)
        if retained {
            // From the broker's store, not from anyone now: every connection would repeat it.
            commandsRefused += 1
            if retainedSeen[topic, default: RateLimitedLog()].note() {
                let count = retainedSeen[topic]?.count ?? 1
                log(.warning, "mqtt: " + FleetCommand.retainedRefusal(topic: topic) + (count > 1 ? " (\(count) times so far)" : ""))
            }
            return
        }
        let admission = limiter.admit(command, at: host.loop.now)
        guard admission.admitted else {
            commandsRefused += 1
            if admission.log {
                let limit = limiter.limit(for: command)
                log(.warning, "mqtt: \(echoed(topic, limit: 100)): more than \(limit) message\(limit == 1 ? "" : "s") a second; "
                    + "dropping them until they slow down (\(limiter.droppedCount(command)) so far)")
            }
            return
        }
        let suffix = command?.rawValue ?? String(topic.dropFirst(min(names.topicPrefix.count + 1, topic.count)))
        switch FleetCommand.parse(topic: suffix, payload: payload) {
        case .failure(let refusal):
            commandsRefused += 1
            // An empty message clears a retained one, as the retained line advises: no fault.
            if refusals[command, default: RateLimitedLog()].noteFirst() { log(refusal.reason == .empty ? .info : .warning, "mqtt: \(refusal)") }
        case .success(let done):
            refusals[command]?.reset()
            commandsDone += 1
            host.logging(spell: Self.spellName(done.topic), newEvent: true) { carryOut(done, host: host) }
            publishState()
        }
    }

    /// How the log names a spell of one command (its lines folded when it repeats).
    static func spellName(_ topic: FleetCommand.Topic) -> String { "MQTT " + topic.rawValue }

    /// A message too large for any command, dropped unread by the connection.
    func refuseOversized(topic: String, bytes: Int) {
        commandsRefused += 1
        guard oversizedSeen[topic, default: RateLimitedLog()].note() else { return }
        let count = oversizedSeen[topic]?.count ?? 1
        log(.warning, "mqtt: " + FleetCommand.oversizedRefusal(topic: topic, bytes: bytes) + (count > 1 ? " (\(count) so far)" : ""))
    }

    /// Home Assistant (re)started and may have lost what it had not stored: the configs again,
    /// at most once per 10 s however often it says so.
    func homeAssistantOnline(at now: TimeStamp) {
        switch resendPacing.request(at: now) {
        case .sendNow:
            resendDiscovery(folded: 0)
        case .sendAt(let due):
            resendTimer.map { host?.loop.arm($0, at: due) }
        case .folded:
            break
        }
    }

    /// The configs again; `folded`: the announcements answered by this one besides the first.
    func resendDiscovery(folded: Int) {
        guard connected else { return }
        sendDiscovery()
        log(.info, "mqtt: Home Assistant said online: discovery configs sent again"
            + (folded > 1 ? " (once for \(folded) announcements within 10 s)" : ""))
    }

    private func carryOut(_ command: FleetCommand, host: LayerHost) {
        let who = "an MQTT command"
        switch command {
        case .display(let on):
            host.perform(.display(on: on), by: who)
        case .brightness(let value):
            if !host.perform(.brightness(value), by: who), noBacklight.noteFirst() {
                log(.warning, "mqtt: brightness/set: this kiosk has no backlight it can set ([display] backlight); ignored")
            }
        case .volume(let percent):
            host.perform(.volume(Double(percent) / 100), by: who)
            log(.info, "mqtt: volume set to \(percent)% (until the next reload)")
        case .touchTest(let open):
            host.perform(.touchTest(open: open), by: who)
        case .reload:
            log(.notice, "mqtt: reloading the configuration, as asked")
            host.perform(.reload, by: who)
        case .restart:
            host.perform(.operatorReset, by: who)
        case .screenshot:
            publishScreenshot(host)
        }
    }
}
