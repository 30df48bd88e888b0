import KioskCore
import KioskPlatform
import KioskRender
import KioskScores

/// `bubble-kiosk touch-heatmap`: where touches landed, from the play statistics, as a PNG.
struct TouchHeatmapCommand: KioskCommand {
    static let name = "touch-heatmap"
    static let usage = """
        usage: bubble-kiosk touch-heatmap --out FILE.png [--days N] [--size WxH] [--state-dir DIR]
        Draws where touches landed (touch-downs per cell of a 32x32 grid over the picture) from
        scores.db in the state directory (--state-dir DIR, else $STATE_DIRECTORY, else
        /var/lib/bubble-kiosk) as a PNG of WxH (default 1280x800: the kiosk's game size shows the
        map in its proportions): the last N local days including today (1 to 3650), or every day.
        Without a database, or without touches, it says so and writes an empty map.
        """

    static func run(_ argv: ArraySlice<String>) throws -> Int32 {
        let args = try Arguments(argv, valued: ["out", "days", "size", "state-dir"], flags: [])
        guard args.positionals.isEmpty else { throw UsageError("unexpected argument '\(echoed(args.positionals[0]))'") }
        guard let out = args.value("out"), !out.isEmpty else { throw UsageError("--out FILE.png is required") }
        let days: Int? = args.value("days") == nil ? nil : try args.int("days", default: 1, range: 1...3650)
        let size = try args.size() ?? PixelSize(width: 1280, height: 800)
        // A FIFO, a device or a directory at --out fails the command before the database is read.
        try OutputFile.check(out)
        let directory = StateDirectory.resolveForReading(flag: args.value("state-dir"))
        let path = ScoreStore.path(in: directory)
        let store = try ScoreStore(existingIn: directory)
        let (map, touchedDays) = try store?.touchHeatmap(days: days, today: SystemWallClock().local(SystemWallClock.now()).day) ?? (TouchHeatmap(), 0)
        let span = days.map { $0 == 1 ? "today" : "the last \($0) days" } ?? "every day"
        let title = "Touch heatmap, \(span): \(echoed(path, limit: 80))"
        // About 4 px/mm on a kiosk-sized picture, so the labels read like the touch test's.
        let pxPerMM = max(1.5, Double(min(size.width, size.height)) / 200)
        let renderer = SceneRenderer(size: size)
        renderer.render(TouchTestScene.heatmapScene(map, size: size, pxPerMM: pxPerMM, title: title))
        try OutputFile.write(out, PNGWriter.pngBytes(renderer.frame))
        if store == nil {
            Console.line("no touches recorded yet: \(echoed(path, limit: 120)) does not exist; wrote an empty map to \(echoed(out, limit: 120))")
        } else if map.isEmpty {
            Console.line("no touches recorded (\(span)) in \(echoed(path, limit: 120)); wrote an empty map to \(echoed(out, limit: 120))")
        } else {
            Console.line("wrote \(echoed(out, limit: 200)): \(map.total) touches on \(touchedDays) day\(touchedDays == 1 ? "" : "s") (\(span)), "
                         + "at most \(map.maximum) in one cell")
        }
        return 0
    }
}
