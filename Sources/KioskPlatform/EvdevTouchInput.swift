import Glibc
import KioskCore

/// Touch input from evdev touchscreens: one named node, or every touchscreen as it comes and goes.
///
/// Each device in use has its own `TouchDecoder` and a small index (the lowest free one) that
/// its frames carry in `TouchFrame.device`. `/dev/input` is watched with inotify: a touchscreen
/// that appears is used, one that vanishes has its contacts cancelled through `lost`. With
/// no touchscreen at all the kiosk runs on and waits.
///
/// Frames carry the kernel's event time on CLOCK_MONOTONIC, the clock of `EventLoop.now()` and
/// of page-flip events, so input-to-screen latency is simply the flip time minus `frame.time`.
public final class EvdevTouchInput: TouchInput {
    /// A device in use.
    private final class Member {
        let device: EvdevDevice
        /// The node it was opened as, resolved (`--input evdev:/dev/input/by-id/...` is a link).
        let node: String
        let index: Int
        var decoder: TouchDecoder
        /// The kernel refused CLOCK_MONOTONIC: events are stamped when read instead.
        var stampOnRead = false
        /// Times the kernel's buffer overflowed because the kiosk read too slowly.
        var drops = 0
        /// The loop watching its node.
        var watched: LoopRegistration?

        init(device: EvdevDevice, node: String, index: Int, decoder: TouchDecoder) {
            self.device = device
            self.node = node
            self.index = index
            self.decoder = decoder
        }
    }

    /// A node that could not be opened yet (udev may still be fixing its permissions).
    private struct Retry {
        var due: TimeStamp
        var delay: Duration
        var startedAt: TimeStamp
    }

    private let path: String?
    private let screen: PixelSize
    public var panelSize: PixelSize? { screen }
    private let grab: Bool
    private let directory: String
    private var members: [Member] = []
    private var retries: [String: Retry] = [:]
    /// Nodes that could not be opened (reported once); tried again when their permissions change.
    private var failed: Set<String> = []
    /// Nodes that are no touchscreen; looked at again only when they are created anew.
    private var notTouchscreens: Set<String> = []
    /// Hotplug notifications for `directory`, once watching: on it, or on its parent while it
    /// does not exist.
    private var notifications: FileNotifications?
    private var directoryWatch: FileNotifications.Watch?
    private var parentWatch: FileNotifications.Watch?
    private weak var loop: EventLoop?
    private var deliver: (TouchFrame) -> Void = { _ in }
    private var lost: (Int, TimeStamp) -> Void = { _, _ in }

    /// How long a new node is retried before giving up, and the first pause between tries.
    private static let retryFor = Duration.seconds(3)
    private static let firstRetry = Duration.milliseconds(10)

    /// - Parameters:
    ///   - path: one device to use (any path, links included); nil uses every touchscreen.
    ///   - screen: the size the decoder maps the device's axes onto.
    ///   - grab: take the devices for the kiosk alone (`EVIOCGRAB`).
    ///   - directory: where event nodes live (tests point it elsewhere).
    private let logger: Logger

    public init(path: String?, screen: PixelSize, grab: Bool, directory: String = "/dev/input", log: Logger) {
        logger = log.prefixed("input: ")
        self.path = path
        self.screen = screen
        self.grab = grab
        self.directory = directory
    }

    deinit {
        // The descriptors close with their owners (this input, its devices) after this.
        for m in members { m.watched?.cancel() }
    }

    public var name: String { path.map { "evdev:\($0)" } ?? "evdev:all(\(members.count))" }
    public var deviceCount: Int? { members.count }

    /// Nodes in use with their frame index, in index order.
    public var devices: [(index: Int, path: String, name: String)] {
        members.sorted { $0.index < $1.index }.map { ($0.index, $0.node, $0.device.info.name) }
    }

    public var touchDevices: [TouchTestDevice] {
        members.sorted { $0.index < $1.index }.map {
            TouchTestDevice(index: $0.index, name: $0.device.info.name, path: $0.node, info: $0.device.info)
        }
    }

