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

    /// The bytes of a fixture kept as hex text (`0a ff ...`; `#` lines are comments); records a
    /// test issue for a bad pair.
    public static func hexBytes(_ name: String) -> [UInt8] {
        var out: [UInt8] = []
        for line in text(name).split(separator: "\n") where !line.hasPrefix("#") {
            for pair in line.split(separator: " ") {
                guard let byte = UInt8(pair, radix: 16) else {
                    Issue.record("bad hex '\(pair)' in \(name)")
                    return []
                }
                out.append(byte)
            }
        }
        return out
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
