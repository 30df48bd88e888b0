import Testing

/// Test fixtures in `Tests/KioskCoreTests/Fixtures/`, found from this source file so tests
/// run from any working directory, and read without Foundation.
public enum Fixture {
    /// Absolute path of the fixture `name`.
    public static func path(_ name: String) -> String {
        let tests = #filePath.split(separator: "/", omittingEmptySubsequences: false).dropLast(2)
            .joined(separator: "/")
        return tests + "/KioskCoreTests/Fixtures/" + name
    }

    /// The fixture's text; records a test issue and returns "" when it cannot be read.
    public static func text(_ name: String) -> String {
        let path = path(name)
        guard let text = readText(path) else {
            Issue.record("cannot read fixture \(path)")
            return ""
        }
        return text
    }
}
