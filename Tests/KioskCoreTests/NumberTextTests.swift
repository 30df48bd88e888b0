import KioskCore
import Testing

/// The number styles every log line, report and file shares.
struct NumberTextTests {
    @Test func decimalRoundsAndPrintsAsSwiftDoes() {
        #expect(NumberText.decimal(2.345, places: 2) == "2.35")
        #expect(NumberText.decimal(3, places: 2) == "3.0")
        #expect(NumberText.decimal(0.12345, places: 3) == "0.123")
        #expect(NumberText.decimal(4.04, places: 1) == "4.0")
    }

    @Test func trimmedDropsTheZeroFraction() {
        #expect(NumberText.trimmed(10) == "10")
        #expect(NumberText.trimmed(-0.0) == "0")
        #expect(NumberText.trimmed(2.5) == "2.5")
        #expect(NumberText.trimmed(1e20) == "1e+20")
        #expect(NumberText.trimmed(0.0041, places: 3) == "0.004")
        #expect(NumberText.trimmed(9.9996, places: 3) == "10")
    }

    @Test func fixedAlwaysWritesThePlaces() {
        #expect(NumberText.fixed(4, places: 2) == "4.00")
        #expect(NumberText.fixed(4.035, places: 2) == "4.04")
        #expect(NumberText.fixed(-0.5, places: 1) == "-0.5")
        #expect(NumberText.fixed(12.3456, places: 3) == "12.346")
        #expect(NumberText.fixed(7.6, places: 0) == "8")
    }

    @Test func plainNeverUsesAnExponent() {
        #expect(NumberText.plain(3) == "3")
        #expect(NumberText.plain(0.0000001) == "0.0000001")
        #expect(NumberText.plain(-2.5e-5) == "-0.000025")
        #expect(NumberText.plain(1.5e16) == "15000000000000000")
        #expect(NumberText.plain(0.25) == "0.25")
    }

    @Test func durationLeavesOutLeadingZeroUnits() {
        #expect(NumberText.duration(seconds: 0) == "0s")
        #expect(NumberText.duration(seconds: 65) == "1m 5s")
        #expect(NumberText.duration(seconds: 3 * 86400 + 4 * 3600 + 5 * 60 + 6) == "3d 4h 5m 6s")
        #expect(NumberText.duration(seconds: 86400) == "1d 0h 0m 0s")
    }
}
