import KioskCore

/// A session on `size` at `pxPerMM` with `seed`, starting at time 0; `configure` adjusts the
/// default settings first.
public func makeSession(size: PixelSize = PixelSize(width: 1280, height: 800), pxPerMM: Double = 4, seed: UInt64 = 11,
                        _ configure: (inout Settings) -> Void = { _ in }) -> KioskSession {
    var settings = Settings.classicOnly
    configure(&settings)
    let field = PlayField(size: size, pxPerMM: pxPerMM, game: settings.game)
    return KioskSession(game: KioskGame(field: field, settings: settings, seed: seed, at: .zero))
}

/// A classic round on a 1280x800 screen at 4 px/mm with default rules.
public func makeRound(seed: UInt64 = 7, size: PixelSize = PixelSize(width: 1280, height: 800),
                      settings: Settings = Settings(), mode: Round.Mode = .classic) -> Round {
    let field = PlayField(size: size, pxPerMM: 4, game: settings.game)
    return Round(mode: mode, field: field, settings: settings, seed: seed, at: .zero)
}

/// The configuration `files` make, in order (no files read).
public func loadConfig(_ files: (name: String, text: String)...) -> ConfigResult {
    var builder = ConfigBuilder()
    for file in files { builder.add(text: file.text, file: file.name) }
    return builder.finish()
}

/// The configuration one file `file` holding `text` makes.
public func loadConfig(_ text: String, file: String = "k.conf") -> ConfigResult {
    loadConfig((file, text))
}

extension Bubble {
    /// The arrow's direction of a swipe bubble; nil for other kinds (tests `#require` it).
    public var swipeAngle: Double? {
        if case .swipe(let angle) = kind { return angle }
        return nil
    }
}

extension Settings {
    /// The kiosk with one Start button, classic rounds only: what most tests play (the start
    /// screen offers all three modes by default).
    public static var classicOnly: Settings {
        var s = Settings()
        s.modes.timed = false
        s.modes.joystick = false
        return s
    }
}
