import KioskCore
import KioskPlatform
import KioskTestSupport

extension EventLoop {
    /// Runs this real loop (waiting in poll, as the kiosk does) until `condition` holds, checked
    /// every `interval`, at most `limit`; true when it held. `eventually` with the loop's own
    /// wait in place of a pause: what the loop serves meanwhile is served at once.
    func eventually(within limit: Duration, every interval: Duration = .milliseconds(10),
                    _ condition: () throws -> Bool) throws -> Bool {
        let end = addTimer("test wait") { [unowned self] _ in stop() }
        defer { arm(end, at: nil) }
        return try KioskTestSupport.eventually(within: limit, every: interval, waiting: { span in
            arm(end, at: now + span)
            try run()
        }, condition)
    }
}
