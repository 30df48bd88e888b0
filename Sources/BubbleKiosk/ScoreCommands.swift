import Glibc
import KioskCore
import KioskPlatform
import KioskScores

/// The store a command reads: `--state-dir DIR`, `$STATE_DIRECTORY`, else /var/lib/bubble-kiosk.
private func storeDirectory(_ args: Arguments) -> String {
    StateDirectory.resolveForReading(flag: args.value("state-dir"))
}

private func parseMode(_ args: Arguments) throws -> Round.Mode? {
    guard let text = args.value("mode") else { return nil }
    guard let mode = Round.Mode(rawValue: text) else {
        throw UsageError("--mode expects classic, timed or joystick, got '\(echoed(text))'")
    }
    return mode
}

/// `bubble-kiosk scores`: the high-score table, or clearing it.
struct ScoresCommand: KioskCommand {
    static let name = "scores"
    static let usage = """
        usage: bubble-kiosk scores [--mode classic|timed|joystick] [--json] [--reset] [--state-dir DIR] [--config F]
        Prints the high-score table of each mode (or of --mode) from scores.db in the state directory
        (--state-dir DIR, else $STATE_DIRECTORY, else /var/lib/bubble-kiosk): rank, score, start (local
        time), duration, bubbles popped; [scoring] high_scores places. --json prints one object:
        {"database":PATH,"classic":[{"rank":1,"score":230,"round_id":17,"started":"2026-12-01T07:20:11",
        "started_ms":1764573611000,"duration_s":21.4,"popped":10},...],"timed":[...]}.
        --reset clears the table (of --mode, or all); the rounds stay in the statistics.
        """

    static func run(_ argv: ArraySlice<String>) throws -> Int32 {
        let args = try Arguments(argv, valued: ["mode", "state-dir", "config"], flags: ["json", "reset"])
        guard args.positionals.isEmpty else { throw UsageError("unexpected argument '\(echoed(args.positionals[0]))'") }
        let mode = try parseMode(args)
        let directory = storeDirectory(args)
        let path = ScoreStore.path(in: directory)
        let modes = mode.map { [$0] } ?? Round.Mode.allCases
        let store = try ScoreStore(existingIn: directory, writable: args.has("reset"))
        if args.has("reset") {
            let cleared = try store?.reset(mode: mode) ?? 0
            if args.has("json") {
                Console.line(JSON.object([("database", .string(path)), ("reset", .array(modes.map { .string($0.rawValue) })),
                                          ("rounds", .int(cleared))]).text)
            } else {
                let all = modes.map(\.rawValue)
                let names = all.count > 1 ? all.dropLast().joined(separator: ", ") + " and " + all[all.count - 1] : all[0]
                Console.line(store == nil ? "no scores yet: \(nothingYet(path))"
                             : "cleared the \(names) high-score table\(modes.count > 1 ? "s" : "") (\(cleared) round\(cleared == 1 ? "" : "s") left it; the statistics keep them)")
            }
            return 0
        }
        let limit = try loadSettings(configPath: args.value("config")).scoring.highScores
        let entries = try store?.highScores(mode: mode, limit: limit) ?? []
        if args.has("json") {
            var pairs: [(String, JSON)] = [("database", .string(path))]
            for m in modes {
                pairs.append((m.rawValue, .array(entries.filter { $0.mode == m }.map { e in
                    .object([("rank", .int(e.rank)), ("score", .int(e.score)), ("round_id", .int(Int(e.roundID))),
                             ("started", .string(e.startedLocal)), ("started_ms", .int(Int(e.startedMS))),
                             ("duration_s", e.durationIsPlausible ? .rounded(Double(e.durationMS) / 1000, 1) : .null), ("popped", .int(e.popped))])
                })))
            }
            Console.line(JSON.object(pairs).text)
            return 0
        }
        if store == nil {
            Console.line("no scores yet: \(nothingYet(path))")
            return 0
        }
        var out = ""
        for m in modes {
            let list = entries.filter { $0.mode == m }
            out += list.isEmpty ? "\(m.rawValue): no high scores yet\n" : "\(m.rawValue):\n"
            for e in list {
                let when = e.startedLocal.replacingFirst("T", with: " ").prefix(16)
                out += "  " + pad("#\(e.rank)", 4) + pad("\(e.score)", 7, right: true) + "  \(when)  "
                    + pad(e.durationText, 8, right: true) + "  \(e.popped) popped\n"
            }
        }
        Console.out(out)
        return 0
    }
}

