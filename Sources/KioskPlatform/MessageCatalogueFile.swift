internal import CLinux
import Glibc
import KioskCore

/// The translations installed as gettext catalogues (`share/locale/LANG/LC_MESSAGES/bubble-kiosk.mo`,
/// compiled from `po/*.po` by `msgfmt`), read with the C library's gettext.
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
        return .success((lookUp(language, in: dir), path(language, in: dir)))
    }

    /// gettext chooses the catalogue by LANGUAGE, which it reads only when the messages'
    /// locale is not plain C: so for the lookups the locale is C.UTF-8 (built into glibc 2.35
    /// and newer, nothing to generate) and LANGUAGE the wanted one, and afterwards both are as
    /// they were, so the C library's own messages (strerror) keep the kiosk's log language.
    /// Called on the loop's thread at start and reload; the words are copied out.
    private static func lookUp(_ language: KioskLanguage, in directory: String) -> [UIMessage: String] {
        let savedLocale = setlocale(LC_MESSAGES, nil).map { String(cString: $0) } ?? "C"
        let savedLanguage = getenv("LANGUAGE").map { String(cString: $0) }
        defer {
            if let savedLanguage { setenv("LANGUAGE", savedLanguage, 1) } else { unsetenv("LANGUAGE") }
            setlocale(LC_MESSAGES, savedLocale)
        }
        setenv("LANGUAGE", language.code, 1)
        if setlocale(LC_MESSAGES, "C.UTF-8") == nil { setlocale(LC_MESSAGES, "C.utf8") }
        bindtextdomain(domain, directory)
        bind_textdomain_codeset(domain, "UTF-8")
        var words: [UIMessage: String] = [:]
        for message in UIMessage.allCases {
            // An untranslated message comes back as the msgid pointer itself: it must still be
            // alive when copied (a String passed straight to C lives only for the call: reading
            // it after trapped on arm64). English, as it should show.
            message.english.withCString { id in
                if let found = dgettext(domain, id) { words[message] = String(cString: found) }
            }
        }
        return words
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
    public var description: String {
        let file = "\(language.code)/LC_MESSAGES/\(MessageCatalogueFile.domain).mo"
        return "language \(language.code): no \(file) under /usr/share/locale or beside the program (\(looked.count) places)"
    }
}
