/// Times and spans together: a `TimeStamp` moves by a `Duration`, and two of them are a
/// `Duration` apart, so deadlines and intervals need no hand conversion from milliseconds.
extension TimeStamp {
    /// `t` moved by `d` (to the nearest microsecond), saturating at the ends of the range.
    public static func + (t: TimeStamp, d: Duration) -> TimeStamp {
        t.adding(microseconds: d.wholeMicroseconds)
    }

    /// `t` moved back by `d`, saturating as `+` does.
    public static func - (t: TimeStamp, d: Duration) -> TimeStamp {
        t + (.zero - d)
    }

    /// How long from `b` to `a` (negative when `a` is earlier).
    public static func - (a: TimeStamp, b: TimeStamp) -> Duration {
        // Each side fits a Duration, and so does their difference: no overflow here.
        .microseconds(a.microseconds) - .microseconds(b.microseconds)
    }
}

extension Duration {
    /// To the nearest microsecond (halves away from zero), clamped to what an Int64 holds.
    public var wholeMicroseconds: Int64 {
        let (seconds, attoseconds) = components
        let (scaled, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000)
        if overflow { return seconds < 0 ? .min : .max }
        let half: Int64 = attoseconds < 0 ? -500_000_000_000 : 500_000_000_000
        return TimeStamp.saturatingSum(scaled, (attoseconds + half) / 1_000_000_000_000)
    }

    /// In milliseconds (to the nearest microsecond), as logs, metrics and settings count them;
    /// a span too long for an Int64 of microseconds (two extreme times apart) still comes out.
    public var inMilliseconds: Double {
        let (seconds, attoseconds) = components
        if seconds >= Int64.max / 1_000_000 || seconds <= Int64.min / 1_000_000 {
            return Double(seconds) * 1000 + Double(attoseconds) / 1e15
        }
        return Double(wholeMicroseconds) / 1000
    }

    /// In seconds.
    public var inSeconds: Double { inMilliseconds / 1000 }
}
