import Foundation
import Testing

/// The joystick mode through the real binary: `state`, `round-recording` and `play` with
/// `--mode joystick`, and a kiosk run whose joystick round lands in its own high-score table.
@Suite struct JoystickCommandTests {
    @Test func playPrintsTheCatcherAndWhatItCollected() throws {
        let rec = try CommandRunner.run(["round-recording", "--seed", "7", "--size", "1280x800", "--mode", "joystick",
                                         "--no-start"])
        #expect(rec.status == 0, "\(rec.stderr)")
        let file = try CommandRunner.temporaryDirectory().appendingPathComponent("joystick.evemu")
        try rec.stdout.write(to: file, atomically: true, encoding: .utf8)
        let state = try CommandRunner.run(["state", "--seed", "7", "--size", "1280x800", "--mode", "joystick"]).json()
        let initial = try #require(state["bubbles"] as? [[String: Any]]).count

        let r = try CommandRunner.run(["play", file.path, "--seed", "7", "--size", "1280x800", "--mode", "joystick"])
        #expect(r.status == 0, "\(r.stderr)")
        let out = try r.json()
        // The keys every mode prints are all there.
        for key in ["score", "popped", "remaining", "round_over", "combo_bonus", "time_bonus", "best_combo", "bubbles"] {
            #expect(out[key] != nil, "\(key)")
        }
        let catcher = try #require(out["catcher"] as? [String: Any])
        let x = try #require(catcher["x"] as? Double), y = try #require(catcher["y"] as? Double)
        #expect(x != 640 || y != 424, "the catcher moved from the field's middle")
        let collected = try #require(out["collected"] as? [Int])
        #expect(collected.count >= initial, "the recording steers onto every bubble of the start")
        let bubbles = try #require(out["bubbles"] as? [[String: Any]])
        let popped = Set(bubbles.filter { $0["popped"] as? Bool == true }.compactMap { $0["id"] as? Int })
        #expect(Set(collected).isSubset(of: popped))
        #expect(out["popped"] as? Int == popped.count)
        let stick = try #require(out["joystick"] as? [String: Any])
        #expect(stick["angle_deg"] as? Int == 0 && stick["distance_px"] as? Double == 0, "the knob snapped back")

        let bad = try CommandRunner.run(["play", file.path, "--seed", "7", "--size", "1280x800", "--mode", "joy"])
        #expect(bad.status == 2 && bad.stderr.contains("classic, timed or joystick"))
    }

    @Test func aJoystickRoundIsRankedInItsOwnTable() throws {
        let dir = try CommandRunner.temporaryDirectory()
        let conf = dir.appendingPathComponent("kiosk.conf")
        try "[attract]\ndemo = false\n[modes]\nclassic = false\njoystick = true\n[joystick]\nduration_s = 6\n"
            .write(to: conf, atomically: true, encoding: .utf8)
        let rec = try CommandRunner.run(["round-recording", "--seed", "3", "--size", "640x400", "--mode", "joystick",
                                         "--config", conf.path, "--pop", "3"])
        #expect(rec.status == 0, "\(rec.stderr)")
        let file = dir.appendingPathComponent("round.evemu")
        try rec.stdout.write(to: file, atomically: true, encoding: .utf8)
        let run = try CommandRunner.run(["run", "--display", "virtual:640x400", "--input", "replay:\(file.path)",
                                         "--seed", "3", "--duration", "8", "--state-dir", dir.path, "--config", conf.path])
        #expect(run.status == 0, "\(run.stderr)")
        let table = try CommandRunner.run(["scores", "--json", "--mode", "joystick", "--state-dir", dir.path]).json()
        let joystick = try #require(table["joystick"] as? [[String: Any]])
        #expect(joystick.count == 1)
        #expect((joystick.first?["score"] as? Int ?? 0) > 0)
        #expect(table["classic"] == nil)
        let all = try CommandRunner.run(["scores", "--json", "--state-dir", dir.path]).json()
        #expect((all["classic"] as? [Any])?.isEmpty == true && (all["joystick"] as? [Any])?.count == 1)
    }
}
