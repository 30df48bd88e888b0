import Glibc
import KioskCore
import Synchronization

/// glibc's gettid(2) (2.30 and later), which its headers declare only with _GNU_SOURCE.
@_silgen_name("gettid") private func kioskGettid() -> Int32

/// What the sound thread measured, for `bench` and tests.
public struct SoundStats: Sendable, Equatable {
    /// One sound started: from `play` being called to the write that held its first sample
    /// returning, and the device's delay (snd_pcm_delay) right after that write.
    public struct Start: Sendable, Equatable {
        public var effect: SoundEffect
        public var eventToWriteMS: Double
        public var deviceDelayMS: Double?
        /// When the first sample is heard, counted from the event: the write, plus what was
        /// queued ahead of it (the delay less the period just written).
        public var eventToSoundMS: Double
    }
    /// The most recent starts (at most 1000).
    public var starts: [Start] = []
    public var periodsWritten = 0
    public var underruns = 0
    /// Times the stream stopped after falling idle.
    public var stops = 0
    /// Periods and buffer the device agreed to, in frames.
    public var periodFrames = 0
    public var bufferFrames = 0
    /// Problems reported (each once).
    public var problems: [String] = []
    /// Whether the stream is running (sounds playing, or the second of silence after them).
    public var streaming = false
    /// Whether a device is open.
    public var deviceOpen = false
    /// The sound thread's scheduling: `SCHED_FIFO 10`, `nice -10` or `normal`.
    public var priority = ""
    /// Settings applied (start and each reload), so tests can wait for the thread.
    public var configured = 0
}

/// The statistics, shared between the sound thread and readers.
final class SoundStatsBox: Sendable {
    private let value = Mutex(SoundStats())
    func withLock<R>(_ body: (inout SoundStats) -> R) -> R { value.withLock { body(&$0) } }
}

/// The kiosk's sounds: a thread of their own that decodes the files once, mixes every sound
/// that is playing, and writes one PCM stream to ALSA. The loop only posts to a mailbox, so
/// it never waits for audio. When nothing plays for `idleStop` the stream is drained and
/// stopped and the thread sleeps in poll until the next sound: an idle kiosk costs no CPU.
/// No device, a busy one, a file that will not decode: logged once, the game goes on silent
/// (or without that one sound).
public final class SoundPlayer {
    public enum Command: Sendable {
        case play(SoundEffect, at: TimeStamp)
        case reload(SoundSettings)
        case stop
    }

    /// Silence kept playing after the last sound before the stream stops: bursts of pops
    /// need no restart, and a kiosk at rest wakes nobody.
    public static let idleStopSeconds = 1.0
    /// A device that failed is tried again on a sound after 1 s, then 2, 4, ... at most this long.
    public static let longestRetryPause = Duration.seconds(60)

    private let mailbox: Mailbox<Command>
    private var thread: WorkerThread?
    private let statsBox = SoundStatsBox()

    /// Starts the sound thread (after the event loop exists, so it inherits the blocked
    /// signals). `installed` is where `auto` looks for the default files. `log` takes each
    /// problem once, from the sound thread.
    public init(settings: SoundSettings, installed: String = SoundDecoder.installedDirectory, log: Logger) throws {
        mailbox = try Mailbox(name: "sounds")
        let stats = statsBox
        let box = mailbox
        thread = try WorkerThread(name: "sounds") {
            var engine = SoundEngine(mailbox: box, stats: stats, installed: installed, log: log)
            engine.run(settings)
        }
    }

    deinit { stop() }

    /// The player, or nil after one log line when its thread cannot be made: the kiosk then
    /// runs silent rather than not at all.
    public static func start(settings: SoundSettings, log: Logger) -> SoundPlayer? {
        do {
            return try SoundPlayer(settings: settings, log: log)
        } catch {
            log(.warning, "sounds: cannot start the sound thread: \(error); the kiosk plays without sound")
            return nil
        }
    }

    /// Plays `effect` now (any thread; never blocks).
    public func play(_ effect: SoundEffect) {
        mailbox.post(.play(effect, at: EventLoop.now()))
    }

    /// Takes over reloaded settings: files decoded again and the device reopened on the
    /// sound thread when they changed.
    public func reload(_ settings: SoundSettings) { mailbox.post(.reload(settings)) }

