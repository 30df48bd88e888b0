#if canImport(Glibc)
import Glibc
#endif
import KioskCore
import KioskPlatform
import KioskRender

/// Settings, screen and density shared by the game commands.
struct GameSetup {
    var settings: Settings
    var field: PlayField
    var mode: Round.Mode

    static let valued: Set<String> = ["seed", "size", "config", "mode", "screenshot"]

    init(_ args: Arguments) throws {
        let size = try args.requiredSize()
        switch args.value("mode") ?? "classic" {
        case "classic": mode = .classic
        case "timed": mode = .timed
        case "joystick": mode = .joystick
        case let other: throw UsageError("--mode expects classic, timed or joystick, got '\(echoed(other))'")
        }
        settings = try loadSettings(configPath: args.value("config"))
        field = PlayField(size: size, pxPerMM: PixelDensity.resolve(configured: settings.display.pxPerMM),
                          game: settings.game)
    }
}

/// Opens a recording and reads its header, or prints `FILE:LINE: message` (or `FILE: reason`)
/// and yields exit code 2. Events are read as the caller uses them.
func loadRecording(_ path: String) -> EvemuReader? {
    do {
        return try EvemuReader.open(path: path)
    } catch let error as RecordingError {
        Console.errorLine("\(error)", level: .error)
    } catch let error as FileRefusal {
        Console.errorLine("\(echoed(path, limit: 200)): cannot read recording: \(error)", level: .error)
    } catch let error as SystemError {
        Console.errorLine("\(echoed(path, limit: 200)): cannot read recording: \(String(cString: strerror(error.errno)))", level: .error)
    } catch {
        Console.errorLine("\(echoed(path, limit: 200)): cannot read recording: \(error)", level: .error)
    }
    return nil
}

/// `bubble-kiosk state`: the classic round a seed and a screen size give.
struct StateCommand: KioskCommand {
    static let name = "state"
    static let usage = """
        usage: bubble-kiosk state --seed N --size WxH [--config F] [--mode classic|timed|joystick]
        Prints one JSON object: width, height, px_per_mm and the bubbles (id, kind, x, y, diameter,
        and taps or angle_deg). The same arguments give the same bubbles on every machine.
        """

    static func run(_ argv: ArraySlice<String>) throws -> Int32 {
        let args = try Arguments(argv, valued: GameSetup.valued, flags: [])
        guard args.positionals.isEmpty else { throw UsageError("unexpected argument '\(echoed(args.positionals[0]))'") }
        let seed = try args.requiredSeed()
        let setup = try GameSetup(args)
        let round = Round(mode: setup.mode, field: setup.field, settings: setup.settings, seed: seed, at: .zero)
        Console.line(GameJSON.state(round).text)
        return 0
    }
}

/// `bubble-kiosk play`: replays a recording into the round `state` prints.
struct PlayCommand: KioskCommand {
    static let name = "play"
    static let usage = """
        usage: bubble-kiosk play RECORDING --seed N --size WxH [--config F] [--mode classic|timed|joystick] [--screenshot PNG]
                                 [--audio-out WAV]
        Starts the round `state` prints for the same arguments, replays the evemu RECORDING on
        virtual time and prints one JSON object: score, popped, remaining, round_over, bubbles
        (joystick mode adds catcher, collected and joystick).
        --screenshot writes the final screen as PNG. --audio-out writes the sounds the round
        would have played ([sounds] of the config), mixed at 48 kHz 16-bit stereo, sample 0 at
        the recording's first event. A malformed recording is reported as FILE:LINE: message, exit 2.
        """

