/// Log lines that come in spells (a dashboard slider dragged, an automation in a loop): the
/// lines of the first event of a spell are logged as they are; the lines of the events after it
/// are only counted, and one summary line stands for them when the spell ends (no event for
/// `quiet`) or, while it goes on, every `summaryEvery`. A spell is per key (a command topic).
public struct LogSpells<Key: Hashable & Sendable, Line: Sendable>: Sendable {
    /// One summary: the last line held back, how many were held back, over how long.
    public struct Summary: Sendable {
        public let key: Key
        public let last: Line
        public let count: Int
        /// From the first line held back to the spell's latest event.
        public let span: Duration
        /// When the first line was held back (summaries due together come in this order).
        public let since: TimeStamp
    }

    private struct Spell: Sendable {
        /// When its latest event came.
        var latest: TimeStamp
        /// Events in the spell; the first one's lines go out as they are.
        var events = 1
        /// Lines held back since the last summary, the last of them, and when holding began.
        var held = 0
        var last: Line?
        var heldSince: TimeStamp?
    }

    public static var defaultQuiet: Duration { .seconds(10) }
    public static var defaultSummaryEvery: Duration { .seconds(60) }

    public let quiet: Duration
    public let summaryEvery: Duration
    private var spells: [Key: Spell] = [:]

    public init(quiet: Duration = defaultQuiet, summaryEvery: Duration = defaultSummaryEvery) {
        self.quiet = max(quiet, .milliseconds(1))
        self.summaryEvery = max(summaryEvery, self.quiet)
    }

    /// An event on `key` at `now` (a command carried out); its lines follow with `line`. When it
    /// opens a new spell while the last one's summary is still owed, that summary comes back
    /// (log it first).
    @discardableResult
    public mutating func event(_ key: Key, at now: TimeStamp) -> Summary? {
        if var spell = spells[key], now - spell.latest < quiet {
            spell.latest = now
            spell.events += 1
            spells[key] = spell
            return nil
        }
        let owed = spells[key].flatMap(Self.summary(key))
        spells[key] = Spell(latest: now)
        return owed
    }

    private static func summary(_ key: Key) -> (Spell) -> Summary? {
        { spell in
            guard spell.held > 0, let last = spell.last, let since = spell.heldSince else { return nil }
            return Summary(key: key, last: last, count: spell.held, span: spell.latest - since, since: since)
        }
    }

    /// A line of the latest event on `key`: true when it goes out now (the spell's first event),
    /// false when it is held back for the summary.
    public mutating func line(_ key: Key, _ line: Line, at now: TimeStamp) -> Bool {
        guard var spell = spells[key], spell.events > 1 else { return true }
        spell.held += 1
        spell.last = line
        if spell.heldSince == nil { spell.heldSince = now }
        spells[key] = spell
        return false
    }

    /// The summaries due at `now`: spells that ended, and long ones at their interval. A spell
    /// that ended with nothing held back ends silently.
    public mutating func due(at now: TimeStamp) -> [Summary] {
        var out: [Summary] = []
        for (key, var spell) in spells {
            let ended = now - spell.latest >= quiet
            let long = spell.heldSince.map { now - $0 >= summaryEvery } ?? false
            if ended || long, let summary = Self.summary(key)(spell) {
                out.append(summary)
                spell.held = 0
                spell.last = nil
                spell.heldSince = nil
            }
            spells[key] = ended ? nil : spell
        }
        return out.sorted { $0.since < $1.since }
    }

    /// When `due` has something to do next; nil when no spell is open.
    public var nextDeadline: TimeStamp? {
        spells.values.map { spell in
            let end = spell.latest + quiet
            return spell.heldSince.map { min(end, $0 + summaryEvery) } ?? end
        }.min()
    }
}
