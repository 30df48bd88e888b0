import Glibc
import Testing
import KioskTestSupport

/// A Markdown file as GitHub shows it: the anchors of its headings and the targets of its links.
struct MarkdownLinks {
    let anchors: Set<String>
    let targets: [String]

    init(_ text: String) {
        var prose = ""
        var anchors: Set<String> = []
        var seen: [String: Int] = [:]
        var fenced = false
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("```") { fenced.toggle(); continue }
            if fenced { continue }
            if let title = Self.heading(line) {
                // GitHub numbers repeated headings: name, name-1, name-2.
                let base = Self.anchor(title)
                let count = seen[base, default: 0]
                seen[base] = count + 1
                anchors.insert(count == 0 ? base : "\(base)-\(count)")
            }
            prose += line + "\n"
        }
        self.anchors = anchors
        // Code spans may run over a line break; what is inside them is no link.
        var targets: [String] = []
        var unquoted = ""
        var inCode = false
        for c in prose {
            if c == "`" { inCode.toggle() } else if !inCode { unquoted.append(c) }
        }
        var rest = Substring(unquoted)
        while let open = rest.firstRange(of: "](") {
            let after = rest[open.upperBound...]
            guard let close = after.firstIndex(where: { $0 == ")" || $0 == " " || $0 == "\n" }) else { break }
            targets.append(String(after[..<close]))
            rest = after[close...]
        }
        self.targets = targets
    }

    /// The text of an ATX heading (`## Title`), or nil for any other line.
    static func heading(_ line: Substring) -> Substring? {
        let indent = line.prefix { $0 == " " }.count
        guard indent <= 3 else { return nil }
        let marks = line.dropFirst(indent).prefix { $0 == "#" }
        guard (1...6).contains(marks.count) else { return nil }
        let rest = line.dropFirst(indent + marks.count)
        guard rest.first == " " else { return nil }
        return rest.drop { $0 == " " }
    }

    /// GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens.
    static func anchor(_ title: Substring) -> String {
        String(title.lowercased().compactMap { c -> Character? in
            if c == " " { return "-" }
            return c.isLetter || c.isNumber || c == "-" || c == "_" ? c : nil
        })
    }
}

/// Every relative link between the README and the documents in `doc/` leads somewhere: to a file
/// that exists and, with `#anchor`, to a heading that file has.
@Suite struct DocumentationLinkTests {
    static let repository = String(#filePath.split(separator: "/", omittingEmptySubsequences: false).dropLast(3)
        .joined(separator: "/"))

    /// `README.md` and `doc/*.md`, relative to the repository.
    static func documents() -> [String] {
        var names: [String] = []
        if let dir = opendir(repository + "/doc") {
            while let entry = readdir(dir) {
                let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
                if name.hasSuffix(".md") { names.append("doc/" + name) }
            }
            closedir(dir)
        }
        return ["README.md"] + names.sorted()
    }

    /// The links of `files` (path relative to the repository, and text) that lead nowhere, as
    /// `FILE: TARGET (why)`; `exists` says whether a file other than these exists.
    static func brokenLinks(_ files: [String: String], exists: (String) -> Bool) -> [String] {
        let parsed = files.mapValues(MarkdownLinks.init)
        var broken: [String] = []
        for (file, links) in parsed.sorted(by: { $0.key < $1.key }) {
            for target in links.targets where !target.contains("://") && !target.hasPrefix("mailto:") {
                let parts = target.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)
                let path = parts[0].isEmpty ? file : resolve(String(parts[0]), from: file)
                guard parsed[path] != nil || exists(path) else {
                    broken.append("\(file): \(target) (no file \(path))")
                    continue
                }
                if parts.count == 2 {
                    let anchors = parsed[path]?.anchors ?? (path.hasSuffix(".md") ? readText(repository + "/" + path).map { MarkdownLinks($0).anchors } : nil)
                    if !(anchors?.contains(String(parts[1])) ?? false) {
                        broken.append("\(file): \(target) (no heading #\(parts[1]) in \(path))")
                    }
                }
            }
        }
        return broken
    }

    /// `target` as a path from the repository's top, seen from `file`.
    static func resolve(_ target: String, from file: String) -> String {
        var parts = file.split(separator: "/").dropLast().map(String.init)
        for part in target.split(separator: "/") {
            switch part {
            case ".": continue
            case "..": if parts.popLast() == nil { return "../" + target }
            default: parts.append(String(part))
            }
        }
        return parts.joined(separator: "/")
    }

    @Test func everyLinkBetweenTheDocumentsResolves() throws {
        let names = Self.documents()
        #expect(names.contains("doc/configuration.md") && names.contains("doc/operating.md"), "\(names)")
        var files: [String: String] = [:]
        for name in names {
            let text: String = try #require(readText(Self.repository + "/" + name), "cannot read \(name)")
            files[name] = text
        }
        let broken = Self.brokenLinks(files) { access(Self.repository + "/" + $0, F_OK) == 0 }
        #expect(broken == [], "\(broken.joined(separator: "\n"))")
        // The README is the front door: it leads to every document.
        let fromReadme = Set(MarkdownLinks(files["README.md"]!).targets.map { String($0.split(separator: "#")[0]) })
        for name in names where name != "README.md" {
            #expect(fromReadme.contains(name), "README.md does not link to \(name)")
        }
    }

    @Test func anchorsAreGitHubs() {
        #expect(MarkdownLinks.anchor("On a kiosk: DRM/KMS and evdev") == "on-a-kiosk-drmkms-and-evdev")
        #expect(MarkdownLinks.anchor("`bubble-kiosk run`") == "bubble-kiosk-run")
        #expect(MarkdownLinks.anchor("`[display]`") == "display")
        #expect(MarkdownLinks.anchor("Reloading the configuration (SIGHUP)") == "reloading-the-configuration-sighup")
        #expect(MarkdownLinks("# A\n## A\n    # not a heading\n```\n# nor this\n```\n").anchors == ["a", "a-1"])
    }

    @Test func brokenLinksAreFound() {
        let files = [
            "README.md": "[ok](doc/a.md#two) [gone](doc/b.md) [bad anchor](doc/a.md#three) `[code](doc/c.md)`",
            "doc/a.md": "# One\n## Two\n[up](../README.md) [self](#one) [img](pic.png) [web](https://example.org/x)",
        ]
        let broken = Self.brokenLinks(files) { $0 == "doc/pic.png" }
        #expect(broken == ["README.md: doc/b.md (no file doc/b.md)",
                           "README.md: doc/a.md#three (no heading #three in doc/a.md)"])
    }
}
