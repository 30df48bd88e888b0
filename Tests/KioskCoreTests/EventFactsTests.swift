import Testing
@testable import KioskCore
import KioskTestSupport

/// The facts each event carries to the layers, built from a real session.
@Suite struct EventFactsTests {
    /// Runs `events` through `tracker` as the runtime does: after the session applied them.
    static func told(_ tracker: inout EventFactsTracker, _ events: [GameEvent], _ s: KioskSession,
                     at ms: Double) -> [(GameEvent, EventFacts)] {
        events.map { ($0, tracker.facts(for: .game($0), game: s.game, at: TimeStamp(milliseconds: ms))) }
    }

    @Test func roundsAreNumberedAndPopsCarryTheirBubbleAndScore() throws {
        var s = makeSession { $0.game.swipeShare = 0 }
        var tracker = EventFactsTracker()
        let started = Self.told(&tracker, realTap(&s, s.game.button.center, at: 100), s, at: 160)
        #expect(started.map { $0.1.round?.id } == [1])
        #expect(started.first?.1.round?.demo == false && started.first?.1.round?.mode == .classic)
        let bubble = try #require(s.game.round?.bubbles.first)
        guard case .tap(let taps) = bubble.kind else { Issue.record("a tap bubble expected"); return }
        var told: [(GameEvent, EventFacts)] = []
        for i in 0..<taps {
            let ms = 1000 + Double(i) * 400
            told += Self.told(&tracker, realTap(&s, bubble.center, at: ms, id: 10 + i), s, at: ms + 60)
        }
        let pop = try #require(told.first { if case .popped = $0.0 { true } else { false } })
        #expect(pop.1.bubble == BubbleFacts(id: bubble.id, kind: "tap", points: taps * 10))
        #expect(pop.1.round?.score == s.game.round?.score && pop.1.round?.popped == 1)
        #expect(pop.1.round?.id == 1 && pop.1.screen == .playing(demo: false))
    }

    @Test func anEndingEventStillTellsItsRoundAndTheNextStartsAFreshOne() throws {
        var s = makeSession { $0.attract.idleTimeout = .seconds(5) }
        var tracker = EventFactsTracker()
        _ = Self.told(&tracker, realTap(&s, s.game.button.center, at: 100), s, at: 160)
        let bubble = try #require(s.game.round?.bubbles.first)
        _ = Self.told(&tracker, realTap(&s, bubble.center, at: 1000, id: 2), s, at: 1060)
        let score = try #require(s.game.round?.score)
        // The idle return drops the round before it is told: its facts still name it.
        let idle = Self.told(&tracker, s.advance(to: TimeStamp(milliseconds: 7000)), s, at: 7000)
        #expect(idle.map { $0.0 } == [.idleReturn])
        #expect(idle.first?.1.round?.id == 1 && idle.first?.1.round?.score == score)
        #expect(s.game.round == nil)
        // Between rounds there is no round; the next is number 2 and replaced nothing.
        #expect(tracker.facts(for: .screen(.start), game: s.game, at: TimeStamp(milliseconds: 7001)).round == nil)
        let next = Self.told(&tracker, realTap(&s, s.game.button.center, at: 8000, id: 3), s, at: 8060)
        #expect(next.first?.1.round?.id == 2 && next.first?.1.replaced == nil)
    }

    @Test func aPersonTakingOverTheDemoReplacesTheDemoRound() throws {
        var s = makeSession()
        var tracker = EventFactsTracker()
        let demo = s.startDemo(at: .zero).map { tracker.facts(for: .game($0), game: s.game, at: .zero) }
        #expect(demo.first?.round?.demo == true && demo.first?.round?.id == 1)
        let taken = Self.told(&tracker, realTap(&s, s.game.button.center, at: 500), s, at: 560)
        #expect(taken.first?.0 == .roundStarted(demo: false))
        #expect(taken.first?.1.replaced?.id == 1 && taken.first?.1.replaced?.demo == true)
        #expect(taken.first?.1.round?.id == 2 && taken.first?.1.round?.demo == false)
    }

    @Test func aHighScoreRunsItsHookAndPlaysItsSound() {
        let high = HighScore(mode: .timed, score: 420, rank: 2, roundID: 7)
        let facts = EventFacts(time: .zero, screen: .roundOver)
        let mapped = HookEventMapper.map(.highScore(high), facts)
        #expect(mapped?.0 == .highScore)
        #expect(mapped.map { JSON.object($0.1).text } == #"{"mode":"timed","score":420,"rank":2,"round_id":7}"#)
        #expect(SoundCues.effect(for: .highScore(high), facts) == .highScore)
    }
}
