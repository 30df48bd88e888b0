import Glibc
import KioskCore
import KioskPlatform
import KioskRender

/// The operator's look and the visitors' language: what `[kiosk] language`, `[text]` and
/// `[branding]` say, applied at start and on every reload.
extension KioskRuntime {
    /// Loads the language's words and the logo again (a reload may bring a new catalogue or
    /// picture under the same name); a problem is one line and the kiosk goes on in English,
    /// without the logo.
    func applyLook() {
        let words = loadWords()
        stage.scenes.words = words
        touchTest.words = words
        stage.scenes.logoSize = nil
        var picture: Picture?
        let path = settings.branding.logo
        if !path.isEmpty {
            do {
                picture = try Picture(path: path)
                stage.scenes.logoSize = picture?.size
            } catch {
                log(.warning, "[branding] logo \(echoed(path, limit: 120)): \(echoed(error.reason, limit: 120)); showing no logo")
            }
        }
        renderer.setPicture(picture, named: ImageShape.logo)
    }

    /// The words of the language `settings` ask for, with the operator's `[text]` over them.
    private func loadWords() -> MessageCatalogue {
        var language = KioskLanguage(code: settings.kiosk.language) ?? .english
        if settings.kiosk.language == "auto" {
            let found = KioskLanguage.fromEnvironment { getenv($0).map { String(cString: $0) } }
            if let shipped = found.language {
                language = shipped
            } else {
                log(.warning, "[kiosk] language = auto: the system's locale \(echoed(found.locale, limit: 60)) has no translation here; showing English")
            }
        }
        var words = MessageCatalogue(language: language)
        switch MessageCatalogueFile.find(language, directories: options.localeDirectories ?? MessageCatalogueFile.directories()) {
        case .success(let found):
            words.translations = found.translations
            if let file = found.file {
                log(.info, "language \(language.code): \(found.translations.count) messages from \(echoed(file, limit: 120))")
            }
        case .failure(let error):
            log(.warning, "\(error); showing English")
            words = .english
        }
        return words.overridden(by: settings.text)
    }
}
