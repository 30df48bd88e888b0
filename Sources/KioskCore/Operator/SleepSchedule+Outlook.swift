/// What the schedule will do next, on a given clock: `check-config` and `devices` print it, so
/// an operator sees at once whether `Mon-Fri 22:00-07:00` sleeps when they meant it to.
extension SleepSchedule {
    /// `next Mon 2026-12-07 22:00 CET until Tue 2026-12-08 07:00 CET`,
    /// `now (Sat,Sun closed) until Mon 2026-12-07 00:00 CET`, `... with no end` when it never
    /// wakes by itself, `none`, or `none ahead` (only past dates).
    public func outlook(at w: WallTime, clock: WallClock) -> String {
        guard !isEmpty else { return "none" }
        let now = Moment(clock.local(w))
        func until(_ start: Moment) -> String {
            wake(from: start).map { "until " + Self.stamp($0, clock: clock) } ?? "with no end"
        }
        if let holding = clause(at: now) { return "now (\(holding)) " + until(now) }
        guard let start = sleep(from: now) else { return "none ahead" }
        return "next \(Self.stamp(start, clock: clock)) " + until(start)
    }

    /// `Mon 2026-12-07 22:00 CET`: the moment as the clock shows it then (after a gap
    /// daylight saving skips: the gap's end), with the zone's name then.
    static func stamp(_ m: Moment, clock: WallClock) -> String {
        let local = clock.local(clock.wallTime(localDay: m.day, minute: m.minute))
        let shown = Moment(local)
        return "\(shown.description) \(local.zone)"
    }
}
