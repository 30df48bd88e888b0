import Glibc
import KioskCore
import KioskPlatform
import KioskRender
import KioskRuntime
import KioskTestSupport
import Testing

/// The running kiosk in another language and the operator's look: read at start, again on
/// every reload, and a bad logo or a missing catalogue is one line and the kiosk goes on.
@Suite(.serialized) struct LookRuntimeTests {
    /// German compiled the way `make locale` does it, in a folder of its own.
    static func germanCatalogue() throws -> TemporaryDirectory {
        let dir = TemporaryDirectory("locale")
        #expect(makeDirectories(dir.path + "/de/LC_MESSAGES"))
        try #require(system("msgfmt -o \(dir.path)/de/LC_MESSAGES/bubble-kiosk.mo \(POFile.folder)/de.po") == 0)
        return dir
    }

    /// A 60x20 PNG of one colour.
    static func logo(_ color: RGBColor, in dir: TemporaryDirectory) throws -> String {
        let renderer = SceneRenderer(size: PixelSize(width: 60, height: 20))
        renderer.render(Scene(size: PixelSize(width: 60, height: 20), pxPerMM: 4, background: color))
        let path = dir.path + "/logo.png"
        writeFile(path, try PNGWriter.pngBytes(renderer.frame))
        return path
    }

    static func texts(_ scene: Scene) -> [String: String] {
        var out: [String: String] = [:]
        for item in scene.items {
            if case .ui(let name) = item.id, case .text(let t) = item.shape { out[name] = t.string }
            if case .ui(let name) = item.id, case .button(let b) = item.shape { out[name] = b.title }
        }
        return out
    }

    @Test func germanWithALogoAndThenAnotherLook() throws {
        let locale = try Self.germanCatalogue()
        let german = try #require(POFile.shipped("de")).translations
        let files = TemporaryDirectory("look")
        var settings = RuntimeHarness.quietSettings
        settings.kiosk.language = "de"
        settings.branding.title = "Stadtmuseum"
        settings.branding.logo = try Self.logo(RGBColor(hex: 0xFF_00_00), in: files)
        var options = KioskRuntime.Options()
        options.localeDirectories = [locale.path]
        // Room above the title for a logo: a screen of 1280x800.
        let h = try RuntimeHarness(settings: settings, size: PixelSize(width: 1280, height: 800), options: options)
        try h.run(ms: 100)

        var texts = Self.texts(h.kiosk.scene())
        #expect(texts["title"] == "Stadtmuseum")
        #expect(texts["hint"] == german[.hintDrag])
        #expect(texts["button"] == german[.start])
        let logo = try #require(h.kiosk.scene().items.first { $0.id == .ui("logo") }, "\(h.logLines)")
        guard case .image(let image) = logo.shape else { Issue.record("the logo is no image"); return }
        let middle = (x: Int(image.rect.x + image.rect.width / 2), y: Int(image.rect.y + image.rect.height / 2))
        #expect(h.display.snapshot()[middle.x, middle.y] == 0xFF_00_00)
        #expect(h.logLines.filter { $0.contains("logo") || $0.contains("language") }
                == ["language de: \(german.count) messages from \(locale.path)/de/LC_MESSAGES/bubble-kiosk.mo"])

        // Reloaded: English words of the operator's, no logo (the file went), another background.
        var changed = settings
        changed.kiosk.language = "en"
        changed.text[.start] = "Los geht's!"
        changed.branding.background = "#204060"
        unlink(settings.branding.logo)
        h.config = ConfigResult(settings: changed)
        h.runtime.reload()
        h.advance(ms: 100)
        texts = Self.texts(h.kiosk.scene())
        #expect(texts["button"] == "Los geht's!")
        #expect(texts["hint"] == UIMessage.hintDrag.english)
        #expect(!h.kiosk.scene().items.contains { $0.id == .ui("logo") })
        #expect(h.display.snapshot()[middle.x, middle.y] == 0x20_40_60)
        let lines = h.logLines.filter { $0.contains("[branding] logo") }
        #expect(lines.count == 1)
        #expect(lines.first?.contains("No such file") == true)
    }

    @Test func aLanguageWithoutItsCatalogueShowsEnglish() throws {
        var settings = RuntimeHarness.quietSettings
        settings.kiosk.language = "ja"
        var options = KioskRuntime.Options()
        options.localeDirectories = ["/nonexistent"]
        let h = try RuntimeHarness(settings: settings, options: options)
        try h.run(ms: 100)
        #expect(Self.texts(h.kiosk.scene())["button"] == "Start")
        #expect(h.logLines.filter { $0.contains("language ja: no ja/LC_MESSAGES/bubble-kiosk.mo") }.count == 1)
    }

    @Test func anAbsurdLogoIsRefusedBeforeItIsDecoded() throws {
        let files = TemporaryDirectory("look")
        // A PNG header claiming 100000 x 100000 pixels (40 GB decoded), and nothing after it.
        var bytes: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13]
        bytes += Array("IHDR".utf8) + [0, 1, 0x86, 0xA0, 0, 1, 0x86, 0xA0, 8, 6, 0, 0, 0]
        writeFile(files.path + "/huge.png", bytes)
        writeFile(files.path + "/text.png", "not a picture")
        for (name, reason) in [("huge.png", "100000 x 100000 pixels; at most 4096 x 4096"), ("text.png", "not a PNG file")] {
            var settings = RuntimeHarness.quietSettings
            settings.branding.logo = files.path + "/" + name
            let h = try RuntimeHarness(settings: settings)
            try h.run(ms: 100)
            #expect(h.logLines.filter { $0.contains("[branding] logo") && $0.contains(reason) }.count == 1, "\(h.logLines)")
            #expect(!h.kiosk.scene().items.contains { $0.id == .ui("logo") })
        }
    }
}
