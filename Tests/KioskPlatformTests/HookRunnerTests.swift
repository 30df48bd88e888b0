import Glibc
import KioskCore
import KioskPlatform
import Testing
import KioskTestSupport

/// Hooks as real processes on the real monotonic loop: what a hook is given, and how the loop
/// keeps hung, noisy, missing and too frequent hooks from hurting the kiosk.
@Suite(.serialized) struct HookRunnerTests {
    /// A temporary folder, a real loop with the kiosk's signals blocked, and the runner's log.
    final class Harness {
        let dir: String
        let loop: EventLoop
        let log = LogLines()
        var logs: [String] { log.all }
        var runner: HookRunner!
        /// Iterations of a 10 ms timer: the loop kept going while hooks ran.
        var ticks = 0

        init() throws {
            dir = makeTemporaryDirectory("bubble-hooks")
            loop = try EventLoop(signals: [SIGHUP, SIGUSR1])
        }

        deinit { removeTree(dir) }

        func start(_ settings: HookSettings, environment: [String]? = nil) {
            runner = HookRunner(settings: settings, loop: loop, environment: environment, log: Logger { [log] in log.add($1) })
        }

        /// Writes an executable shell script and returns its path.
        @discardableResult
        func script(_ name: String, _ body: String, mode: mode_t = 0o755) throws -> String {
            let path = dir + "/" + name
            writeFile(path, "#!/bin/sh\n" + body + "\n")
            chmod(path, mode)
            return path
        }

        func read(_ name: String) -> String? { readText(dir + "/" + name) }

        func exists(_ name: String) -> Bool { access(dir + "/" + name, F_OK) == 0 }

        /// Starts the runner with hooks that never end by themselves: `idle` runs
        /// `stubbornGroup`, `pop` writes its pid to the file `popPID` and sleeps.
        func startHangingHooks(timeout: Duration, popPID: String) throws {
            try script("stubborn", HookRunnerTests.stubbornGroup)
            try script("sleeper", "echo $$ > \"$1/\(popPID)\"; exec sleep 300")
            var settings = HookSettings()
            settings.idle = "\(dir)/stubborn \(dir)"
            settings.pop = "\(dir)/sleeper \(dir)"
            settings.timeout = timeout
            start(settings)
        }

        /// Runs the loop until `done` holds (checked every 10 ms) or `seconds` pass; true when done.
        @discardableResult
        func run(seconds: Double, until done: () -> Bool) throws -> Bool {
            try loop.eventually(within: .seconds(seconds)) {
                ticks += 1
                return done()
            }
        }

        func lines(containing text: String) -> [String] { logs.filter { $0.contains(text) } }
    }

    /// A hook that ignores SIGTERM and leaves a child of its own in the background; it writes
    /// both pids (`pid`, `grandchild`) into the folder it is given.
    static let stubbornGroup = """
        trap '' TERM
        sleep 300 &
        echo $! > "$1/grandchild"
        echo $$ > "$1/pid"
        sleep 300
        """

    /// Whether process `pid` is gone (a zombie waiting for a reaper that is not us counts as gone).
    /// A SIGKILL sent to a group is acted on when each process next runs: on a loaded machine
    /// that can be a moment after `kill` returned, so this looks for up to a second.
    static func isGone(_ pid: pid_t) -> Bool {
        eventually(within: .seconds(1)) { isGoneNow(pid) }
    }

    static func isGoneNow(_ pid: pid_t) -> Bool {
        if kill(pid, 0) != 0 { return true }
        guard let stat = readBytes("/proc/\(pid)/stat"), let close = stat.lastIndex(of: UInt8(ascii: ")")),
              close + 2 < stat.count else { return true }
        return stat[close + 2] == UInt8(ascii: "Z")
    }

