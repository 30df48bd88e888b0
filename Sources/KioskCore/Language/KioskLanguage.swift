/// A language the kiosk ships a catalogue for, by its gettext name (`de`, `zh_CN`).
public struct KioskLanguage: Hashable, Sendable, CustomStringConvertible {
    /// The catalogue's name: the folder under `share/locale` and what `[kiosk] language` takes.
    public let code: String

    public init?(code: String) {
        guard Self.shippedCodes.contains(code) else { return nil }
        self.code = code
    }

    public static let english = KioskLanguage(known: "en")

    private init(known code: String) { self.code = code }

    /// English (built in) and the languages of `po/*.po`; a test keeps this and the folder in step.
    public static let shippedCodes = ["en", "de", "fr", "es", "it", "nl", "pt", "pl", "tr",
                                      "ja", "zh_CN", "ko", "ar", "he", "hi"]
    public static let shipped = shippedCodes.map(KioskLanguage.init(known:))

    public var description: String { code }

    /// The tag text shaping goes by (`zh-cn`, `ar`).
    public var tag: String { code.lowercased().map { $0 == "_" ? "-" : $0 }.reduce(into: "") { $0.append($1) } }

    /// Written right to left: the score goes on the right and text starts there.
    public var isRightToLeft: Bool { code == "ar" || code == "he" }

    /// What `[kiosk] language` accepts: one of the shipped codes or `auto`.
    public static let expectation = "auto or one of " + shippedCodes.joined(separator: ", ")

    /// nil when `value` is a shipped language or `auto`, else what is expected.
    @Sendable public static func problem(_ value: String) -> String? {
        value == "auto" || shippedCodes.contains(value) ? nil : expectation
    }

    /// The shipped language a POSIX locale name means (`de_DE.UTF-8`, `zh_CN`, `pt_BR@euro`),
    /// English for `C` and `POSIX`; nil for a language not shipped. Chinese other than
    /// mainland (zh_TW, zh_HK) is not taken for Simplified Chinese.
    public static func fromLocale(_ name: String) -> KioskLanguage? {
        var base = Substring(name)
        if let cut = base.firstIndex(where: { $0 == "." || $0 == "@" }) { base = base[..<cut] }
        if base.isEmpty || base == "C" || base == "POSIX" { return .english }
        if let exact = KioskLanguage(code: String(base)) { return exact }
        let language = base.prefix { $0 != "_" }
        if language == "zh" { return base == "zh" || base == "zh_SG" ? KioskLanguage(code: "zh_CN") : nil }
        return KioskLanguage(code: String(language))
    }

    /// `auto`'s answer from the environment as the C library reads it for messages:
    /// LC_ALL, then LC_MESSAGES, then LANG (the first one set and not empty); English when none
    /// is set, nil (with the name) when the one set is not shipped.
    public static func fromEnvironment(_ get: (String) -> String?) -> (language: KioskLanguage?, locale: String) {
        for name in ["LC_ALL", "LC_MESSAGES", "LANG"] {
            if let value = get(name), !value.isEmpty { return (fromLocale(value), value) }
        }
        return (.english, "")
    }
}
