import Foundation
import Testing

/// `scores`, `stats` and the scoring rules through the real binary.
@Suite struct ScoreCommandTests {
    /// A kiosk that plays one whole classic round from a recording into `dir`'s scores.db.
    static func playOneRound(into dir: URL) throws {
        let rec = try CommandRunner.run(["round-recording", "--seed", "3", "--size", "640x400"])
        let file = dir.appendingPathComponent("round.evemu")
        try rec.stdout.write(to: file, atomically: true, encoding: .utf8)
        // The high_score hook gets the new high score on standard input.
        let conf = dir.appendingPathComponent("kiosk.conf")
        try "[attract]\ndemo = false\n[hooks]\nhigh_score = /bin/cat\n".write(to: conf, atomically: true, encoding: .utf8)
        let run = try CommandRunner.run(["run", "--display", "virtual:640x400", "--input", "replay:\(file.path)",
                                         "--seed", "3", "--duration", "7", "--state-dir", dir.path, "--config", conf.path])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.contains("new high score"), "\(run.stderr)")
        #expect(run.stderr.contains(#"hook high_score["#) && run.stderr.contains(#""event":"high_score","#)
                && run.stderr.contains(#""mode":"classic","score":"#) && run.stderr.contains(#""rank":1,"round_id":1}"#),
                "\(run.stderr)")
        #expect(!run.stderr.contains("cannot save"), "\(run.stderr)")
    }

    @Test func aPlayedRoundShowsInScoresAndStats() throws {
        let dir = try CommandRunner.temporaryDirectory()
        try Self.playOneRound(into: dir)
        let scores = try CommandRunner.run(["scores", "--json", "--state-dir", dir.path])
        #expect(scores.status == 0, "\(scores.stderr)")
        let table = try scores.json()
        #expect(table["database"] as? String == dir.appendingPathComponent("scores.db").path)
        let classic = try #require(table["classic"] as? [[String: Any]])
        #expect(classic.count == 1)
        #expect(classic.first?["rank"] as? Int == 1)
        #expect(classic.first?["popped"] as? Int == 10)
        #expect((classic.first?["score"] as? Int ?? 0) > 50)
        #expect((classic.first?["started"] as? String)?.count == 19)
        #expect((classic.first?["duration_s"] as? Double ?? 0) > 1)
        #expect((table["timed"] as? [Any])?.isEmpty == true)

        let text = try CommandRunner.run(["scores", "--mode", "classic"], environment: ["STATE_DIRECTORY": dir.path])
        #expect(text.status == 0)
        // --state-dir, typed on purpose, beats the service's variable (an empty store elsewhere).
        let other = try CommandRunner.temporaryDirectory()
        let named = try CommandRunner.run(["scores", "--json", "--state-dir", dir.path], environment: ["STATE_DIRECTORY": other.path])
        #expect(try named.json()["database"] as? String == dir.appendingPathComponent("scores.db").path)
        #expect(text.stdout.hasPrefix("classic:\n  #1  "), "\(text.stdout)")
        #expect(!text.stdout.contains("timed"))

        let stats = try CommandRunner.run(["stats", "--json", "--state-dir", dir.path]).json()
        #expect(stats["rounds"] as? Int == 1 && stats["finished"] as? Int == 1 && stats["abandoned"] as? Int == 0)
        #expect(stats["finished_share"] as? Double == 1)
        #expect(stats["median_score"] as? Double == Double(classic.first?["score"] as? Int ?? 0))
        #expect((stats["per_hour"] as? [Int])?.count == 24 && (stats["per_hour"] as? [Int])?.reduce(0, +) == 1)
        #expect((stats["per_day"] as? [[String: Any]])?.first?["rounds"] as? Int == 1)
        #expect(stats["since"] is NSNull)
        let statsText = try CommandRunner.run(["stats", "--state-dir", dir.path])
        #expect(statsText.stdout.hasPrefix("rounds played: 1 (finished 1, 100%; abandoned 0, 0%); demo rounds: 0\n"), "\(statsText.stdout)")
        let future = try CommandRunner.run(["stats", "--json", "--since", "2999-01-01", "--state-dir", dir.path]).json()
        #expect(future["rounds"] as? Int == 0 && future["median_score"] is NSNull)

        // Clearing the table keeps the statistics.
        let reset = try CommandRunner.run(["scores", "--reset", "--state-dir", dir.path])
        #expect(reset.status == 0)
        #expect(reset.stdout == "cleared the classic, timed and joystick high-score tables (1 round left it; the statistics keep them)\n")
        let after = try CommandRunner.run(["scores", "--json", "--state-dir", dir.path]).json()
        #expect((after["classic"] as? [Any])?.isEmpty == true)
        let statsAfter = try CommandRunner.run(["stats", "--json", "--state-dir", dir.path]).json()
        #expect(statsAfter["rounds"] as? Int == 1)
    }

    @Test func noDatabaseYetIsNoError() throws {
        let dir = try CommandRunner.temporaryDirectory()
        let scores = try CommandRunner.run(["scores", "--state-dir", dir.path])
        #expect(scores.status == 0)
        #expect(scores.stdout == "no scores yet: \(dir.path)/scores.db does not exist\n")
        let json = try CommandRunner.run(["scores", "--json", "--mode", "timed", "--state-dir", dir.path]).json()
        #expect((json["timed"] as? [Any])?.isEmpty == true && json["classic"] == nil)
        let stats = try CommandRunner.run(["stats", "--state-dir", dir.path])
        #expect(stats.status == 0 && stats.stdout.hasPrefix("no statistics yet"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).isEmpty, "the commands create nothing")
    }

    @Test func aDamagedDatabaseIsAnErrorForTheCommands() throws {
        let dir = try CommandRunner.temporaryDirectory()
        try Data(repeating: 0x41, count: 4096).write(to: dir.appendingPathComponent("scores.db"))
        let r = try CommandRunner.run(["scores", "--state-dir", dir.path])
        #expect(r.status == 1)
        #expect(r.stderr.hasPrefix("bubble-kiosk scores: \(dir.path)/scores.db: "), "\(r.stderr)")
        #expect(r.stderr.contains("not a database"), "\(r.stderr)")
    }

    /// `scores`/`stats` made tables in a zero-length file and read a plain file as an empty state folder.
    @Test func theCommandsNeverWriteAndSayWhatIsWrong() throws {
        let dir = try CommandRunner.temporaryDirectory()
        let db = dir.appendingPathComponent("scores.db")
        try Data().write(to: db)
        for command in ["scores", "stats"] {
            let r = try CommandRunner.run([command, "--state-dir", dir.path])
            #expect(r.status == 0, "\(r.stderr)")
            #expect(r.stdout.hasSuffix(": \(db.path) holds no tables yet\n"), "\(r.stdout)")
        }
        #expect(try Data(contentsOf: db).isEmpty, "the commands wrote to the file")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["scores.db"])

        try Data(repeating: 0x41, count: 4096).write(to: db)
        let damaged = try CommandRunner.run(["stats", "--state-dir", dir.path])
        #expect(damaged.status == 1)
        #expect(damaged.stderr.contains("not a score database"), "\(damaged.stderr)")
        #expect(damaged.stderr.contains("the kiosk will move it aside (scores.db.corrupt-TIMESTAMP) and start a new one"), "\(damaged.stderr)")

        let plain = dir.appendingPathComponent("plain")
        try Data([1]).write(to: plain)
        let fifo = dir.appendingPathComponent("fifo").path
        #expect(mkfifo(fifo, 0o600) == 0)
        for state in [plain.path, fifo, "/dev/zero"] {
            for command in ["scores", "stats"] {
                let r = try CommandRunner.run([command, "--state-dir", state])
                #expect(r.status == 1, "\(command) --state-dir \(state): \(r.stdout)")
                #expect(r.stderr == "bubble-kiosk \(command): \(state): not a directory (the state folder holding scores.db)\n", "\(r.stderr)")
            }
        }
    }

    /// A -wal beside a database that keeps none is another database's: the commands do not read through it.
    @Test func aStrayWALIsReportedNotRead() throws {
        let dir = try CommandRunner.temporaryDirectory()
        let w = try CommandRunner.run(["score-writer-test", "--state-dir", dir.path, "--rounds", "2"])
        #expect(w.status == 0, "\(w.stderr)")
        let wal = dir.appendingPathComponent("scores.db-wal")
        try Data(repeating: 7, count: 100).write(to: wal)
        let r = try CommandRunner.run(["scores", "--state-dir", dir.path])
        #expect(r.status == 1)
        #expect(r.stderr.contains("scores.db-wal: left from another database"), "\(r.stderr)")
        #expect(try Data(contentsOf: wal) == Data(repeating: 7, count: 100))
    }

    @Test func wrongArgumentsExitTwo() throws {
        for (args, message) in [(["scores", "--mode", "arcade"], "--mode expects classic, timed or joystick, got 'arcade'"),
                                (["stats", "--since", "2026-13-01"], "--since expects a date YYYY-MM-DD, got '2026-13-01'"),
                                (["stats", "--since", "yesterday"], "--since expects a date YYYY-MM-DD, got 'yesterday'"),
                                (["scores", "extra"], "unexpected argument 'extra'")] {
            let r = try CommandRunner.run(args)
            #expect(r.status == 2, "\(args)")
            #expect(r.stderr.hasPrefix("bubble-kiosk \(args[0]): \(message)\n"), "\(args): \(r.stderr)")
        }
        let usage = try CommandRunner.run(["--help"])
        #expect(usage.stdout.contains("\n  scores [--mode M] [--json] [--reset]"))
        #expect(usage.stdout.contains("\n  stats [--since YYYY-MM-DD] [--json]"))
    }

    @Test func combosAndTheTimeBonusShowInPlay() throws {
        let dir = try CommandRunner.temporaryDirectory()
        let file = try PlayCommandTests.recording(seed: 3, size: "1280x800")
        let conf = dir.appendingPathComponent("bonus.conf")
        try "[scoring]\ncombo_bonus = 5\ncombo_window_ms = 2000\ntime_bonus_per_s = 10\npar_time_s = 60\n"
            .write(to: conf, atomically: true, encoding: .utf8)
        let plain = try CommandRunner.run(["play", file.path, "--seed", "3", "--size", "1280x800"]).json()
        #expect(plain["combo_bonus"] as? Int == 0 && plain["time_bonus"] as? Int == 0)
        let r = try CommandRunner.run(["play", file.path, "--seed", "3", "--size", "1280x800", "--config", conf.path])
        #expect(r.status == 0, "\(r.stderr)")
        let bonus = try r.json()
        let combo = try #require(bonus["combo_bonus"] as? Int)
        let time = try #require(bonus["time_bonus"] as? Int)
        #expect(combo > 0 && time > 0, "\(bonus)")
        #expect(combo % 5 == 0 && time % 10 == 0)
        #expect(bonus["best_combo"] as? Int ?? 0 >= 2)
        #expect(bonus["score"] as? Int == (plain["score"] as? Int ?? 0) + combo + time)
    }
}
