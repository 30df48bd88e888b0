import KioskCore

/// A wall clock that always reads the same moment, whatever the loop's time: tests that assert
/// the exact wall time an event carries (a hook's `time`, a round's start in the store, the
/// metrics' last touch). Its local calendar is a fixed-offset zone in which that moment shows
/// `hour:minute`, so schedules see the time of day a test chooses.
public final class StoppedWallClock: WallClock {
    public let reading: WallTime
    private let calendar: VirtualWallClock

    public init(reading: WallTime, showing hour: Int = 12, _ minute: Int = 0) {
        self.reading = reading
        let utcSeconds = ((reading.wholeUnixSeconds % 86_400) + 86_400) % 86_400
        let wanted = Int64(hour * 3600 + minute * 60)
        let offset = Duration.seconds(((wanted - utcSeconds) % 86_400 + 86_400) % 86_400)
        calendar = VirtualWallClock(reading: reading, at: .zero, offset: offset, zone: "TEST")
    }

    public convenience init(unixSeconds: Double, showing hour: Int = 12, _ minute: Int = 0) {
        self.init(reading: WallTime(microseconds: Int64((unixSeconds * 1_000_000).rounded())), showing: hour, minute)
    }

    public func wallTime(at t: TimeStamp) -> WallTime { reading }
    public func local(_ w: WallTime) -> LocalTime { calendar.local(w) }
    public func wallTime(localDay day: Int, minute: Int) -> WallTime { calendar.wallTime(localDay: day, minute: minute) }
}
