import Foundation
import KioskTestSupport
import Testing

/// `check-config --reference markdown|man` prints the files `doc/` keeps, and refuses anything else.
@Suite struct CheckConfigReferenceTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    @Test(arguments: [("markdown", "doc/configuration.md"), ("man", "doc/bubble-kiosk.conf.5")])
    func printsTheCommittedReference(format: String, file: String) throws {
        let r = try CommandRunner.run(["check-config", "--reference", format])
        #expect(r.status == 0, "\(r.stderr)")
        let committed = try String(contentsOf: Self.repository.appendingPathComponent(file), encoding: .utf8)
        #expect(r.stdout == committed, "regenerate with: bubble-kiosk check-config --reference \(format) > \(file)")
    }

    @Test(arguments: [["--reference", "html"], ["--reference"], ["--reference", "man", "some.conf"],
                      ["--reference", "man", "--example"]])
    func wrongUseIsAUsageError(args: [String]) throws {
        let r = try CommandRunner.run(["check-config"] + args)
        #expect(r.status == 2)
        #expect(r.stderr.contains("usage: bubble-kiosk check-config"), "\(r.stderr)")
        #expect(r.stdout.isEmpty)
    }
}