/// `bubble-kiosk stats`: is anyone using the kiosk?
struct StatsCommand: KioskCommand {
    static let name = "stats"
    static let usage = """
        usage: bubble-kiosk stats [--since YYYY-MM-DD] [--json] [--state-dir DIR]
        Prints play statistics from scores.db in the state directory: rounds people played (finished or
        abandoned by the idle return; demo rounds apart) per day and per hour of the day (local time),
        the share finished and abandoned, and the median score and duration of finished rounds.
        --since counts from that local date on. --json prints one object: {"database":PATH,
        "since":null,"rounds":42,"finished":30,"abandoned":12,"demo":5,"finished_share":0.714,
        "abandoned_share":0.286,"median_score":120,"median_duration_s":34.5,
        "per_day":[{"date":"2026-11-30","rounds":12},...],"per_hour":[24 counts, hour 0 first]}.
        """

    static func run(_ argv: ArraySlice<String>) throws -> Int32 {
        let args = try Arguments(argv, valued: ["since", "state-dir"], flags: ["json"])
        guard args.positionals.isEmpty else { throw UsageError("unexpected argument '\(echoed(args.positionals[0]))'") }
        let since = args.value("since")
        if let since, !isDate(since) {
            throw UsageError("--since expects a date YYYY-MM-DD, got '\(echoed(since))'")
        }
        let directory = storeDirectory(args)
        let path = ScoreStore.path(in: directory)
        let store = try ScoreStore(existingIn: directory)
        let stats = PlayStatistics(try store?.rounds(since: since) ?? [], since: since)
        if args.has("json") {
            func optional(_ v: Double?, _ places: Int) -> JSON { v.map { .rounded($0, places) } ?? .null }
            Console.line(JSON.object([
                ("database", .string(path)),
                ("since", since.map { .string($0) } ?? .null),
                ("rounds", .int(stats.rounds)), ("finished", .int(stats.finished)),
                ("abandoned", .int(stats.abandoned)), ("demo", .int(stats.demo)),
                ("finished_share", optional(stats.finishedShare, 3)), ("abandoned_share", optional(stats.abandonedShare, 3)),
                ("median_score", optional(stats.medianScore, 1)), ("median_duration_s", optional(stats.medianDurationS, 1)),
                ("per_day", .array(stats.perDay.map { .object([("date", .string($0.day)), ("rounds", .int($0.rounds))]) })),
                ("per_hour", .array(stats.perHour.map { .int($0) })),
            ]).text)
            return 0
        }
        if store == nil {
            Console.line("no statistics yet: \(nothingYet(path))")
            return 0
        }
        func percent(_ share: Double?) -> String { share.map { "\(Int(($0 * 100).rounded()))%" } ?? "-" }
        var out = "rounds played" + (since.map { " since \($0)" } ?? "") + ": \(stats.rounds)"
            + " (finished \(stats.finished), \(percent(stats.finishedShare)); abandoned \(stats.abandoned), \(percent(stats.abandonedShare)))"
            + "; demo rounds: \(stats.demo)\n"
        if let score = stats.medianScore, let duration = stats.medianDurationS {
            out += "finished rounds: median score \(JSON.rounded(score, 1).text), median duration \(JSON.rounded(duration, 1).text) s\n"
        }
        if !stats.perDay.isEmpty {
            out += "per day:\n"
            for d in stats.perDay { out += "  \(d.day)  " + pad("\(d.rounds)", 5, right: true) + "\n" }
            out += "per hour:\n"
            let most = stats.perHour.max() ?? 1
            for (h, n) in stats.perHour.enumerated() where n > 0 {
                let bar = String(repeating: "#", count: max(1, n * 40 / max(most, 1)))
                out += "  " + (h < 10 ? "0\(h)" : "\(h)") + ":00  " + pad("\(n)", 5, right: true) + "  \(bar)\n"
            }
        }
        Console.out(out)
        return 0
    }

