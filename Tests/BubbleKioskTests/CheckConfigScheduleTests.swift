import Foundation
import KioskTestSupport
import Testing

/// `check-config` on `[display] sleep_schedule`: a bad clause named with file and line, and when
/// the display next sleeps and wakes, on the C library's calendar in a zone with daylight
/// saving (days of 23 and 25 hours, a range that starts in the hour the clock skips).
@Suite struct CheckConfigScheduleTests {
    static let berlin = FileManager.default.fileExists(atPath: "/usr/share/zoneinfo/Europe/Berlin")

    /// check-config with `sleep_schedule = value`, in Berlin's time.
    func check(_ value: String) throws -> CommandRunner.Result {
        let dir = try CommandRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("k.conf")
        try "[display]\nsleep_schedule = \(value)\n".write(to: file, atomically: true, encoding: .utf8)
        let r = try CommandRunner.run(["check-config", file.path], environment: ["TZ": "Europe/Berlin"], timeout: 30)
        if r.status == 1 { return r }
        // The effective value is printed as given (in its written form).
        #expect(r.stdout.contains("\nsleep_schedule = \(value)\n") || value.isEmpty, "\(r.stdout)")
        return r
    }

    func outlook(_ value: String) throws -> String {
        let r = try check(value)
        #expect(r.status == 0, "\(r.stderr)")
        let line = r.stdout.split(separator: "\n").first { $0.hasPrefix("# display sleep by the schedule: ") }
        return line.map { String($0.dropFirst("# display sleep by the schedule: ".count)) } ?? r.stdout
    }

    @Test(.enabled(if: berlin)) func theNextSleepOnTheDaysTheClocksChange() throws {
        #expect(try outlook("2099-03-29 closed") == "next Sun 2099-03-29 00:00 CET until Mon 2099-03-30 00:00 CEST")
        #expect(try outlook("2099-10-25 closed") == "next Sun 2099-10-25 00:00 CEST until Mon 2099-10-26 00:00 CET")
        #expect(try outlook("2099-03-29 02:30-05:00") == "next Sun 2099-03-29 03:00 CEST until Sun 2099-03-29 05:00 CEST")
        #expect(try outlook("") == "none")
        #expect(try outlook("2020-01-01 closed") == "none ahead")
        #expect(try outlook("closed") == "now (closed) with no end")
    }

    @Test func aBadClauseIsNamedWithFileAndLine() throws {
        let r = try check("Mon-Fri 22:00-07:00; Sat,Sun 18:00-10:00; Tue clsed; 2026-12-25 closed")
        #expect(r.status == 1)
        #expect(r.stderr.contains("k.conf:2: sleep_schedule: clause 3: 'Tue clsed': not HH:MM-HH:MM or closed\n"), "\(r.stderr)")
    }
}