    public func start(loop: EventLoop, deliver: @escaping (TouchFrame) -> Void,
                      lost: @escaping (Int, TimeStamp) -> Void) throws {
        self.loop = loop
        self.deliver = deliver
        self.lost = lost
        do {
            try watch()
        } catch {
            // The kiosk still works with what is plugged in now; only hotplug is lost.
            log(.warning, "cannot watch \(directory) for new devices: \(error)")
        }
        let now = EventLoop.now()
        if let path {
            attempt(path, at: now, retrying: false)
        } else {
            var denied: [String] = []
            for node in EvdevDevice.nodes(in: directory) {
                if let error = attempt(node, at: now, retrying: false, quiet: true), isPermission(error) {
                    denied.append(node)
                }
            }
            if !denied.isEmpty {
                log(.warning, "cannot open \(denied.joined(separator: ", ")): \(InputDeviceProbe.permissionHint)")
                if members.isEmpty { log(.warning, "no touchscreen among the readable devices; waiting for one, or for access") }
                return
            }
        }
        if members.isEmpty { log(.notice, "no touchscreen yet; waiting for one to be plugged in") }
    }

    public var nextDeadline: TimeStamp? { retries.values.map(\.due).min() }

    public func advance(to now: TimeStamp) {
        for (target, retry) in retries where retry.due <= now {
            attempt(target, at: now, retrying: true)
        }
    }

    // MARK: - Opening and closing devices

    /// Tries to open and use `target`; returns the error when it could not be opened.
    /// Hotplugged nodes (`retrying`) get another try after a short pause when they are not
    /// readable yet: udev fixes a new node's permissions a few milliseconds after it appears.
    @discardableResult
    private func attempt(_ target: String, at now: TimeStamp, retrying: Bool, quiet: Bool = false) -> SystemError? {
        let previous = retries.removeValue(forKey: target)
        guard !members.contains(where: { $0.node == resolved(target) }) else { return nil }
        do {
            let device = try EvdevDevice(path: target)
            failed.remove(target)
            // A device whose axes have no range is not used even when asked for by path.
            if let problem = device.info.axisProblem {
                log(.notice, "ignoring \(target) \"\(echoed(device.info.name))\": \(problem)")
                notTouchscreens.insert(target)
                return nil
            }
            if path == nil && !device.info.isTouchscreen {
                if case .ignored(let why) = device.info.touchscreenVerdict {
                    log(.notice, "ignoring \(target) \"\(echoed(device.info.name))\": \(why)")
                }
                notTouchscreens.insert(target)
                return nil
            }
            use(device, node: resolved(target), at: now)
            return nil
        } catch let error as SystemError {
            let notReady = [EACCES, EPERM, ENOENT, ENODEV, ENXIO].contains(error.errno)
            let started = previous?.startedAt ?? now
            if retrying && notReady && now - started < Self.retryFor {
                let delay = previous.map { min($0.delay * 2, .milliseconds(500)) } ?? Self.firstRetry
                retries[target] = Retry(due: now + delay, delay: delay, startedAt: started)
                return error
            }
            // Once per node: a node that keeps failing must not fill the journal.
            let known = failed.contains(target)
            failed.insert(target)
            if known || (quiet && isPermission(error)) { return error }
            if error.errno == ENOENT && target == path {
                log(.notice, "\(target) does not exist yet; waiting for it")
            } else {
                log(.error, "\(target): " + (isPermission(error) ? InputDeviceProbe.permissionHint : "\(error)"))
            }
            return error
        } catch {
            log(.error, "\(target): \(error)")
            return nil
        }
    }

