import Glibc
import KioskCore
import KioskPlatform

/// Entry point: dispatches `bubble-kiosk COMMAND ...` to the command types. Both executables
/// call `main()`: `bubble-kiosk` as it is, `bubble-kiosk-desktop` after registering its window
/// backend (`WindowBackend.registered`).
public struct BubbleKiosk {
    static let usage = """
        usage: bubble-kiosk COMMAND [OPTIONS]

        commands:
          state --seed N --size WxH [--config F]            print a classic round's bubbles as JSON
          play RECORDING --seed N --size WxH [--config F]   replay an evemu recording into that round
          gestures RECORDING --size WxH [--config F]        print recognised gestures, one JSON object a line
          check-config [FILE]                               print effective settings or every error
          run [--display virtual[:WxH]] [--input ...]       run the kiosk
          round-recording --seed N --size WxH [--pop N]     an evemu recording that plays that round
          bench [--size WxH] [--bubbles N] [--frames N] [--json]  time the renderer against memcpy and naive cairo
          devices                                           list DRM cards, connectors, framebuffers and input devices
          scores [--mode M] [--json] [--reset]              print or clear the high-score table
          stats [--since YYYY-MM-DD] [--json]               rounds per day and hour, medians, finished and abandoned
          touch-heatmap --out FILE.png [--days N]           draw where touches landed, from the play statistics

        Run `bubble-kiosk COMMAND --help` for a command's options.
        """

    public static func main() {
        let args = CommandLine.arguments.dropFirst()
        guard let command = args.first else {
            Console.err(usage + "\n")
            exit(2)
        }
        let rest = args.dropFirst()
        let code: Int32
        switch command {
        case "--help", "-h", "help":
            Console.out(usage + "\n")
            code = 0
        case "state": code = run(StateCommand.self, rest)
        case "play": code = run(PlayCommand.self, rest)
        case "gestures": code = run(GesturesCommand.self, rest)
        case "check-config": code = run(CheckConfigCommand.self, rest)
        case "run": code = run(RunCommand.self, rest)
        case "round-recording": code = run(RoundRecordingCommand.self, rest)
        case "bench": code = run(BenchCommand.self, rest)
        case "devices": code = run(DevicesCommand.self, rest)
        case "generate-sounds": code = run(GenerateSoundsCommand.self, rest)
        case "scores": code = run(ScoresCommand.self, rest)
        case "stats": code = run(StatsCommand.self, rest)
        case "touch-heatmap": code = run(TouchHeatmapCommand.self, rest)
        case "score-writer-test": code = run(ScoreWriterTestCommand.self, rest)
        default:
            Console.log(.error, "unknown command '\(echoed(command))'")
            Console.err(usage + "\n")
            code = 2
        }
        exit(code)
    }

    /// Runs one command: `--help` prints its usage; a `UsageError` prints the usage line, exit 2.
    static func run(_ command: any KioskCommand.Type, _ args: ArraySlice<String>) -> Int32 {
        if args.contains("--help") || args.contains("-h") {
            Console.out(command.usage + "\n")
            return 0
        }
        do {
            return try command.run(args)
        } catch let error as UsageError {
            Console.errorLine("bubble-kiosk \(command.name): \(error.message)", level: .error)
            Console.errorLine(command.usage.split(separator: "\n").first.map(String.init) ?? "")
            return 2
        } catch {
            Console.errorLine("bubble-kiosk \(command.name): \(error)", level: .error)
            return 1
        }
    }
}

/// One subcommand of the `bubble-kiosk` binary.
protocol KioskCommand {
    /// The word after `bubble-kiosk`.
    static var name: String { get }
    /// Usage text; its first line is printed on a usage error.
    static var usage: String { get }
    /// Runs the command and returns its exit code; throws `UsageError` for bad arguments.
    static func run(_ args: ArraySlice<String>) throws -> Int32
}
