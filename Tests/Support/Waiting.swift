import Glibc
import Testing

/// Polls `condition` until it holds, pausing `interval` of real time between two polls, at
/// most `limit`; true when it held.
public func eventually(within limit: Duration, every interval: Duration = .milliseconds(10),
                       _ condition: () throws -> Bool) rethrows -> Bool {
    try eventually(within: limit, every: interval, waiting: pause(for:), condition)
}

/// Polls `condition` until it holds; true when it did. Between two polls `wait` lets `interval`
/// pass (the last time only what is left of `limit`): whatever moves the awaited thing on (a
/// run of the event loop, a wait on a mailbox), so the test waits no longer than the thing
/// needs. It gives up once the waits add up to `limit`: at least that much real time, more on
/// a loaded machine, where each poll adds its own.
public func eventually(within limit: Duration, every interval: Duration = .milliseconds(10),
                       waiting wait: (Duration) throws -> Void, _ condition: () throws -> Bool) rethrows -> Bool {
    precondition(interval > .zero, "eventually needs a positive interval")
    var left = limit
    while true {
        if try condition() { return true }
        guard left > .zero else { return false }
        let span = min(interval, left)
        try wait(span)
        left -= span
    }
}

/// Lets `span` of real time pass on purpose. A test waits for something with `eventually`; a
/// pause is for pacing (a kill at a random moment, a sender backing off) or for time nothing
/// can show has passed, and its caller says which.
public func pause(for span: Duration) {
    let (seconds, attoseconds) = span.components
    var wait = timespec(tv_sec: Int(seconds), tv_nsec: Int(attoseconds / 1_000_000_000))
    var left = timespec()
    while nanosleep(&wait, &left) != 0 && errno == EINTR { wait = left }
}

extension Tag {
    /// Tests that hold the real clock to a bound: time elapsed, a latency the code measured,
    /// what happened in so much real time, two readings a moment apart. A loaded machine can
    /// fail them while the code is right, so they sit in suites of their own with this tag,
    /// and no other test asserts on the wall clock.
    @Tag public static var timing: Self
}
