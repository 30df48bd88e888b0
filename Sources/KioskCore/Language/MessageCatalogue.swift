/// The words the kiosk shows, in one language: the shipped translation (read from the
/// installed catalogue by the platform) with the operator's `[text]` overrides over it, and how
/// that language writes numbers and which way it runs.
public struct MessageCatalogue: Equatable, Sendable {
    public var language: KioskLanguage
    /// Translations by message; a message missing here is shown in English.
    public var translations: [UIMessage: String]
    public var numbers: NumberStyle

    public init(language: KioskLanguage, translations: [UIMessage: String] = [:]) {
        self.language = language
        self.translations = translations
        numbers = .of(language)
    }

    public static let english = MessageCatalogue(language: .english)

    public var isRightToLeft: Bool { language.isRightToLeft }

    /// The message's words with `{name}` marks filled from `values` (numbers in the language's style).
    public func text(_ message: UIMessage, _ values: [String: Int] = [:]) -> String {
        let wording = translations[message] ?? message.english
        guard !values.isEmpty, wording.unicodeScalars.contains("{") else { return wording }
        var out = "", mark: String? = nil
        for c in wording {
            if c == "{" {
                if let open = mark { out += "{" + open }
                mark = ""
            } else if c == "}", let name = mark {
                out += values[name].map(numbers.format) ?? "{\(name)}"
                mark = nil
            } else if mark != nil {
                mark!.append(c)
            } else {
                out.append(c)
            }
        }
        return out + (mark.map { "{" + $0 } ?? "")
    }

    /// A number on its own (a rank, a score in a list) in the language's style.
    public func number(_ value: Int) -> String { numbers.format(value) }

    /// This catalogue with the operator's wording for some messages; empty overrides are none.
    public func overridden(by overrides: TextOverrides) -> MessageCatalogue {
        var copy = self
        for (message, wording) in overrides.values where !wording.isEmpty { copy.translations[message] = wording }
        return copy
    }
}

/// The operator's wording for some messages (`[text] play_again = Nochmal!`), in any language.
public struct TextOverrides: Equatable, Sendable {
    public var values: [UIMessage: String] = [:]

    public init() {}

    /// The override for `message`; empty when there is none (what the config file writes).
    public subscript(message: UIMessage) -> String {
        get { values[message] ?? "" }
        set { values[message] = newValue.isEmpty ? nil : newValue }
    }
}
