import Testing
@testable import KioskCore
import KioskTestSupport

/// `[scoring]`: combos and the time bonus, on virtual time; `[score]` stays as it was.
@Suite struct ScoringTests {
    /// Pops bubble `i` of the round with gestures at `ms` (a tap bubble's taps 10 ms apart, the
    /// last one at `ms`); returns the points of its pop.
    static func pop(_ round: inout Round, _ i: Int, at ms: Double) -> Int? {
        let b = round.bubbles[i]
        var events: [GameEvent] = []
        switch b.kind {
        case .tap(let n):
            for k in 0..<n { events += round.handle(tap(b.center, at: ms - Double(n - 1 - k) * 10)) }
        case .swipe(let angle):
            events += round.handle(swipe(from: b.center, angle: angle, at: ms))
        case .drag:
            // Dropped into the goal at `ms`.
            events += carry(&round, from: b.center, to: round.goal!.center, at: ms - 200)
        }
        for case .popped(_, let points) in events { return points }
        return nil
    }

    static func basePoints(_ b: Bubble, _ s: ScoreSettings = ScoreSettings()) -> Int {
        switch b.kind {
        case .tap(let n): n * s.tapBubble
        case .swipe: s.swipeBubble
        case .drag: s.dragBubble
        }
    }

    @Test func defaultsLeaveTheScoreAsBefore() {
        var round = makeRound(seed: 3)
        var expected = 50
        for i in round.bubbles.indices {
            expected += Self.basePoints(round.bubbles[i])
            #expect(Self.pop(&round, i, at: 100 + Double(i) * 50) == Self.basePoints(round.bubbles[i]))
        }
        #expect(round.isOver && round.score == expected)
        #expect(round.comboBonus == 0 && round.timeBonus == 0)
        #expect(round.bestCombo == 10)
    }

    @Test func quickPopsBuildACombo() {
        var settings = Settings()
        settings.scoring.comboBonus = 5
        settings.scoring.comboWindow = .milliseconds(1000)
        settings.scoring.comboMaxSteps = 2
        var round = makeRound(seed: 3, settings: settings)
        // Step 0, 1, 2, capped at 2, then a gap longer than the window starts over.
        let times = [1000.0, 1500, 2400, 3300, 4500, 5400]
        let bonuses = [0, 5, 10, 10, 0, 5]
        for (i, (t, bonus)) in zip(times, bonuses).enumerated() {
            #expect(Self.pop(&round, i, at: t) == Self.basePoints(round.bubbles[i]) + bonus, "pop \(i)")
        }
        #expect(round.comboBonus == 30)
        #expect(round.bestCombo == 4)
        #expect(round.combo == 1)
        let base = round.bubbles.prefix(6).reduce(0) { $0 + Self.basePoints($1) }
        #expect(round.score == base + 30)
    }

    @Test func aFastClassicRoundEarnsTheTimeBonus() {
        var settings = Settings()
        settings.scoring.parTime = .seconds(30)
        settings.scoring.timeBonusPerSecond = 10
        var round = makeRound(seed: 3, settings: settings)
        let n = round.bubbles.count
        var base = 50
        for i in 0..<n {
            base += Self.basePoints(round.bubbles[i])
            // The last pop at 12.4 s: 17.6 s under par, 17 whole seconds.
            _ = Self.pop(&round, i, at: 12_400 - Double(n - 1 - i) * 1000)
        }
        #expect(round.isOver)
        #expect(round.timeBonus == 170)
        #expect(round.score == base + 170)
        var json = ""
        json = GameJSON.outcome(round).text
        #expect(json.contains("\"time_bonus\":170"))
        #expect(json.contains("\"combo_bonus\":0"))
    }

    @Test func noTimeBonusAfterParOrInTimedRounds() {
        #expect(Round.timeBonus(after: .seconds(30), scoring: { var s = ScoringSettings(); s.timeBonusPerSecond = 10; return s }()) == 0)
        #expect(Round.timeBonus(after: .seconds(45), scoring: { var s = ScoringSettings(); s.timeBonusPerSecond = 10; return s }()) == 0)
        #expect(Round.timeBonus(after: .seconds(29.01), scoring: { var s = ScoringSettings(); s.timeBonusPerSecond = 10; return s }()) == 0)
        #expect(Round.timeBonus(after: .seconds(28.99), scoring: { var s = ScoringSettings(); s.timeBonusPerSecond = 10; return s }()) == 10)
        var settings = Settings()
        settings.scoring.timeBonusPerSecond = 10
        settings.scoring.comboBonus = 5
        var round = makeRound(seed: 3, settings: settings, mode: .timed)
        let first = Self.pop(&round, 0, at: 500)
        let second = Self.pop(&round, 1, at: 900)
        #expect(first == Self.basePoints(round.bubbles[0]))
        #expect(second == Self.basePoints(round.bubbles[1]) + 5, "combos count in timed rounds too")
        _ = round.advance(to: TimeStamp(milliseconds: 61_000))
        #expect(round.isOver && round.timeBonus == 0)
    }

    @Test func scoringReloadsIntoTheRoundInProgress() {
        var round = makeRound(seed: 3)
        _ = Self.pop(&round, 0, at: 100)
        var loaded = Settings()
        loaded.scoring.comboBonus = 7
        loaded.score.miss = -3
        round.reload(loaded)
        #expect(Self.pop(&round, 1, at: 400) == Self.basePoints(round.bubbles[1]) + 7)
        let key = ConfigSchema.standard.keys.first { $0.id == "scoring.combo_bonus" }!
        #expect(ReloadPolicy.effect(of: key) == .now)
    }

    @Test func configKeysParseAndCheckRanges() {
        var builder = ConfigBuilder()
        builder.add(text: "[scoring]\ncombo_window_ms = 800\ncombo_bonus = 5\ncombo_max_steps = 3\npar_time_s = 20\n"
                    + "time_bonus_per_s = 10\nhigh_scores = 5\nboard_rows = 0\n[score]\ntap_bubble = 15\n", file: "s.conf")
        let ok = builder.finish()
        #expect(ok.diagnostics.isEmpty)
        #expect(ok.settings.scoring.comboWindow == .milliseconds(800) && ok.settings.scoring.comboBonus == 5)
        #expect(ok.settings.scoring.comboMaxSteps == 3 && ok.settings.scoring.parTime == .seconds(20))
        #expect(ok.settings.scoring.timeBonusPerSecond == 10 && ok.settings.scoring.highScores == 5)
        #expect(ok.settings.scoring.boardRows == 0 && ok.settings.score.tapBubble == 15)
        var bad = ConfigBuilder()
        bad.add(text: "[scoring]\ncombo_bonus = -1\nhigh_scores = 0\n", file: "b.conf")
        let result = bad.finish()
        #expect(result.diagnostics.map(\.description) == [
            "b.conf:2: combo_bonus: expected a whole number from 0 to 10000, got '-1'",
            "b.conf:3: high_scores: expected a whole number from 1 to 100, got '0'",
        ])
        #expect(result.settings.scoring == ScoringSettings())
    }

    @Test func rankAmongTheTable() {
        #expect(ScoreBoard.rank(of: 100, among: [], size: 10) == 1)
        #expect(ScoreBoard.rank(of: 100, among: [200, 100, 50], size: 10) == 3, "ties go to the earlier round")
        #expect(ScoreBoard.rank(of: 10, among: [200, 100, 50], size: 3) == nil)
    }
}
