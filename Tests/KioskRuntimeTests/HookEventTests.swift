import Glibc
import KioskCore
import KioskLayers
import KioskPlatform
import KioskRuntime
import Testing
import KioskTestSupport

/// Which kiosk events run which hooks, with what data; and the runner wired to a runtime.
@Suite struct HookEventTests {
    /// The hooks the runtime's events map to, as `name {field: json}` lines.
    final class Recorder: KioskLayer {
        var seen: [String] = []

        init(_ runtime: KioskRuntime) {
            runtime.attach(self)
        }

        func attach(to host: LayerHost) {}

        func handle(_ event: KioskEvent, _ facts: EventFacts) {
            guard let (hook, fields) = HookEventMapper.map(event, facts) else { return }
            seen.append(hook.rawValue + " " + JSON.object(fields).text)
        }
    }

    @Test func aPersonsRoundRunsStartPopAndIdleHooks() throws {
        var settings = RuntimeHarness.quietSettings
        settings.attract.idleTimeout = .seconds(5)
        let h = try RuntimeHarness(settings: settings)
        let r = Recorder(h.runtime)
        try h.run(ms: 50)
        #expect(r.seen == ["start {}"])
        h.startRound()
        #expect(r.seen.last == #"round_start {"mode":"classic"}"#)
        let (id, taps) = try h.popATapBubble()
        #expect(r.seen.last == #"pop {"mode":"classic","score":\#(taps * 10),"points":\#(taps * 10),"id":\#(id),"kind":"tap"}"#)
        h.advance(ms: 6000)
        #expect(r.seen.last == #"idle {"mode":"classic","score":\#(taps * 10)}"#)
        h.input.unplug(device: 3, at: h.now)
        #expect(r.seen.last == #"touchscreen_lost {"device":3}"#)
        #expect(r.seen.count == 5, "\(r.seen)")
    }

    @Test func aClearedRoundRunsTheRoundOverHook() throws {
        var settings = RuntimeHarness.quietSettings
        settings.game.bubbles = 1
        settings.game.swipeShare = 0
        let h = try RuntimeHarness(settings: settings)
        let r = Recorder(h.runtime)
        try h.run(ms: 50)
        h.startRound()
        let (_, taps) = try h.popATapBubble()
        let score = taps * 10 + settings.score.roundBonus
        #expect(r.seen.last == #"round_over {"mode":"classic","score":\#(score),"popped":1}"#, "\(r.seen)")
    }

    @Test func theDemoRunsNoHooks() throws {
        var settings = RuntimeHarness.quietSettings
        settings.attract.demo = true
        settings.attract.demoAfter = .seconds(1)
        let h = try RuntimeHarness(settings: settings)
        var popsInDemo = 0
        h.runtime.observe { e, _ in if case .game(.popped) = e { popsInDemo += 1 } }
        let r = Recorder(h.runtime)
        try h.run(ms: 60_000)
        #expect(popsInDemo > 0)
        #expect(r.seen == ["start {}"])
    }

    @Test func aLostDisplayRunsItsHookOncePerLoss() throws {
        var settings = RuntimeHarness.quietSettings
        settings.attract.demo = true
        settings.attract.demoAfter = .seconds(1)
        var made: LosableDisplay?
        let h = try RuntimeHarness(settings: settings, display: { clock in
            made = LosableDisplay(size: PixelSize(width: 320, height: 200), clock: clock)
            return made!
        })
        let r = Recorder(h.runtime)
        try h.run(ms: 100)
        made!.lost = true
        made!.refusals = 3
        h.advance(ms: 8000)
        #expect(r.seen.filter { $0.hasPrefix("display_lost ") } == [#"display_lost {"reason":"display lost: master taken by another program"}"#])
    }

    /// The hook layer on a live runtime: a real script records the pop it was run for;
    /// a reload takes the new `[hooks]` (and reports a missing program); the exit lets go.
    @Test func attachedHooksRunForTheRuntimesEvents() throws {
        let dir = makeTemporaryDirectory("bubble-hooks-rt")
        defer { removeTree(dir) }
        let script = dir + "/record"
        writeFile(script, "#!/bin/sh\nenv | grep '^BUBBLE_' | sort > \"$1/$BUBBLE_EVENT.env\"\n", mode: 0o755)

        var settings = RuntimeHarness.quietSettings
        settings.hooks.pop = "\(script) \(dir)"
        settings.hooks.start = "\(script) \(dir)"
        let h = try RuntimeHarness(settings: settings)
        let layer = HookLayer()
        h.runtime.attach(layer)
        let hooks = try #require(layer.runner)
        try h.run(ms: 50)
        h.startRound()
        let (id, taps) = try h.popATapBubble()
        // What a hook wrote; nil until it wrote something (its redirection makes the file first).
        func read(_ name: String) -> String? { readText(dir + "/" + name).flatMap { $0.isEmpty ? nil : $0 } }
        // Real processes, virtual time: let the loop look after them for up to 5 real seconds.
        _ = h.eventually(within: .seconds(5)) { hooks.running == 0 && read("pop.env") != nil }
        #expect(hooks.running == 0)
        let pop = (read("pop.env") ?? "").split(separator: "\n").map(String.init)
        #expect(pop.contains("BUBBLE_EVENT=pop"))
        #expect(pop.contains("BUBBLE_SCORE=\(taps * 10)") && pop.contains("BUBBLE_ID=\(id)"))
        #expect(pop.contains("BUBBLE_MODE=classic") && pop.contains("BUBBLE_KIND=tap"))
        let start = (read("start.env") ?? "").split(separator: "\n").map(String.init)
        #expect(start.contains("BUBBLE_DISPLAY=virtual:640x400") && start.contains("BUBBLE_INPUT=injected"), "\(start)")
        #expect(h.logLines.contains { $0.hasPrefix("hook pop[") && $0.contains("exited with status 0") }, "\(h.logLines)")

        var reloaded = settings
        reloaded.hooks.pop = "/nonexistent/kiosk-led pulse"
        h.config = ConfigResult(settings: reloaded)
        h.runtime.reload()
        #expect(hooks.settings.pop == "/nonexistent/kiosk-led pulse")
        #expect(h.logLines.contains { $0.contains("hook pop: /nonexistent/kiosk-led: no such file; it will not run") })
        h.runtime.finish()
        hooks.fire(.pop)
        #expect(hooks.running == 0, "no hook starts after the exit")
    }
}
