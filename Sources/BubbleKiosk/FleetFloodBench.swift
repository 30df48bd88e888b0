import KioskCore
import KioskLayers
import KioskPlatform
import KioskRuntime

/// What a flood of bad MQTT commands costs the loop: fleet control on a virtual kiosk with a
/// recording link in place of the broker, fed batches of 1,000 messages (payloads that are
/// garbage, too long or out of range, unknown topics, and valid commands far over the rate
/// limit, screenshots among them), 100 ms of virtual time apart, as the connection's mailbox would hand them over. Each
/// batch is timed in CPU time; the table sets it beside a frame's memcpy.
enum FleetFloodBench {
    struct Report {
        /// CPU time to take one batch of `batchSize` messages.
        var batch = Timing()
        var batchSize = 0
        var messages = 0
        /// Commands carried out (the rate limit lets a few valid ones through) and refused.
        var done = 0
        var refused = 0
        /// Frames drawn while the flood came, and whether the state published stayed the same
        /// apart from the volume the admitted commands set.
        var frames = 0
        var unchanged = false
    }

    /// A link that keeps count and nothing else.
    private final class CountingLink: FleetLink {
        var published = 0
        var deliver: ([MQTTNotice]) -> Void = { _ in }
        func publish(_ message: MQTTMessage) -> Bool {
            published += 1
            return true
        }
        func stop(farewell: MQTTMessage?) {}
    }

    static func measure(size: PixelSize, seed: UInt64, batches: Int = 50, batchSize: Int = 1000) throws -> Report {
        var settings = Settings()
        settings.mqtt.broker = "mqtt://bench.invalid"
        settings.mqtt.nodeID = "bench"
        var options = KioskRuntime.Options()
        options.seed = seed
        options.attractNow = true
        let kiosk = try VirtualKiosk(settings: settings, size: size, input: NoTouchInput(), options: options)
        kiosk.runtime.logger = .discard
        let link = CountingLink()
        let layer = FleetLayer(connect: { _, _, deliver in
            link.deliver = deliver
            return link
        })
        kiosk.runtime.attach(layer)
        try kiosk.runtime.start()
        kiosk.advance(by: .milliseconds(100))
        link.deliver([.connected])
        let before = layer.state
        let prefix = "bubble-kiosk/bench/"
        let junk: [(String, [UInt8])] = [
            ("display/set", Array("maybe".utf8)), ("display/set", [0xFF, 0xFE, 0x00, 0x1B]),
            ("volume/set", Array("400".utf8)), ("volume/set", Array(repeating: 0x39, count: 4096)),
            ("brightness/set", Array("-1".utf8)), ("touch_test/set", Array("sideways".utf8)),
            ("nonsense/set", Array("1".utf8)), ("display/set/extra", Array("ON".utf8)),
            // Valid, but far beyond the limit: it drops all but the first few (a screenshot a
            // second, whose PNG is made on a thread of its own).
            ("touch_test/set", Array("OFF".utf8)), ("screenshot/set", Array("PRESS".utf8)),
        ]
        var report = Report()
        report.batchSize = batchSize
        var samples: [Double] = []
        let frames = kiosk.runtime.frames
        for b in 0..<batches {
            var batch: [MQTTNotice] = []
            batch.reserveCapacity(batchSize)
            for i in 0..<batchSize {
                let (topic, payload) = junk[(i + b) % junk.count]
                batch.append(.message(topic: prefix + topic, payload: payload, retained: false))
            }
            var timer = CPUTimer()
            timer.start()
            link.deliver(batch)
            timer.stop()
            samples.append(timer.elapsedMS)
            report.messages += batchSize
            kiosk.advance(by: .milliseconds(100))
        }
        report.batch = Timing(samples)
        report.done = layer.commandsDone
        report.refused = layer.commandsRefused
        report.frames = kiosk.runtime.frames - frames
        // The demo's score moves on; what the flood could have touched must not have.
        if let before, let after = layer.state {
            let display = before.displayOn == after.displayOn
            let sound = before.volume == after.volume
            let backlight = before.brightness == after.brightness
            report.unchanged = display && sound && backlight && after.screen != .touchTest
        }
        kiosk.runtime.finish()
        return report
    }
}
