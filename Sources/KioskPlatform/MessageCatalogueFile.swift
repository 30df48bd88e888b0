import Glibc
import KioskCore

/// The translations installed as gettext catalogues (`share/locale/LANG/LC_MESSAGES/bubble-kiosk.mo`,
/// compiled from `po/*.po` by `msgfmt`), read as msgfmt wrote them (`MOFile`).
public enum MessageCatalogueFile {
    public static let domain = "bubble-kiosk"

    /// Where catalogues are looked for, first found first: beside the program (`../share/locale`
    /// of /usr/bin and /usr/local/bin; the build tree's .build/locale, two up from the program
    /// because SwiftPM's .build/debug is a link to .build/TRIPLE/debug), then /usr/share/locale.
    /// Written without `..` (the program's path is the resolved one), so the journal names
    /// /usr/share/locale for a kiosk in /usr/bin.
    public static func directories(program: String? = nil) -> [String] {
        var dirs: [String] = []
        if let exe = program ?? Self.runningProgram() {
            let bin = parent(exe), prefix = parent(bin)
            dirs += [joinPath(prefix, "share/locale"), joinPath(parent(prefix), "locale")]
        }
        dirs.append("/usr/share/locale")
        return dirs.enumerated().filter { !dirs[..<$0.offset].contains($0.element) }.map(\.element)
    }

    /// `path` without its last part: "/usr/bin" of "/usr/bin/bubble-kiosk", "/" of "/usr".
    private static func parent(_ path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    /// The catalogue file of `language` in `directory`.
    public static func path(_ language: KioskLanguage, in directory: String) -> String {
        joinPath(directory, "\(language.code)/LC_MESSAGES/\(domain).mo")
    }

    /// `language`'s translations from the first of `directories` that has its catalogue, or
    /// why there are none. English needs none. Messages the catalogue lacks are left out (shown
    /// in English).
    public static func load(_ language: KioskLanguage, directories: [String]) -> Result<[UIMessage: String], CatalogueError> {
        find(language, directories: directories).map(\.translations)
    }

    /// The translations and the file they came from (nil for English).
    public static func find(_ language: KioskLanguage, directories: [String])
        -> Result<(translations: [UIMessage: String], file: String?), CatalogueError> {
        guard language != .english else { return .success(([:], nil)) }
        guard let dir = directories.first(where: { access(path(language, in: $0), R_OK) == 0 }) else {
            return .failure(CatalogueError(language: language, looked: directories.map { path(language, in: $0) }))
        }
        let file = path(language, in: dir)
        return lookUp(language, file: file).map { ($0, file) }
    }

    /// Read as msgfmt wrote it (`MOFile`); a message the catalogue lacks shows in English.
    /// Called on the loop's thread at start and reload.
    private static func lookUp(_ language: KioskLanguage, file: String) -> Result<[UIMessage: String], CatalogueError> {
        let table: [String: String]
        do {
            // Catalogues are a few KB; 4 MB is no catalogue of ours.
            table = try MOFile.translations(FileSystem.readBytes(file, limit: 4 << 20))
        } catch {
            return .failure(CatalogueError(language: language, looked: [file], unreadable: "\(error)"))
        }
        var words: [UIMessage: String] = [:]
        for message in UIMessage.allCases { words[message] = table[message.english] ?? message.english }
        return .success(words)
    }

    private static func runningProgram() -> String? {
        var buffer = [CChar](repeating: 0, count: 4096)
        let n = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard n > 0 else { return nil }
        return String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

/// No catalogue for a language in any of the places looked.
public struct CatalogueError: Error, Equatable, CustomStringConvertible {
    public let language: KioskLanguage
    public let looked: [String]
    /// Why the catalogue found could not be read; nil: none was found.
    public var unreadable: String?

    public init(language: KioskLanguage, looked: [String], unreadable: String? = nil) {
        self.language = language
        self.looked = looked
        self.unreadable = unreadable
    }

    public var description: String {
        if let unreadable, let file = looked.first {
            return "language \(language.code): \(echoed(file, limit: 200)): \(unreadable)"
        }
        let file = "\(language.code)/LC_MESSAGES/\(MessageCatalogueFile.domain).mo"
        return "language \(language.code): no \(file) under /usr/share/locale or beside the program (\(looked.count) places)"
    }
}
