#if canImport(Glibc)
import Glibc
#endif
import Testing
@testable import KioskCore
import KioskTestSupport

/// The recordings of the operator gestures and the stuck touch, made with `RecordingBuilder`
/// for a 1280x800 screen at 4 px/mm and kept in Fixtures/ (the VM test plays the four-corner
/// one on a real uinput device). `UPDATE_FIXTURES=1 swift test --filter OperatorFixtureFileTests`
/// writes them again.
enum OperatorFixtures {
    static let screen = PixelSize(width: 1280, height: 800)
    static let pxPerMM = 4.0
    /// The round the stuck-touch recording plays: seed 3 has tap bubbles and two drag bubbles.
    static let seed: UInt64 = 3

    static let corners = [Vector2(40, 40), Vector2(1240, 40), Vector2(1240, 760), Vector2(40, 760)]

    /// Five fingers put down 100 ms apart, trembling by a pixel, held 3.6 s.
    static func fiveFingerHold() -> String {
        var b = RecordingBuilder(screen: screen)
        for i in 0..<5 {
            b.hold(at: Vector2(500 + Double(i) * 60, 420 - Double(i % 2) * 30), start: .milliseconds(200 + Double(i) * 100),
                   duration: .milliseconds(3600), wobble: 1, slot: i)
        }
        return b.text()
    }

    /// The top-left and bottom-right corners pressed together for 2.5 s.
    static func oppositeCorners() -> String {
        var b = RecordingBuilder(screen: screen)
        b.hold(at: corners[0], start: .milliseconds(200), duration: .milliseconds(2500), wobble: 1, slot: 0)
        b.hold(at: corners[2], start: .milliseconds(400), duration: .milliseconds(2500), wobble: 1, slot: 1)
        return b.text()
    }

    /// The four corners clockwise from the top left, each held 2.2 s, 0.3 s between them.
    static func fourCorners() -> String {
        var b = RecordingBuilder(screen: screen)
        for (i, p) in corners.enumerated() {
            b.hold(at: p, start: .milliseconds(200 + Double(i) * 2500), duration: .milliseconds(2200), wobble: 1, slot: 0)
        }
        return b.text()
    }

    /// Where the stuck contact comes to rest: 6 mm right of the first drag bubble's centre.
    static func restPosition(_ round: Round) -> Vector2 {
        firstDragBubble(round).center + Vector2(24, 0)
    }

    static func firstDragBubble(_ round: Round) -> Bubble {
        round.bubbles.first { if case .drag = $0.kind { return true } else { return false } }!
    }

    /// Slot 0 taps Start; slot 1 picks up the first drag bubble and then rests, still, for 25 s
    /// (a drop of water on it); meanwhile slot 0 pops every tap bubble, a tap every 0.9 s from
    /// 2 s to past 23 s.
    static func stuckWhilePlaying() -> String {
        var session = session()
        let button = session.game.button.center
        _ = session.process(TouchFrame(time: .zero, contacts: [TouchPoint(slot: 0, trackingID: 1, position: button)]))
        _ = session.process(TouchFrame(time: TimeStamp(milliseconds: 60), contacts: []))
        let round = session.game.round!
        var b = RecordingBuilder(screen: screen)
        b.tap(at: button, start: .milliseconds(300))
        let drag = firstDragBubble(round)
        b.drag(from: drag.center, to: restPosition(round), start: .milliseconds(1000), duration: .milliseconds(200), pause: .milliseconds(25_000), slot: 1)
        // The taps spread evenly from 2 s to 24 s, so some come after the contact is stuck.
        let taps = round.bubbles.reduce(0) { n, bubble in if case .tap(let k) = bubble.kind { return n + k } else { return n } }
        let every = 22_000 / Double(max(taps - 1, 1))
        var t = 2000.0
        for bubble in round.bubbles {
            guard case .tap(let n) = bubble.kind else { continue }
            for _ in 0..<n {
                b.tap(at: bubble.center, start: .milliseconds(t.rounded()))
                t += every
            }
        }
        return b.text()
    }

    /// A session on the fixtures' screen with seed 3.
    static func session(_ configure: (inout Settings) -> Void = { _ in }) -> KioskSession {
        makeSession(size: screen, pxPerMM: pxPerMM, seed: seed) {
            $0.attract.demo = false
            configure(&$0)
        }
    }

    static let all: [(name: String, text: @Sendable () -> String)] = [
        ("operator-five-finger-hold.evemu", fiveFingerHold),
        ("operator-opposite-corners.evemu", oppositeCorners),
        ("operator-four-corners.evemu", fourCorners),
        ("stuck-touch-while-playing.evemu", stuckWhilePlaying),
    ]
}

@Suite struct OperatorFixtureFileTests {
    /// The files in Fixtures/ are what the builder makes (so a change to either shows).
    @Test func fixturesAreCurrent() throws {
        let update = getenv("UPDATE_FIXTURES") != nil
        for (name, make) in OperatorFixtures.all {
            let text = make()
            if update {
                #expect(tryWriteFile(Fixture.path(name), text), "cannot write \(name)")
            }
            #expect(Fixture.text(name) == text, "\(name) differs from what RecordingBuilder makes")
        }
    }
}