    /// `YYYY-MM-DD` with a month 1-12 and a day 1-31.
    static func isDate(_ s: String) -> Bool {
        let parts = s.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
              parts.allSatisfy({ $0.allSatisfy { $0.isASCII && $0.isNumber } }),
              let m = Int(parts[1]), let d = Int(parts[2]) else { return false }
        return (1...12).contains(m) && (1...31).contains(d)
    }
}

/// `bubble-kiosk score-writer-test` (not in the usage text): the power-loss test's writer. Writes
/// a stream of rounds through the kiosk's writer thread and prints `committed ID` for each round
/// as soon as its commit returned; the test kills it with SIGKILL at random moments.
struct ScoreWriterTestCommand: KioskCommand {
    static let name = "score-writer-test"
    static let usage = """
        usage: bubble-kiosk score-writer-test --state-dir DIR [--seed N] [--rounds N]
        Writes N rounds (default: until killed) to DIR/scores.db through the score writer thread,
        printing "committed ID" after each commit returned. For the power-loss test.
        """

    static func run(_ argv: ArraySlice<String>) throws -> Int32 {
        let args = try Arguments(argv, valued: ["state-dir", "seed", "rounds"], flags: [])
        guard let directory = args.value("state-dir") else { throw UsageError("--state-dir DIR is required") }
        let rounds = try args.int("rounds", default: Int.max, range: 1...Int.max)
        var rng = SeededGenerator(seed: try args.seed() ?? 1)
        let clock = SystemWallClock()
        let writer = try ScoreWriter(directory: directory, start: clock.local(SystemWallClock.now()))
        defer { writer.stop() }
        var written = 0
        while written < rounds {
            let now = clock.local(SystemWallClock.now())
            let record = RoundRecord(started: now.wall, duration: .milliseconds(rng.next() % 60_000),
                                     mode: rng.next() % 2 == 0 ? .classic : .timed, score: Int(rng.next() % 500),
                                     popped: Int(rng.next() % 12), outcome: RoundOutcome.allCases[Int(rng.next() % 3)])
            writer.post(.record(record, roundStart: TimeStamp(microseconds: Int64(written)), tableSize: 10, rows: 0, at: now))
            var done = false
            while !done {
                for result in writer.results.wait() {
                    switch result {
                    case .recorded(let id, _, _, _, _):
                        Console.line("committed \(id)")
                        done = true
                    case .log(_, let line):
                        Console.errorLine(line)
                        // A round that could not be saved is not waited for.
                        if line.containsText("cannot save") { done = true }
                    case .board:
                        break
                    }
                }
            }
            written += 1
        }
        return 0
    }
}

/// Why a command has nothing to show: no file yet, or one the kiosk has not made tables in.
private func nothingYet(_ path: String) -> String {
    echoed(path, limit: 200) + (FileSystem.exists(path) ? " holds no tables yet" : " does not exist")
}

private func pad(_ s: String, _ width: Int, right: Bool = false) -> String {
    let fill = String(repeating: " ", count: max(0, width - s.count))
    return right ? fill + s : s + fill
}

extension String {
    fileprivate func replacingFirst(_ target: Character, with replacement: String) -> String {
        guard let i = firstIndex(of: target) else { return self }
        return String(self[..<i]) + replacement + String(self[index(after: i)...])
    }
}
