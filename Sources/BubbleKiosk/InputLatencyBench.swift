import KioskCore
import KioskPlatform
import KioskRender

/// Input-to-screen latency through the kiosk's own path: a touch frame stamped with the
/// monotonic clock goes through the session, the scene builder and the renderer into a virtual
/// display, and the time until the display reports it visible is one sample.
///
/// On DRM the page flip adds the wait for vblank on top; `run --stats` measures that end to end.
enum InputLatencyBench {
    static func measure(size: PixelSize, frames: Int, seed: UInt64) -> Timing {
        var settings = Settings()
        settings.attract.demo = false
        let field = PlayField(size: size, pxPerMM: DisplaySettings.fallbackPxPerMM, game: settings.game)
        var session = KioskSession(game: KioskGame(field: field, settings: settings, seed: seed, at: EventLoop.now()))
        var builder = SceneBuilder(field: field, seed: seed)
        let renderer = SceneRenderer(size: size)
        let display = VirtualDisplay(size: size)
        var visibleAt: TimeStamp?
        display.onVisible = { visibleAt = $0 }
        // Tap Start, so the samples are taken mid-round.
        let start = session.game.button.center
        for contacts in [[TouchPoint(slot: 0, trackingID: 1, position: start)], []] {
            let now = EventLoop.now()
            builder.note(session.process(TouchFrame(time: now, contacts: contacts)), round: session.game.round, at: now)
        }

        var samples: [Double] = []
        samples.reserveCapacity(frames)
        let center = Vector2(Double(size.width) / 2, Double(size.height) / 2)
        for i in 0..<frames {
            // A finger circling the middle of the screen, one frame at a time.
            let p = center + Angle.unitVector(degrees: Double(i * 7)) * Double(min(size.width, size.height)) / 4
            let input = EventLoop.now()
            let frame = TouchFrame(time: input, contacts: [TouchPoint(slot: 0, trackingID: 2, position: p)])
            builder.note(session.process(frame), round: session.game.round, at: input)
            let damage = renderer.render(builder.scene(session, at: input))
            visibleAt = nil
            try? display.present(renderer.frame, damage: damage)
            if let shown = visibleAt { samples.append(shown.milliseconds(since: input)) }
        }
        return Timing(samples)
    }
}
