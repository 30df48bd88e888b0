import KioskCore
import KioskRender
import Testing
import KioskTestSupport

/// The kiosk's key screens, drawn the way the running kiosk draws them (session, scene builder,
/// renderer) and compared with checked-in PNGs.
@Suite struct ScreenGoldenTests {
    static let size = PixelSize(width: 640, height: 400)

    /// A session on a small screen at 2.5 px/mm, the demo off so nothing moves by itself.
    static func session(seed: UInt64 = 21) -> KioskSession {
        makeSession(size: size, pxPerMM: 2.5, seed: seed) { $0.attract.demo = false }
    }

    static func tap(_ s: inout KioskSession, _ p: Vector2, at ms: Double, builder: inout SceneBuilder) {
        let down = TouchFrame(time: TimeStamp(milliseconds: ms), contacts: [TouchPoint(slot: 0, trackingID: Int(ms), position: p)])
        builder.note(s.process(down), round: s.game.round, at: down.time)
        let up = TouchFrame(time: TimeStamp(milliseconds: ms + 50), contacts: [])
        builder.note(s.process(up), round: s.game.round, at: up.time)
    }

    static func swipe(_ s: inout KioskSession, _ b: Bubble, angle: Double, at ms: Double, builder: inout SceneBuilder) {
        let end = b.center + Angle.unitVector(degrees: angle) * 60
        for i in 0...8 {
            let p = b.center + (end - b.center) * (Double(i) / 8)
            let f = TouchFrame(time: TimeStamp(milliseconds: ms + Double(i) * 10),
                               contacts: [TouchPoint(slot: 0, trackingID: Int(ms), position: p)])
            builder.note(s.process(f), round: s.game.round, at: f.time)
        }
        let up = TouchFrame(time: TimeStamp(milliseconds: ms + 90), contacts: [])
        builder.note(s.process(up), round: s.game.round, at: up.time)
        // The swipe goes out when the bounce time after the lift has passed, as the loop would see.
        let settled = (up.time + s.game.settings.gestures.bounce)
        builder.note(s.advance(to: settled), round: s.game.round, at: settled)
    }