    /// Lets what is playing finish (at most a buffer) and ends the thread.
    public func stop() {
        guard let t = thread else { return }
        mailbox.post(.stop)
        t.join()
        thread = nil
    }

    public var stats: SoundStats { statsBox.withLock { $0 } }
}

/// The sound thread's state; lives on that thread only.
struct SoundEngine {
    let mailbox: Mailbox<SoundPlayer.Command>
    let stats: SoundStatsBox
    let installed: String
    let log: Logger
    var settings = SoundSettings()
    var clips: [SoundEffect: SoundClip] = [:]
    var output: ALSAOutput?
    var mixer = AudioMixer()
    var running = false
    var idleFrames = 0
    /// When a failed device may be tried again, and the pause after the next failure.
    var retryAt: TimeStamp?
    var retryPause = Duration.seconds(1)
    var reported: [String: RateLimitedLog] = [:]
    /// The device failed (at open or later): its coming back is worth a line.
    var deviceFailed = false
    /// Underruns are logged on their 1st, 2nd, 4th, 8th... occurrence.
    var underrunLog = RateLimitedLog()
    var underrunsSeen = 0
    /// A device coming back is logged on its 1st, 2nd, 4th... return (a flapping device).
    var recoveryLog = RateLimitedLog()
    /// Sounds started in the period being written, with their events' times.
    var pending: [(SoundEffect, TimeStamp)] = []
    var block: [Int16] = []

    init(mailbox: Mailbox<SoundPlayer.Command>, stats: SoundStatsBox, installed: String,
         log: Logger) {
        self.mailbox = mailbox
        self.stats = stats
        self.installed = installed
        self.log = log
    }

    mutating func run(_ initial: SoundSettings) {
        // Decoding and synthesising take a while (seconds on a slow board): at normal priority,
        // so they never delay the first frame. Only the streaming runs raised.
        apply(initial, first: true)
        let priority = Self.raisePriority()
        stats.withLock { $0.priority = priority }
        while true {
            // Stopped: sleep until a message comes. Playing: take what came during the last
            // write without waiting (the blocking write paces the loop).
            let messages = running ? mailbox.take() : mailbox.wait()
            for m in messages {
                switch m {
                case .play(let effect, let time): start(effect, postedAt: time)
                case .reload(let s): apply(s, first: false)
                case .stop:
                    if running { output?.drain() }
                    return
                }
            }
            if running { writePeriod() }
        }
    }

    /// Audio threads run ahead of the renderer: real-time (SCHED_FIFO 10, as PipeWire's) where
    /// allowed (root, CAP_SYS_NICE or RLIMIT_RTPRIO), else nice -10, else as they are. The
    /// thread mostly sleeps in a blocking write, so this costs nothing, but on a busy CPU it
    /// wakes in time for the next period instead of after the renderer's time slice.
    static func raisePriority() -> String {
        var param = sched_param()
        param.sched_priority = 10
        if pthread_setschedparam(pthread_self(), SCHED_FIFO, &param) == 0 { return "SCHED_FIFO 10" }
        if setpriority(__priority_which_t(PRIO_PROCESS.rawValue), id_t(kioskGettid()), -10) == 0 { return "nice -10" }
        return "normal"
    }

    /// Back to normal scheduling for work that takes long; true when the thread was raised.
    static func lowerPriority() -> Bool {
        var param = sched_param()
        var policy: Int32 = 0
        guard pthread_getschedparam(pthread_self(), &policy, &param) == 0, policy == SCHED_FIFO else { return false }
        param.sched_priority = 0
        return pthread_setschedparam(pthread_self(), SCHED_OTHER, &param) == 0
    }

    mutating func report(_ level: Console.Level, _ message: String) {
        guard reported[message, default: RateLimitedLog()].noteFirst() else { return }
        stats.withLock { $0.problems.append(message) }
        log(level, message)
    }