    static func run(_ argv: ArraySlice<String>) throws -> Int32 {
        let args = try Arguments(argv, valued: GameSetup.valued.union(["audio-out"]), flags: [])
        guard args.positionals.count == 1 else { throw UsageError("expected one RECORDING") }
        let seed = try args.requiredSeed()
        let setup = try GameSetup(args)
        // A FIFO, a device or a directory where an output goes fails the command before the replay.
        for option in ["audio-out", "screenshot"] {
            if let path = args.value(option) { try OutputFile.check(path) }
        }
        guard var recording = loadRecording(args.positionals[0]) else { return 2 }
        let origin = recording.firstEventTime ?? .zero
        var round = Round(mode: setup.mode, field: setup.field, settings: setup.settings, seed: seed, at: origin)
        var audio = args.value("audio-out").map { _ in AudioOut(settings: setup.settings.sounds, origin: origin) }
        let thresholds = GestureThresholds(setup.settings.gestures, pxPerMM: setup.field.pxPerMM)
        let span: Replay.Span
        do {
            span = try Replay.gestures(reading: &recording, screen: setup.field.size, thresholds: thresholds) { gesture in
                let events = round.advance(to: gesture.time) + round.handle(gesture)
                audio?.add(events, at: gesture.time, round: round)
            }
        } catch {
            Console.errorLine("\(error)", level: .error)
            return 2
        }
        audio?.add(round.advance(to: span.end), at: span.end, round: round)
        Console.line(GameJSON.outcome(round).text)
        if let path = args.value("audio-out"), let audio {
            try audio.write(to: path, end: span.end)
        }
        if let path = args.value("screenshot") {
            try writeScreenshot(of: round, seed: seed, at: span.end, to: path)
        }
        return 0
    }
}

/// Draws the screen a replayed round ends on, after its effects have died down, as PNG.
func writeScreenshot(of round: Round, seed: UInt64, at end: TimeStamp, to path: String) throws {
    let settle = end + .seconds(2)
    var game = KioskGame(field: round.field, settings: round.settings, seed: seed, at: end)
    game.show(round, at: end)
    var builder = SceneBuilder(field: round.field, seed: seed)
    let renderer = SceneRenderer(size: round.field.size)
    _ = renderer.render(builder.scene(KioskSession(game: game), at: settle))
    try OutputFile.write(path, PNGWriter.pngBytes(renderer.frame))
}

/// `bubble-kiosk gestures`: what the recogniser makes of a recording, one JSON object a line.
struct GesturesCommand: KioskCommand {
    static let name = "gestures"
    static let usage = """
        usage: bubble-kiosk gestures RECORDING --size WxH [--config F] [--moves]
        Prints one JSON object per recognised gesture: t_ms (from the first event), slot, kind
        (tap|long_press|drag_start|drag_end|swipe|cancel), x, y; count for taps; angle_deg,
        distance_px, velocity_px_s for swipes. --moves adds drag_move lines.
        """

    static func run(_ argv: ArraySlice<String>) throws -> Int32 {
        let args = try Arguments(argv, valued: ["size", "config"], flags: ["moves"])
        guard args.positionals.count == 1 else { throw UsageError("expected one RECORDING") }
        let size = try args.requiredSize()
        let settings = try loadSettings(configPath: args.value("config"))
        guard var recording = loadRecording(args.positionals[0]) else { return 2 }
        let pxPerMM = PixelDensity.resolve(configured: settings.display.pxPerMM)
        let thresholds = GestureThresholds(settings.gestures, pxPerMM: pxPerMM)
        let origin = recording.firstEventTime ?? .zero
        let withMoves = args.has("moves")
        // Written in chunks, so a long recording's output never piles up in memory; a short
        // recording with a bad line late on still prints nothing but the error.
        var out = ""
        do {
            _ = try Replay.gestures(reading: &recording, screen: size, thresholds: thresholds) { g in
                if g.kind == .dragMove && !withMoves { return }
                out += GameJSON.gesture(g, origin: origin).text + "\n"
                if out.utf8.count >= 1 << 16 {
                    Console.out(out)
                    out = ""
                }
            }
        } catch {
            Console.errorLine("\(error)", level: .error)
            return 2
        }
        Console.out(out)
        return 0
    }
}
