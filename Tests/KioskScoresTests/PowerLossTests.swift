import Foundation
import KioskCore
import KioskTestSupport
import Testing
@testable import KioskScores

/// The power-loss test: `bubble-kiosk score-writer-test` writes a stream of rounds through the
/// kiosk's writer thread and prints `committed ID` after each commit returned; it is killed with
/// SIGKILL at random moments (seeded), and after every kill the database must open as the kiosk
/// opens it (nothing moved aside), pass `PRAGMA integrity_check`, and hold every round whose
/// commit was reported. Tagged for timing: the 200 kills are to take less than 90 s.
@Suite(.tags(.timing)) struct PowerLossTests {
    /// The binary, next to the test bundle in .build/<triple>/debug.
    static var binary: URL {
        var dir = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        if dir.lastPathComponent.hasSuffix(".xctest") { dir.deleteLastPathComponent() }
        return dir.appendingPathComponent("bubble-kiosk")
    }

    @Test func everyReportedCommitSurvivesSIGKILL() throws {
        let seed = UInt64(ProcessInfo.processInfo.environment["BUBBLE_KIOSK_KILL_SEED"] ?? "") ?? 20261201
        var rng = SeededGenerator(seed: seed)
        let dir = temporaryDirectory()
        let kills = 200
        var reported = Set<Int64>()
        var lastReported: Int64 = 0
        var killedMidStream = 0
        let clock = ContinuousClock()
        let started = clock.now
        for kill in 0..<kills {
            let p = Process()
            p.executableURL = Self.binary
            p.arguments = ["score-writer-test", "--state-dir", dir, "--seed", "\(rng.next() % 1_000_000)"]
            let out = Pipe()
            p.standardOutput = out
            p.standardError = FileHandle.nullDevice
            try p.run()
            // One run in four is killed counting from the process start, so kills land while it
            // opens and recovers the database; the others from its first commit on, mid-stream.
            var early = Data()
            if rng.next() % 4 != 0 {
                early = out.fileHandleForReading.availableData
            }
            // The kill's moment is the point of the test: a random pause, up to 40 ms.
            pause(for: .microseconds(rng.next() % 40_000))
            Glibc.kill(p.processIdentifier, SIGKILL)
            p.waitUntilExit()
            #expect(p.terminationReason == .uncaughtSignal, "run \(kill) ended by itself")
            let text = String(decoding: early + out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            // Only whole lines: a line cut by the kill may not be finished.
            var lines = text.split(separator: "\n", omittingEmptySubsequences: false)
            lines.removeLast()
            let ids = lines.compactMap { $0.hasPrefix("committed ") ? Int64($0.dropFirst(10)) : nil }
            if !ids.isEmpty { killedMidStream += 1 }
            for id in ids {
                #expect(id > lastReported, "ids grow: \(id) after \(lastReported)")
                lastReported = max(lastReported, id)
                reported.insert(id)
            }
            // Reopen as the kiosk does: recovery of the WAL, quick_check, nothing moved aside.
            let store = try ScoreStore(directory: dir)
            #expect(store.notes.isEmpty, "run \(kill) (seed \(seed)): \(store.notes)")
            #expect(try store.integrityCheck() == ["ok"], "run \(kill) (seed \(seed))")
            let stored = Set(try store.roundIDs())
            let missing = reported.subtracting(stored)
            #expect(missing.isEmpty, "run \(kill) (seed \(seed)): reported commits missing: \(missing.sorted().prefix(10))")
            if !missing.isEmpty { break }
        }
        let elapsed = clock.now - started
        print("power-loss test: \(kills) SIGKILLs, \(reported.count) reported commits, \(killedMidStream) kills mid-stream, \(elapsed)")
        #expect(killedMidStream >= kills / 2, "most kills should land while rounds are being written")
        #expect(reported.count > kills, "a stream of rounds was written")
        #expect(!listing(dir).contains { $0.contains("corrupt") })
        #expect(elapsed < .seconds(90))
    }
}