    private func use(_ device: EvdevDevice, node: String, at now: TimeStamp) {
        guard let loop else { return }
        var index = 0
        while members.contains(where: { $0.index == index }) { index += 1 }
        let member = Member(device: device, node: node, index: index,
                            decoder: TouchDecoder(device: device.info, screen: screen, deviceIndex: index))
        do {
            try device.useMonotonicClock()
        } catch {
            member.stampOnRead = true
            log(.warning, "\(error); stamping events when read")
        }
        if grab {
            do { try device.grab() } catch { log(.warning, "cannot grab, sharing the device: \(error)") }
        }
        members.append(member)
        member.watched = loop.register(device.descriptor, name: node) { [weak self, weak member] in
            guard let self, let member else { return }
            self.readable(member)
        }
        var note = ""
        if case .ignored(let why) = device.info.touchscreenVerdict { note = "; not a touchscreen (\(why)), used as asked" }
        let kind = describe(device.info.touchProtocol)
        log(.info, "using \(node) \"\(echoed(device.info.name))\" (\(kind)) as device \(index)\(note)")
        // Fingers already down announce nothing more: read the state and treat it like a
        // resync, so they show but start no gesture until lifted.
        let (state, error) = device.initialState()
        let drop = InputEvent(time: state.first?.time ?? now, type: EventCode.EV_SYN, code: EventCode.SYN_DROPPED, value: 0)
        for event in EvdevDevice.resynchronisation(dropped: drop, state: state) {
            for frame in member.decoder.feed(stamped(event, member)) where !frame.contacts.isEmpty { deliver(frame) }
        }
        if let error { remove(member, at: EventLoop.now(), because: error) }
    }

    private func readable(_ member: Member) {
        let (events, error) = member.device.readAvailable()
        for event in events {
            if event.type == EventCode.EV_SYN && event.code == EventCode.SYN_DROPPED {
                member.drops += 1
                // 1, 2, 4, 8...: a loop that keeps falling behind shows without flooding the log.
                if member.drops & (member.drops - 1) == 0 {
                    log(.warning, "\(member.node): the kernel dropped events (read too slowly); resynchronised, "
                        + "gestures in progress cancelled (\(member.drops) time\(member.drops == 1 ? "" : "s"))")
                }
            }
            for frame in member.decoder.feed(stamped(event, member)) { deliver(frame) }
        }
        if let note = member.decoder.takeNote() { log(.warning, "\(member.node): \(note)") }
        if let error { remove(member, at: EventLoop.now(), because: error) }
    }

    private func stamped(_ event: InputEvent, _ member: Member) -> InputEvent {
        guard member.stampOnRead else { return event }
        var e = event
        e.time = EventLoop.now()
        return e
    }

    /// Stops using a device that failed or vanished; its contacts' gestures are cancelled.
    private func remove(_ member: Member, at now: TimeStamp, because error: SystemError?) {
        guard let i = members.firstIndex(where: { $0 === member }) else { return }
        member.watched?.cancel()
        members.remove(at: i)
        lost(member.index, now)
        let why = error.map { $0.errno == ENODEV ? "unplugged" : "\($0)" } ?? "node removed"
        log(.notice, "\(member.node) gone (\(why)); device \(member.index) released")
        if members.isEmpty { log(.warning, "no touchscreen left; waiting for one to be plugged in") }
    }

    // MARK: - Hotplug

    /// Watches the event directory, or its parent while the directory does not exist (devtmpfs
    /// removes `/dev/input` with its last node).
    private func watch() throws {
        guard let loop else { return }
        notifications = try FileNotifications(directory, loop: loop, log: logger) { [weak self] notices in
            guard let self else { return }
            let now = EventLoop.now()
            for n in notices { notice(n, at: now) }
        }
        try watchDirectory()
    }

