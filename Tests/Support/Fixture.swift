#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
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
        guard let file = fopen(path, "rb") else {
            Issue.record("cannot open fixture \(path)")
            return ""
        }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = chunk.withUnsafeMutableBytes { fread($0.baseAddress, 1, $0.count, file) }
            if count > 0 { bytes.append(contentsOf: chunk[0..<count]) }
            if count < chunk.count { break }
        }
        if ferror(file) != 0 { Issue.record("error reading fixture \(path)") }
        return String(decoding: bytes, as: UTF8.self)
    }
}
