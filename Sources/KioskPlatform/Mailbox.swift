internal import CLinux
import Glibc
import Synchronization

/// Messages between the loop and a worker thread (sound, score writer, hooks): a locked queue
/// plus an eventfd. The loop watches the eventfd (`attach(to:)`); a worker blocks in `wait`.
/// Posting never blocks, so neither side can stall the other.
public final class Mailbox<Message: Sendable>: Sendable {
    private let queue = Mutex<[Message]>([])
    /// The eventfd, owned (and closed) by the mailbox.
    private let counter: FileDescriptor
    /// Readable while messages are waiting.
    private var fd: Int32 { counter.rawValue }

    public init(name: String) throws {
        counter = FileDescriptor(adopting: try retryingInterrupts("eventfd", name) { CLinux_eventfd_create() })
    }

    /// Queues `message` and wakes the other side; callable from any thread.
    public func post(_ message: Message) {
        queue.withLock { $0.append(message) }
        var one: UInt64 = 1
        // EAGAIN only when the counter is near 2^64: the reader is awake anyway. An eventfd the
        // mailbox owns fails no other way short of a bug.
        let n = uninterrupted { write(fd, &one, 8) }
        assert(n == 8 || errno == EAGAIN, "eventfd write: errno \(errno)")
    }

    /// Takes every message waiting, oldest first; empty when none (never blocks).
    public func take() -> [Message] {
        var count: UInt64 = 0
        // EAGAIN: nothing was posted since the last take (the queue says what is waiting).
        let n = uninterrupted { read(fd, &count, 8) }
        assert(n == 8 || errno == EAGAIN, "eventfd read: errno \(errno)")
        return queue.withLock { q in
            let all = q
            q.removeAll(keepingCapacity: true)
            return all
        }
    }

    /// Blocks until a message comes or `timeout` passes (nil: no timeout; rounded up to whole
    /// milliseconds), then takes them.
    public func wait(timeout: Duration? = nil) -> [Message] {
        var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        let ms = timeout.map { Int32(clamping: max(0, ($0.wholeMicroseconds + 999) / 1000)) } ?? -1
        // Only ENOMEM fails it otherwise: then take what is there, the caller waits again.
        uninterrupted { poll(&pfd, 1, ms) }
        return take()
    }

    /// Has the loop deliver the messages to `handle` on its thread, for as long as the caller
    /// keeps the registration.
    public func attach(to loop: EventLoop, name: String, _ handle: @escaping ([Message]) -> Void) -> LoopRegistration {
        loop.register(counter, name: name) { [unowned self] in
            let messages = take()
            if !messages.isEmpty { handle(messages) }
        }
    }
}

/// A pthread running one closure: the kiosk's worker threads (there is no Foundation `Thread`).
/// Start workers after the event loop exists, so they inherit its blocked signal mask and
/// signals keep arriving at the loop's signalfd.
public final class WorkerThread {
    private final class Body {
        let name: String
        let run: @Sendable () -> Void
        init(_ name: String, _ run: @escaping @Sendable () -> Void) {
            self.name = name
            self.run = run
        }
    }

    private let thread: pthread_t
    private var joined = false

    public init(name: String, _ body: @escaping @Sendable () -> Void) throws {
        let box = Unmanaged.passRetained(Body(String(name.prefix(15)), body))
        var t = pthread_t()
        let r = pthread_create(&t, nil, { arg in
            let body = Unmanaged<Body>.fromOpaque(arg!).takeRetainedValue()
            // Only the name in `top -H` is lost if this fails.
            _ = CLinux_set_thread_name(body.name)
            body.run()
            return nil
        }, box.toOpaque())
        guard r == 0 else {
            box.release()
            throw SystemError("pthread_create", name, errno: r)
        }
        thread = t
    }

    /// Waits for the closure to return. Only the first call waits.
    public func join() {
        guard !joined else { return }
        joined = true
        let r = pthread_join(thread, nil)
        // EDEADLK/EINVAL/ESRCH mean a bug (joining itself, a detached thread): say so in tests.
        assert(r == 0, "pthread_join: errno \(r)")
    }
}
