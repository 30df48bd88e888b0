import Glibc
import KioskCore
import KioskPlatform
import KioskRuntime
import Testing
@testable import KioskScores
import KioskTestSupport

/// The score layer on the runtime: played rounds reach the store through the writer thread,
/// and its answers reach the screens.
@Suite struct ScoreLayerTests {
    /// Pops every bubble of the round in play with taps and swipes, 300 ms apart.
    static func popAll(_ h: RuntimeHarness) throws {
        let round = try #require(h.runtime.session.game.round)
        var id = 200
        for b in round.bubbles {
            switch b.kind {
            case .tap(let n):
                for _ in 0..<n {
                    h.tap(h.panel(b.center), id: id)
                    id += 1
                    h.advance(ms: 330)
                }
            case .swipe(let angle):
                let end = b.center + Angle.unitVector(degrees: angle) * 80
                for i in 0...8 {
                    let p = b.center + (end - b.center) * (Double(i) / 8)
                    h.input.push(TouchFrame(time: h.now, contacts: [TouchPoint(slot: 0, trackingID: id, position: h.panel(p))]))
                    h.advance(ms: 10)
                }
                h.input.push(TouchFrame(time: h.now, contacts: []))
                id += 1
                h.advance(ms: 300)
            case .drag:
                // Carried into the basket over 300 ms, held still, lifted.
                let goal = try #require(round.goal).center
                for i in 0...30 {
                    let p = b.center + (goal - b.center) * (Double(i) / 30)
                    h.input.push(TouchFrame(time: h.now, contacts: [TouchPoint(slot: 0, trackingID: id, position: h.panel(p))]))
                    h.advance(ms: 10)
                }
                h.advance(ms: 100)
                h.input.push(TouchFrame(time: h.now, contacts: []))
                id += 1
                h.advance(ms: 300)
            }
        }
    }

    /// Lets the writer thread answer: real time passes, the loop picks the answers up.
    static func waitForAnswers(_ h: RuntimeHarness, _ keeper: ScoreKeeper, recorded count: Int) {
        _ = h.eventually(within: .seconds(2), advancing: .milliseconds(1)) { keeper.recorded.count >= count }
    }

    @Test func playedRoundsReachTheStoreAndTheScreens() throws {
        let dir = makeTemporaryDirectory("bubble-kiosk-runtime-scores")
        var settings = RuntimeHarness.quietSettings
        settings.attract.idleTimeout = .seconds(10)
        settings.attract.roundOver = .seconds(2)
        let h = try RuntimeHarness(settings: settings)
        h.runtime.wallClock = StoppedWallClock(unixSeconds: 1_764_000_000)
        let keeper = ScoreKeeper(directory: dir)
        h.runtime.attach(keeper)
        #expect(keeper.writer != nil)
        var highs: [HighScore] = []
        h.runtime.observe { event, _ in if case .highScore(let high) = event { highs.append(high) } }
        try h.run(ms: 100)
        // A round played to its end.
        h.startRound()
        let start = try #require(h.runtime.session.game.round).startTime
        try Self.popAll(h)
        #expect(h.runtime.session.game.screen == .roundOver)
        let score = try #require(h.runtime.session.game.round).score
        Self.waitForAnswers(h, keeper, recorded: 1)
        // The writer's answers come in batches: the round's record, then the lists read again.
        _ = h.eventually(within: .seconds(2), advancing: .milliseconds(1)) { !h.runtime.scoreBoard[.classic].allTime.isEmpty }
        #expect(keeper.recorded == [1])
        #expect(h.runtime.scoreBoard.celebration == ScoreBoard.Celebration(roundStart: start, rank: 1, score: score))
        #expect(h.runtime.scoreBoard[.classic].allTime == [score])
        #expect(h.logLines.contains("new high score \(score), #1"))
        #expect(highs == [HighScore(mode: .classic, score: score, rank: 1, roundID: 1)])
        #expect(highs.first?.hookFields.map(\.0) == ["mode", "score", "rank", "round_id"])
        // A round left alone: the idle return abandons it.
        h.advance(ms: 2500)
        #expect(h.runtime.session.game.screen == .start)
        h.startRound()
        _ = try h.popATapBubble()
        h.advance(ms: 11_000)
        #expect(h.runtime.session.game.screen == .start)
        Self.waitForAnswers(h, keeper, recorded: 2)
        // The exit writes what is queued and joins the thread.
        h.runtime.finish()
        let store = try #require(try ScoreStore(existingIn: dir))
        let rows = try store.db.query("SELECT mode, score, popped, outcome, started_ms, duration_ms FROM rounds ORDER BY id")
        #expect(rows.count == 2)
        #expect(rows[0] == [.text("classic"), .int(Int64(score)), .int(10), .text("finished"), .int(1_764_000_000_000),
                            rows[0][5]])
        #expect(rows[0][5].int > 3000 && rows[0][5].int < 30_000, "duration \(rows[0][5])")
        #expect(rows[1][3] == .text("abandoned") && rows[1][2] == .int(1))
        #expect(h.logLines.filter { $0.hasPrefix("scores:") }.isEmpty, "\(h.logLines)")
    }

    @Test func demoRoundsAndTheRoundInPlayAtExitAreKept() throws {
        let dir = makeTemporaryDirectory("bubble-kiosk-runtime-scores")
        var settings = Settings.classicOnly
        settings.attract.demoAfter = .seconds(1)
        let h = try RuntimeHarness(settings: settings)
        let keeper = ScoreKeeper(directory: dir)
        h.runtime.attach(keeper)
        try h.run(ms: 1500)
        #expect(h.runtime.session.game.isDemo)
        // A person takes over from the demo, and the kiosk stops mid-round.
        h.startRound()
        #expect(h.runtime.session.game.screen == .playing(demo: false))
        h.advance(ms: 500)
        h.runtime.finish()
        #expect(keeper.recorded.count == 2)
        let store = try #require(try ScoreStore(existingIn: dir))
        let outcomes = try store.db.query("SELECT outcome FROM rounds ORDER BY id").map { $0[0] }
        #expect(outcomes == [.text("demo"), .text("abandoned")])
        #expect(try store.highScores(mode: nil, limit: 10).isEmpty)
    }

    @Test func aStoreThatCannotBeWrittenIsReportedOnceAndTheGameGoesOn() throws {
        let dir = makeUnwritableDirectory("bubble-kiosk-runtime-scores")
        let h = try RuntimeHarness()
        let keeper = ScoreKeeper(directory: dir)
        h.runtime.attach(keeper)
        #expect(keeper.writer != nil)
        try h.run(ms: 100)
        for _ in 0..<2 {
            h.startRound()
            _ = try h.popATapBubble()
            h.advance(ms: 46_000)
        }
        // The writer's answer (its one report) reaches the loop before the exit.
        _ = h.eventually(within: .seconds(1)) { h.logLines.contains { $0.contains("cannot save") } }
        h.runtime.finish()
        let lines = h.logLines.filter { $0.contains("cannot save") }
        #expect(lines.count == 1, "\(h.logLines)")
        #expect(h.runtime.scoreBoard == ScoreBoard())
    }
}