    @Test func aHookGetsItsEventInTheEnvironmentAndOnStandardInput() throws {
        let h = try Harness()
        // A descriptor the kiosk has open without close-on-exec: the hook must not get it.
        let probe = h.dir + "/leak-probe"
        writeFile(probe, "x")
        let leaked = open(probe, O_RDONLY)
        defer { close(leaked) }
        try h.script("record", """
            out="$1"; shift
            env > "$out/env"
            cat > "$out/stdin"
            for a in "$@"; do printf '%s\\n' "$a"; done > "$out/argv"
            grep -E '^Sig(Blk|Ign):' /proc/self/status > "$out/signals"
            ls -l /proc/$$/fd > "$out/fds"
            cut -d' ' -f5 /proc/$$/stat > "$out/pgid"
            echo $$ > "$out/pid"
            """)
        var settings = HookSettings()
        settings.pop = "record '\(h.dir)' 'two words' \"$(touch \(h.dir)/pwned1)\" '; touch \(h.dir)/pwned2' back\\ slash"
        h.start(settings, environment: ["PATH=\(h.dir):/usr/bin:/bin", "NOTIFY_SOCKET=/run/systemd/notify",
                                         "WATCHDOG_USEC=1000000", "WATCHDOG_PID=1", "BUBBLE_SCORE=999", "KEEP=kept",
                                         "BUBBLE_KIOSK_CONFIG_DIR=/etc/x"])
        let evil = "$(touch \(h.dir)/pwned3); touch \(h.dir)/pwned4 `touch \(h.dir)/pwned5`"
        h.runner.fire(.pop, fields: [("mode", .string("classic")), ("score", .int(30)), ("points", .int(20)),
                                     ("id", .int(3)), ("kind", .string(evil))],
                      at: WallTime(microseconds: 1_764_572_400_250_000))
        #expect(h.runner.running == 1)
        #expect(try h.run(seconds: 10) { h.runner.running == 0 })

        let env = Set((h.read("env") ?? "").split(separator: "\n").map(String.init))
        for expected in ["BUBBLE_EVENT=pop", "BUBBLE_TIME=1764572400.25", "BUBBLE_MODE=classic", "BUBBLE_SCORE=30",
                         "BUBBLE_POINTS=20", "BUBBLE_ID=3", "BUBBLE_KIND=" + evil, "KEEP=kept",
                         "BUBBLE_KIOSK_CONFIG_DIR=/etc/x"] {
            #expect(env.contains(expected), "\(expected) in \(env)")
        }
        #expect(!env.contains { $0.hasPrefix("NOTIFY_SOCKET=") || $0.hasPrefix("WATCHDOG_") || $0 == "BUBBLE_SCORE=999" })
        #expect(h.read("stdin") == #"{"event":"pop","time":1764572400.25,"mode":"classic","score":30,"points":20,"id":3,"kind":"\#(evil)"}"# + "\n")
        #expect(h.read("argv") == "two words\n$(touch \(h.dir)/pwned1)\n; touch \(h.dir)/pwned2\nback slash\n")
        for i in 1...5 { #expect(!h.exists("pwned\(i)"), "nothing was run from the values") }
        // No signal blocked, none ignored (the kiosk blocks its signals and ignores SIGPIPE);
        // glibc's posix_spawn leaves its two internal signals (32 and 33) ignored in any child.
        let masks = (h.read("signals") ?? "").split(separator: "\n").map { UInt64($0.split(separator: "\t").last ?? "", radix: 16) }
        #expect(masks.count == 2 && masks[0] == 0 && masks[1].map { $0 & ~0x1_8000_0000 } == 0, "\(masks)")
        #expect(!(h.read("fds") ?? "leak-probe").contains("leak-probe"))
        // A process group of its own, led by the hook.
        let pid = (h.read("pid") ?? "").split(separator: "\n").first.map(String.init)
        #expect(pid != nil && h.read("pgid")?.split(separator: "\n").first.map(String.init) == pid)
        #expect(h.lines(containing: "hook pop[").contains { $0.contains("exited with status 0 after ") && $0.hasSuffix(" s") })
    }

    /// Output is logged with the hook's name, a line at most `maximumLineBytes` long and at
    /// most `maximumLines` lines, then one truncation line; an endless writer is cut off.
    @Test func floodingOutputIsBounded() throws {
        let h = try Harness()
        try h.script("flood", """
            head -c 5000 /dev/zero | tr '\\0' y; echo
            printf 'bell\\007 and escape\\033[2J\\n'
            yes flood | head -n 100000
            echo to stderr >&2
            exit 0
            """)
        var settings = HookSettings()
        settings.pop = "\(h.dir)/flood"
        settings.roundOver = "yes endless"
        h.start(settings)
        h.runner.fire(.pop)
        h.runner.fire(.roundOver)
        #expect(try h.run(seconds: 20) { h.runner.running == 0 })
        let pop = h.lines(containing: "hook pop[")
        let output = pop.filter { !$0.contains("exited with status") && !$0.contains("output truncated") }
        #expect(output.count == HookRunner.maximumLines)
        #expect(output.allSatisfy { $0.utf8.count < HookRunner.maximumLineBytes + 40 })
        #expect(output.first?.hasSuffix(String(repeating: "y", count: 10) + "...") == true)
        #expect(output.dropFirst().first?.hasSuffix(#"bell\x07 and escape\e[2J"#) == true, "\(output.prefix(2))")
        #expect(pop.filter { $0.contains("... output truncated") }.count == 1)
        #expect(pop.last?.contains("exited with status 0") == true)
        // `yes` never ends: after a megabyte the pipe closes and SIGPIPE (at its default again) ends it.
        let endless = h.lines(containing: "hook round_over[")
        #expect(endless.contains { $0.contains("no longer read") })
        #expect(endless.contains { $0.contains("killed by signal 13") }, "\(endless.suffix(3))")
        #expect(h.logs.count < 3 * HookRunner.maximumLines + 10)
    }

    /// A burst of pops: `max_running` at once, `per_event_per_minute` in a minute, the rest
    /// dropped, counted and logged on the 1st, 2nd, 4th... drop only.
    @Test func aFloodOfPopsMeetsTheConcurrencyCapAndTheRateLimit() throws {
        let h = try Harness()
        try h.script("slow", "echo start >> \"$1/starts\"; sleep 0.3")
        var settings = HookSettings()
        settings.pop = "\(h.dir)/slow \(h.dir)"
        settings.maxRunning = 2
        settings.perEventPerMinute = 5
        h.start(settings)
        var most = 0
        for _ in 0..<3 { h.runner.fire(.pop) }
        #expect(h.runner.running == 2)
        #expect(h.runner.dropped(.pop).busy == 1)
        #expect(try h.run(seconds: 5) { most = max(most, h.runner.running); return h.runner.running == 0 })
        // 20 more, one every 50 ms: three fit in the minute's budget of five, the rest are dropped.
        for _ in 0..<20 {
            h.runner.fire(.pop)
            most = max(most, h.runner.running)
            try h.run(seconds: 0.05) { false }
        }
        #expect(try h.run(seconds: 5) { most = max(most, h.runner.running); return h.runner.running == 0 })
        #expect(most <= 2)
        #expect(h.runner.started == 5)
        let dropped = h.runner.dropped(.pop)
        #expect(dropped.rateLimited + dropped.busy == 23 - 5)
        #expect(dropped.rateLimited >= 3)
        #expect((h.read("starts") ?? "").split(separator: "\n").count == 5)
        let dropLines = h.lines(containing: "hook pop: dropped")
        #expect(dropLines.count < 10, "\(dropLines)")
        #expect(dropLines.contains { $0.contains("ran 5 times in the last minute") })
    }

    /// A program that is missing, not executable or a folder is reported once at start and
    /// once at each reload, never per event; names without a `/` are looked up in PATH.
    @Test func anUnusableHookIsReportedOnceAtStartAndAtReload() throws {
        let h = try Harness()
        try h.script("plain", "exit 0", mode: 0o644)
        mkdir(h.dir + "/folder", 0o755)
        var settings = HookSettings()
        settings.pop = "/nonexistent/kiosk-led pulse"
        settings.idle = "\(h.dir)/plain"
        settings.roundStart = "\(h.dir)/folder"
        settings.touchscreenLost = "no-such-kiosk-program --now"
        settings.roundOver = "sh -c 'exit 3'"
        h.start(settings)
        #expect(h.lines(containing: "/nonexistent/kiosk-led: no such file; it will not run").count == 1)
        #expect(h.lines(containing: "plain: not executable").count == 1)
        #expect(h.lines(containing: "folder: not a regular file").count == 1)
        #expect(h.lines(containing: "no-such-kiosk-program: not found in PATH").count == 1)
        let atStart = h.logs.count
        #expect(atStart == 4, "\(h.logs)")
        for _ in 0..<5 {
            h.runner.fire(.pop)
            h.runner.fire(.idle)
            h.runner.fire(.roundStart)
            h.runner.fire(.touchscreenLost)
        }
        #expect(h.logs.count == atStart, "\(h.logs)")
        #expect(h.runner.skippedUnusable == 20)
        h.runner.fire(.roundOver)
        #expect(try h.run(seconds: 5) { h.runner.running == 0 })
        #expect(h.lines(containing: "hook round_over[").contains { $0.contains("exited with status 3") })
        h.runner.configure(settings)
        #expect(h.lines(containing: "/nonexistent/kiosk-led").count == 2)
        // Installed meanwhile: the next event runs it.
        chmod(h.dir + "/plain", 0o755)
        h.runner.fire(.idle)
        #expect(try h.run(seconds: 5) { h.runner.running == 0 })
        #expect(h.lines(containing: "hook idle[").contains { $0.contains("exited with status 0") })
    }

    /// Without pidfds (kernels before 5.3) children are reaped by polling, timeouts still hold.
    @Test func withoutPidfdsHooksAreReapedByPolling() throws {
        let h = try Harness()
        var settings = HookSettings()
        settings.pop = "sh -c 'exit 7'"
        settings.idle = "sleep 300"
        settings.timeout = .seconds(0.3)
        h.start(settings)
        h.runner.usesPidfds = false
        h.runner.fire(.pop)
        h.runner.fire(.idle)
        #expect(try h.run(seconds: 10) { h.runner.running == 0 })
        #expect(h.lines(containing: "hook pop[").contains { $0.contains("exited with status 7") })
        #expect(h.lines(containing: "hook idle[").contains { $0.contains("killed by signal 15 (its timeout)") })
    }

    @Test func programsAreFoundLikeExecvpFindsThem() throws {
        let h = try Harness()
        try h.script("tool", "exit 0")
        try h.script("shadow", "exit 0", mode: 0o644)
        mkdir(h.dir + "/bin", 0o755)
        try h.script("bin/shadow", "exit 0")
        #expect(try HookRunner.resolve("tool", searchPath: "/nonexistent:\(h.dir)").get() == h.dir + "/tool")
        #expect(try HookRunner.resolve("shadow", searchPath: "\(h.dir):\(h.dir)/bin").get() == h.dir + "/bin/shadow")
        #expect(try HookRunner.resolve("sh", searchPath: "/usr/bin:/bin").get().hasSuffix("/sh"))
        #expect(throws: HookRunner.Unusable.self) { try HookRunner.resolve("tool", searchPath: "/usr/bin").get() }
        #expect(try HookRunner.resolve(h.dir + "/tool").get() == h.dir + "/tool")
    }

    /// A program that cannot be started (its interpreter is missing) is logged on the 1st,
    /// 2nd, 4th... failure; the kiosk goes on.
    @Test func aHookThatCannotStartIsLoggedRateLimited() throws {
        let h = try Harness()
        let path = h.dir + "/broken"
        writeFile(path, "#!/nonexistent/interpreter\n")
        chmod(path, 0o755)
        var settings = HookSettings()
        settings.reset = path
        h.start(settings)
        for _ in 0..<5 { #expect(h.runner.fire(named: "reset", fields: [("reason", .string("operator"))])) }
        #expect(!h.runner.fire(named: "no_such_event"))
        #expect(h.runner.running == 0)
        let failures = h.lines(containing: "hook reset: cannot start")
        #expect(failures.count == 3, "\(failures)")
        #expect(failures.first?.contains("No such file or directory") == true)
    }
}

/// What the runner does with hooks when the kiosk stops, and with lines longer than the log takes.
@Suite(.serialized) struct HookRunnerExitTests {
    /// A line is escaped first and then cut, so the log line is what `echoed` makes of the
    /// whole line (before, 300 raw bytes were kept and then escaped, which made it longer).
    @Test func aLongLineIsCutAfterEscaping() throws {
        let h = try HookRunnerTests.Harness()
        try h.script("controls", "head -c 400 /dev/zero | tr '\\0' '\\001'; echo; yes é | head -n 500 | tr -d '\\n'; echo")
        var settings = HookSettings()
        settings.pop = "\(h.dir)/controls"
        h.start(settings)
        h.runner.fire(.pop)
        #expect(try h.run(seconds: 5) { h.runner.running == 0 })
        let output = h.lines(containing: "hook pop[").filter { !$0.contains("exited with status") }
        let controls = String(repeating: "\u{1}", count: 400), accents = String(repeating: "é", count: 500)
        #expect(output.count == 2)
        #expect(output.first?.hasSuffix("]: " + echoed(controls, limit: HookRunner.maximumLineBytes)) == true, "\(output)")
        #expect(output.last?.hasSuffix("]: " + echoed(accents, limit: HookRunner.maximumLineBytes)) == true, "\(output)")
    }
}

extension HookRunnerTests {
    /// Hooks killed and the exit made within bounds of real time, measured.
    @Suite(.tags(.timing)) struct Timing {
        /// A hook that hangs (ignoring SIGTERM, with a child of its own in the background) is
        /// stopped at its timeout with its whole group; the loop kept its timers going meanwhile,
        /// and `fire` itself returned at once.
        @Test func aHungHookIsKilledWithItsGroupAtItsTimeout() throws {
            let h = try Harness()
            try h.startHangingHooks(timeout: .seconds(0.4), popPID: "sleeper")
            h.runner.killGrace = .milliseconds(300)
            let before = EventLoop.now()
            h.runner.fire(.idle)
            h.runner.fire(.pop)
            #expect((EventLoop.now() - before).inMilliseconds < 500, "fire does not wait for the hook")
            #expect(try h.run(seconds: 2) { h.exists("grandchild") && h.exists("pid") && h.exists("sleeper") })
            let ticksBefore = h.ticks
            let started = EventLoop.now()
            #expect(try h.run(seconds: 10) { h.runner.running == 0 })
            let took = (EventLoop.now() - started).inMilliseconds
            #expect(took < 3000, "\(took) ms")
            // The loop went on: about one tick every 10 ms while the hooks hung.
            // (A loaded machine wakes late; a repeating timer then fires once, not in a burst.)
            #expect(h.ticks - ticksBefore >= max(10, Int(took / 10 / 5)), "\(h.ticks - ticksBefore) ticks in \(took) ms")
            for name in ["grandchild", "pid", "sleeper"] {
                let pid = pid_t(String((h.read(name) ?? "").prefix { $0 != "\n" })) ?? 0
                #expect(pid > 0 && isGone(pid), "\(name) \(pid) is gone")
            }
            #expect(h.lines(containing: "hook idle[").contains { $0.contains("SIGTERM to its process group") })
            #expect(h.lines(containing: "hook idle[").contains { $0.contains("SIGKILL to its process group") })
            #expect(h.lines(containing: "hook idle[").contains { $0.contains("killed by signal 9 (its timeout)") })
            #expect(h.lines(containing: "hook pop[").contains { $0.contains("killed by signal 15 (its timeout)") })
            #expect(h.lines(containing: "hook pop[").allSatisfy { !$0.contains("SIGKILL") }, "SIGTERM was enough")
        }
    }
}

extension HookRunnerExitTests {
    /// The exit made within a bound of real time, measured.
    @Suite(.tags(.timing)) struct Timing {
        /// A hook whose whole group ignores SIGTERM used to outlive the kiosk with its children;
        /// now stop() sends SIGTERM, then SIGKILL, within about a second.
        @Test func hooksStillRunningAtExitAreStoppedWithTheirGroups() throws {
            let h = try HookRunnerTests.Harness()
            try h.startHangingHooks(timeout: .seconds(60), popPID: "polite.pid")
            h.runner.fire(.idle)
            h.runner.fire(.pop)
            // Each file exists as soon as its redirection opens it: wait for the whole line.
            #expect(try h.run(seconds: 5) { ["grandchild", "pid", "polite.pid"].allSatisfy { (h.read($0) ?? "").hasSuffix("\n") } })
            let started = EventLoop.now()
            h.runner.stop()
            let took = (EventLoop.now() - started).inMilliseconds
            #expect(took < (h.runner.exitGrace + h.runner.exitKillWait).inMilliseconds + 300, "\(took) ms")
            #expect(h.runner.running == 0)
            for name in ["grandchild", "pid", "polite.pid"] {
                let pid = pid_t(String((h.read(name) ?? "").prefix { $0 != "\n" })) ?? 0
                #expect(pid > 0 && HookRunnerTests.isGone(pid), "\(name) \(pid) is gone")
            }
            #expect(h.logs.contains { $0.contains("2 hooks still running at exit") && $0.contains("SIGTERM") })
            #expect(h.lines(containing: "hook idle[").contains { $0.contains("SIGKILL to its process group") })
            #expect(h.lines(containing: "hook pop[").contains { $0.contains("killed by signal 15") })
            #expect(h.lines(containing: "hook pop[").allSatisfy { !$0.contains("SIGKILL") }, "SIGTERM was enough")
            h.runner.fire(.pop)
            #expect(h.runner.running == 0, "no hook starts after stop()")
        }
    }
}