    private func watchDirectory() throws {
        guard let notifications else { return }
        do {
            directoryWatch = try notifications.add(directory, for: [.created, .deleted, .attributesChanged, .movedIn, .movedOut,
                                                                    .selfDeleted, .onlyDirectory])
            if let parentWatch {
                do {
                    try notifications.remove(parentWatch, path: parentDirectory)
                } catch let error as SystemError where error.errno == EINVAL {
                    // The parent went away and took its watch along; nothing to undo then.
                } catch {
                    log(.warning, "\(error)")
                }
                self.parentWatch = nil
            }
            return
        } catch let error as SystemError where error.errno == ENOENT {
            parentWatch = try notifications.add(parentDirectory, for: [.created, .movedIn, .onlyDirectory])
        }
    }

    private var parentDirectory: String {
        let parts = directory.split(separator: "/", omittingEmptySubsequences: false).dropLast()
        let joined = parts.joined(separator: "/")
        return joined.isEmpty ? "/" : joined
    }

    private func notice(_ notice: FileNotifications.Notice, at now: TimeStamp) {
        let events = notice.events
        if events.contains(.overflow) {
            rescan(at: now)
            return
        }
        if let parentWatch, notice.watch == parentWatch {
            if "\(parentDirectory == "/" ? "" : parentDirectory)/\(notice.name)" == directory {
                try? watchDirectory()
                rescan(at: now)
            }
            return
        }
        guard let directoryWatch, notice.watch == directoryWatch else { return }
        if !events.isDisjoint(with: [.selfDeleted, .watchGone]) {
            self.directoryWatch = nil
            do { try watchDirectory() } catch { log(.warning, "cannot watch for \(directory): \(error)") }
            return
        }
        let name = notice.name
        let node = "\(directory)/\(name)"
        if !events.isDisjoint(with: [.deleted, .movedOut]) {
            retries[node] = nil
            failed.remove(node)
            notTouchscreens.remove(node)
            // Normally the read already failed with ENODEV; this catches a node removed first.
            for m in members where m.node == node { remove(m, at: now, because: nil) }
            return
        }
        guard !events.isDisjoint(with: [.created, .movedIn, .attributesChanged]) else { return }
        if let path {
            // The named path may be a link udev makes after the node: look again, with retries.
            if members.isEmpty, retries[path] == nil { retryNow(path, at: now) }
            return
        }
        guard EvdevDevice.eventNumber(name) != nil else { return }
        // A new node, or new permissions on one that was refused: try it (again).
        if events.isDisjoint(with: [.created, .movedIn]) {
            guard failed.contains(node) || retries[node] != nil else { return }
        }
        retryNow(node, at: now)
    }

    private func retryNow(_ target: String, at now: TimeStamp) {
        let started = retries[target]?.startedAt ?? now
        retries[target] = Retry(due: now, delay: Self.firstRetry / 2, startedAt: started)
        attempt(target, at: now, retrying: true)
    }

    /// After lost notifications: take up what is new, drop what is gone.
    private func rescan(at now: TimeStamp) {
        for m in members where access(m.node, F_OK) != 0 { remove(m, at: now, because: nil) }
        if let path {
            if members.isEmpty { retryNow(path, at: now) }
        } else {
            for node in EvdevDevice.nodes(in: directory) where !members.contains(where: { $0.node == node })
                && !notTouchscreens.contains(node) {
                retryNow(node, at: now)
            }
        }
    }

    // MARK: - Helpers

    private func resolved(_ target: String) -> String {
        guard let real = realpath(target, nil) else { return target }
        defer { free(real) }
        return String(cString: real)
    }

    private func isPermission(_ error: SystemError) -> Bool { error.errno == EACCES || error.errno == EPERM }

    private func describe(_ kind: TouchProtocol?) -> String {
        switch kind {
        case .multiTouchB(let slots)?: return "multi-touch protocol B, \(slots) slots"
        case .multiTouchA?: return "multi-touch protocol A"
        case .singleTouch?: return "single-touch"
        case .absolutePointer?: return "absolute pointer"
        case nil: return "no touch axes"
        }
    }

    /// Paths come from the command line and device names from the kernel: escaped, not sent raw.
    private func log(_ level: Console.Level, _ message: String) { logger(level, echoed(message, limit: 1000)) }
}
