import Glibc
import KioskCore
import KioskLayers
import KioskPlatform
import KioskRuntime
import KioskTestSupport
import Testing

/// Stuck touches and the operator gestures in the running kiosk, on virtual time (640x400 at
/// the fallback 4 px/mm: the corner squares are 100 px).
@Suite struct OperatorRuntimeTests {
    func contact(_ slot: Int, _ id: Int, _ x: Double, _ y: Double) -> TouchPoint {
        TouchPoint(slot: slot, trackingID: id, position: Vector2(x, y))
    }

    @Test func aStuckTouchIsLoggedCountedAndToldOnceOnTime() throws {
        let h = try RuntimeHarness()
        h.runtime.wallClock = StoppedWallClock(unixSeconds: 1_700_000_000)
        let exporter = MetricsExporter(offLoop: false)
        h.runtime.attach(exporter)
        var told: [(StuckTouch, TimeStamp)] = []
        h.runtime.observe { event, time in if case .stuckTouch(let s) = event { told.append((s, time)) } }
        try h.run(ms: 100)
        let down = h.now
        h.input.push(TouchFrame(time: down, contacts: [contact(2, 40, 320, 200)]))
        // A still finger sends nothing: the operator timer declares it on time.
        #expect(h.loop.armedTimers.contains { $0.name == "operator" && $0.deadline == (down + .milliseconds(20_000)) })
        h.advance(ms: 25_000)
        #expect(told.count == 1)
        #expect(told.first?.1 == (down + .milliseconds(20_000)))
        #expect(told.first?.0.contact == ContactRef(device: 0, slot: 2, trackingID: 40))
        let lines = h.logLines.filter { $0.contains("stuck touch") }
        #expect(lines == ["input: stuck touch on device 0 (injected) slot 2 at (80.0, 50.0) mm (320, 200) px, still for 20 s; ignored until it lifts"],
                "\(h.logLines)")
        #expect(h.runtime.stuckTouches.map(\.contact.trackingID) == [40])
        #expect(h.runtime.session.contacts.isEmpty, "no finger marker for it")
        #expect(exporter.metrics.stuckTouches == 1)
        #expect(exporter.metrics.exposition(KioskMetrics.LiveFigures(displayUp: true, touchscreens: nil, screen: .start, frames: 0,
                                                                    frameTimes: SampleRing(capacity: 1), latencies: SampleRing(capacity: 1)))
                .contains("\nbubble_kiosk_stuck_touches_total 1\n"))
        // It lifts: back in play; nothing more is armed for it.
        h.input.push(TouchFrame(time: h.now, contacts: []))
        h.advance(ms: 100)
        #expect(h.runtime.stuckTouches.isEmpty)
        #expect(!h.loop.armedTimers.contains { $0.name == "operator" })
    }

    @Test func theFourCornerGestureStopsTheLoopWithStatus10AndOneLine() throws {
        let h = try RuntimeHarness()
        var gestures: [OperatorGesture] = []
        h.runtime.observe { event, _ in if case .operatorGesture(let g) = event { gestures.append(g) } }
        try h.run(ms: 100)
        h.startRound()  // one round played so far
        let corners = [(40.0, 40.0), (600.0, 40.0), (600.0, 360.0), (40.0, 360.0)]
        let start = h.now
        for (i, (x, y)) in corners.enumerated() {
            h.input.push(TouchFrame(time: h.now, contacts: [contact(0, 10 + i, x, y)]))
            h.advance(ms: 2200)
            if h.runtime.exitStatus == .operatorReset { break }
            h.input.push(TouchFrame(time: h.now, contacts: []))
            h.advance(ms: 300)
        }
        #expect(h.runtime.exitStatus == .operatorReset)
        #expect(gestures.map(\.action) == [.reset] && gestures.first?.kind == .fourCorners)
        // The loop stopped when the fourth hold was complete, not at the end of the 2.2 s advance.
        #expect(h.now == (start + .milliseconds(3 * 2500 + 2000)), "\(h.now)")
        let lines = h.logLines.filter { $0.hasPrefix("operator reset:") }
        #expect(lines.count == 1, "\(h.logLines)")
        let line = lines.first ?? ""
        #expect(line.hasPrefix("operator reset: four-corners gesture on device 0 (injected) at 2"), "\(line)")
        // Started at 0, the round at 0.1 s, the reset 9.5 s later.
        #expect(line.hasSuffix(", up 9s, 1 round played; exiting with status 10 for a fresh start"), "\(line)")
    }

    @Test func aChildPressingCornersDuringPlayDoesNotReset() throws {
        // Corners pressed in a hurry (short presses), and two held too slowly: no reset.
        let h = try RuntimeHarness()
        try h.run(ms: 100)
        h.startRound()
        for (i, (x, y, hold)) in [(40.0, 40.0, 800.0), (600.0, 40.0, 900.0), (600.0, 360.0, 2100.0),
                                  (40.0, 360.0, 700.0), (40.0, 40.0, 2100.0)].enumerated() {
            h.input.push(TouchFrame(time: h.now, contacts: [contact(0, 10 + i, x, y)]))
            h.advance(ms: hold)
            h.input.push(TouchFrame(time: h.now, contacts: []))
            h.advance(ms: 4000)
        }
        #expect(h.runtime.exitStatus == .stopped)
        #expect(!h.logLines.contains { $0.hasPrefix("operator reset") })
    }
}
