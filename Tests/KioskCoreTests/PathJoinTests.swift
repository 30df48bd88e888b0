import KioskCore
import Testing

struct PathJoinTests {
    /// One slash between folder and name, whichever way the folder is written.
    @Test func oneSlashBetween() {
        #expect(joinPath("/var/lib/bubble-kiosk", "scores.db") == "/var/lib/bubble-kiosk/scores.db")
        #expect(joinPath("/var/lib/bubble-kiosk/", "scores.db") == "/var/lib/bubble-kiosk/scores.db")
        #expect(joinPath("/", "etc") == "/etc")
        #expect(joinPath(".", "hook") == "./hook")
    }
}