    /// A finger down on `from`, carried to `to` over 300 ms at 60 Hz, held still; lifted unless
    /// `lift` is false. Returns when the last frame went in.
    @discardableResult
    /// Pops every bubble of the round in play, one gesture every 400 ms from `ms`; returns the
    /// time after the last one.
    static func clearRound(_ s: inout KioskSession, from ms: Double, builder: inout SceneBuilder) throws -> Double {
        var t = ms
        for b in try #require(s.game.round).bubbles {
            switch b.kind {
            case .tap(let n):
                for _ in 0..<n {
                    tap(&s, b.center, at: t, builder: &builder)
                    t += 400
                }
            case .swipe(let a):
                swipe(&s, b, angle: a, at: t, builder: &builder)
                t += 400
            case .drag:
                let goal = try #require(s.game.round?.goal)
                t = drag(&s, from: b.center, to: goal.center, at: t, builder: &builder) + 400
            }
        }
        return t
    }

    static func drag(_ s: inout KioskSession, from: Vector2, to: Vector2, at ms: Double, lift: Bool = true,
                     builder: inout SceneBuilder) -> Double {
        var t = ms
        for i in 0...18 {
            let p = from + (to - from) * (Double(i) / 18)
            let f = TouchFrame(time: TimeStamp(milliseconds: t), contacts: [TouchPoint(slot: 0, trackingID: Int(ms), position: p)])
            builder.note(s.process(f), round: s.game.round, at: f.time)
            t += 1000.0 / 60
        }
        guard lift else { return t }
        let up = TouchFrame(time: TimeStamp(milliseconds: t + 100), contacts: [])
        builder.note(s.process(up), round: s.game.round, at: up.time)
        let settled = (up.time + s.game.settings.gestures.bounce)
        builder.note(s.advance(to: settled), round: s.game.round, at: settled)
        return (settled - .zero).inMilliseconds
    }

    static func render(_ s: KioskSession, _ builder: inout SceneBuilder, at ms: Double) -> Frame {
        let renderer = SceneRenderer(size: size)
        renderer.render(builder.scene(s, at: TimeStamp(milliseconds: ms)))
        return renderer.frame
    }

    static func startButton(_ s: KioskSession) -> Vector2 {
        s.game.button.center
    }

    @Test func startScreen() {
        let s = Self.session()
        var builder = SceneBuilder(field: s.game.field, seed: 21)
        Golden.check(Self.render(s, &builder, at: 100), named: "screen-start")
    }

    /// The start screen with today's and all-time best scores under the button.
    @Test func startScreenWithHighScores() {
        let s = Self.session()
        var builder = SceneBuilder(field: s.game.field, seed: 21)
        builder.scores = ScoreBoard(lists: [.classic: ScoreBoard.Lists(today: [180, 90], allTime: [420, 310, 180]),
                                            .timed: ScoreBoard.Lists(today: [1], allTime: [1])])
        Golden.check(Self.render(s, &builder, at: 100), named: "screen-start-high-scores")
    }

    @Test func midRoundWithEachBubbleKind() throws {
        var s = Self.session()
        var builder = SceneBuilder(field: s.game.field, seed: 21)
        Self.tap(&s, Self.startButton(s), at: 0, builder: &builder)
        let round = try #require(s.game.round)
        #expect(round.bubbles.contains { $0.kindName == "tap" } && round.bubbles.contains { $0.kindName == "swipe" })
        // One tap on a bubble needing several (its digit counts down), one swipe bubble popped.
        let multi = try #require(round.bubbles.first { $0.tapsLeft >= 2 })
        Self.tap(&s, multi.center, at: 1000, builder: &builder)
        let arrow = try #require(round.bubbles.first { $0.kindName == "swipe" })
        let angle = try #require(arrow.swipeAngle)
        Self.swipe(&s, arrow, angle: angle, at: 1500, builder: &builder)
        #expect(s.game.round?.score == 20)
        // 12.3 s in: the clock reads 0:12, the pop's sparks are gone.
        Golden.check(Self.render(s, &builder, at: 12_300), named: "screen-mid-round")
    }

    @Test func roundOver() throws {
        var s = Self.session()
        var builder = SceneBuilder(field: s.game.field, seed: 21)
        Self.tap(&s, Self.startButton(s), at: 0, builder: &builder)
        let t = try Self.clearRound(&s, from: 1000, builder: &builder)
        #expect(s.game.screen == .roundOver)
        Golden.check(Self.render(s, &builder, at: t + 2000), named: "screen-round-over")
    }

    /// A round that made the table: its rank under the button, and the bonuses it earned.
    @Test func roundOverWithANewHighScore() throws {
        var settings = Settings.classicOnly
        settings.attract.demo = false
        settings.scoring.comboBonus = 5
        settings.scoring.timeBonusPerSecond = 10
        let field = PlayField(size: Self.size, pxPerMM: 2.5, game: settings.game)
        var s = KioskSession(game: KioskGame(field: field, settings: settings, seed: 21, at: .zero))
        var builder = SceneBuilder(field: s.game.field, seed: 21)
        Self.tap(&s, Self.startButton(s), at: 0, builder: &builder)
        let t = try Self.clearRound(&s, from: 1000, builder: &builder)
        let round = try #require(s.game.round)
        #expect(s.game.screen == .roundOver && round.comboBonus > 0 && round.timeBonus > 0)
        builder.scores = ScoreBoard(celebration: ScoreBoard.Celebration(roundStart: round.startTime, rank: 2, score: round.score))
        Golden.check(Self.render(s, &builder, at: t + 2000), named: "screen-round-over-high-score")
        // The rank of another round is not shown.
        builder.scores = ScoreBoard(celebration: ScoreBoard.Celebration(roundStart: .zero, rank: 2, score: 1))
        let scene = builder.scene(s, at: TimeStamp(milliseconds: t + 2000))
        #expect(!scene.items.contains { $0.id == .ui("high-score") })
    }

    /// A drag bubble held up by a finger: lifted, with its soft offset shadow, over the round's
    /// basket; and then carried over the basket, which lights up.
    @Test func dragBubbleLifted() throws {
        // Seed 22's round has drag bubbles (21's has none).
        var s = Self.session(seed: 22)
        var builder = SceneBuilder(field: s.game.field, seed: 21)
        Self.tap(&s, Self.startButton(s), at: 0, builder: &builder)
        let round = try #require(s.game.round)
        let goal = try #require(round.goal)
        let b = try #require(round.bubbles.first { $0.kind == .drag })
        // Grabbed off-centre: the bubble keeps that offset from the finger.
        let grab = b.center + Vector2(b.radius * 0.4, 0)
        let end = Self.drag(&s, from: grab, to: grab + Vector2(0, -20), at: 1000, lift: false, builder: &builder)
        let held = try #require(s.game.round?.bubbles.first { $0.id == b.id }?.carry)
        #expect(abs(held.position.x - b.center.x) < 0.01 && abs(held.position.y - (b.center.y - 20)) < 0.01)
        Golden.check(Self.render(s, &builder, at: end + 200), named: "screen-drag-lifted")
        var over = Self.session(seed: 22)
        var overBuilder = SceneBuilder(field: over.game.field, seed: 21)
        Self.tap(&over, Self.startButton(over), at: 0, builder: &overBuilder)
        let onGoal = Self.drag(&over, from: b.center, to: goal.center, at: 1000, lift: false, builder: &overBuilder)
        Golden.check(Self.render(over, &overBuilder, at: onGoal + 200), named: "screen-drag-over-goal")
    }
}