    mutating func apply(_ new: SoundSettings, first: Bool) {
        let old = settings
        settings = new
        mixer.volume = Float(new.volume)
        if first || (new.enabled && !old.enabled) || SoundEffect.allCases.contains(where: { old.file(for: $0) != new.file(for: $0) }) {
            // A reload's decoding, too, runs at normal priority.
            let raised = !first && Self.lowerPriority()
            defer { if raised { _ = Self.raisePriority() } }
            var problems: [String] = []
            var loaded: [SoundEffect: SoundClip] = [:]
            if new.enabled {
                for e in SoundEffect.allCases {
                    if let c = SoundDecoder.clip(for: e, settings: new, installed: installed, problems: &problems) { loaded[e] = c }
                }
            }
            clips = loaded
            for p in problems { report(.warning, p) }
        }
        if !new.enabled || (output != nil && old.device != new.device) { close() }
        if new.enabled && output == nil { open() }
        stats.withLock { $0.configured += 1 }
    }

    mutating func open() {
        do {
            let out = try ALSAOutput(device: settings.device, log: log)
            output = out
            underrunsSeen = 0
            stats.withLock {
                $0.deviceOpen = true
                $0.periodFrames = out.periodFrames
                $0.bufferFrames = out.bufferFrames
            }
            if deviceFailed && recoveryLog.note() { log(.info, "sounds: playing on ALSA device '\(echoed(settings.device, limit: 100))' again") }
            deviceFailed = false
            retryAt = nil
            retryPause = .seconds(1)
        } catch {
            failed()
            report(.warning, "sounds: \(error); the kiosk plays without sound")
        }
    }

    mutating func close() {
        if running { output?.drain() }
        output = nil
        running = false
        mixer.silence()
        stats.withLock { $0.deviceOpen = false }
    }

    mutating func start(_ effect: SoundEffect, postedAt: TimeStamp) {
        guard settings.enabled, let clip = clips[effect] else { return }
        if output == nil, let at = retryAt, EventLoop.now() >= at { open() }
        guard let output else { return }
        if !running {
            do {
                try output.prepare()
            } catch {
                fail(error)
                return
            }
            running = true
        }
        idleFrames = 0
        mixer.start(clip)
        pending.append((effect, postedAt))
    }

    mutating func writePeriod() {
        guard let output else { running = false; return }
        let frames = output.periodFrames
        mixer.render(frames: frames, into: &block)
        do {
            try output.write(block)
        } catch {
            fail(error)
            return
        }
        let now = EventLoop.now()
        let delay = pending.isEmpty ? nil : output.delayFrames()
        let rate = Double(SoundClip.outputRate)
        let starts = pending.map { effect, at -> SoundStats.Start in
            let write = Double(now.microseconds - at.microseconds) / 1000
            let delayMS = delay.map { Double($0) / rate * 1000 }
            let ahead = delay.map { Double(max(0, $0 - frames)) / rate * 1000 } ?? 0
            return SoundStats.Start(effect: effect, eventToWriteMS: write, deviceDelayMS: delayMS, eventToSoundMS: write + ahead)
        }
        pending.removeAll()
        if mixer.isIdle { idleFrames += frames }
        let stop = idleFrames >= Int(SoundPlayer.idleStopSeconds * rate)
        if stop {
            output.drain()
            running = false
            idleFrames = 0
        }
        let underruns = output.underruns
        while underrunsSeen < underruns {
            underrunsSeen += 1
            if underrunLog.note() {
                log(.warning, "sounds: underrun \(underrunsSeen) on ALSA device '\(echoed(settings.device, limit: 100))' (the sound thread was late); recovered")
            }
        }
        stats.withLock {
            $0.starts += starts
            if $0.starts.count > 1000 { $0.starts.removeFirst($0.starts.count - 1000) }
            $0.periodsWritten += 1
            $0.streaming = !stop
            $0.underruns = underruns
            if stop { $0.stops += 1 }
        }
    }

    /// Notes a device failure: the next try waits twice as long as the last (1 s to 60 s).
    mutating func failed() {
        deviceFailed = true
        retryAt = EventLoop.now() + retryPause
        retryPause = min(retryPause * 2, SoundPlayer.longestRetryPause)
    }

    mutating func fail(_ error: SoundDeviceError) {
        failed()
        report(.warning, "sounds: \(error); the kiosk plays without sound")
        output = nil
        running = false
        mixer.silence()
        pending.removeAll()
        stats.withLock { $0.deviceOpen = false }
    }
}
