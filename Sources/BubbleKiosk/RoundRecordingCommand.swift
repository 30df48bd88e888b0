import KioskCore
import KioskPlatform

/// `bubble-kiosk round-recording`: an evemu recording that plays the round `state` prints.
struct RoundRecordingCommand: KioskCommand {
    static let name = "round-recording"
    static let usage = """
        usage: bubble-kiosk round-recording --seed N --size WxH [--config F] [--mode classic|timed|joystick] [--pop N] [--no-start] [--rotation DEG]
        Prints an evemu recording (format 1.3, a direct multi-touch screen) that taps the Start
        button and then pops the bubbles of the round `state --seed N --size WxH` prints, in id
        order (--pop N: only the first N). Play it with `bubble-kiosk play` (use --no-start), or
        through a real device: `evemu-device` on it, then `evemu-play DEVICE < FILE`.
        --mode taps that mode's button when the start screen offers several ([modes]); --mode
        joystick steers the knob towards each bubble in turn instead of popping them by hand.
        --rotation writes touches for a panel mounted at that rotation (WxH is the game's size).
        """

    static func run(_ argv: ArraySlice<String>) throws -> Int32 {
        let args = try Arguments(argv, valued: GameSetup.valued.union(["pop", "rotation"]), flags: ["no-start"])
        guard args.positionals.isEmpty else { throw UsageError("unexpected argument '\(echoed(args.positionals[0]))'") }
        let seed = try args.requiredSeed()
        let setup = try GameSetup(args)
        let rotation = try args.int("rotation", default: 0, range: 0...270)
        guard let turn = ScreenRotation(degrees: rotation) else {
            throw UsageError("--rotation expects \(ScreenRotation.allowedText)")
        }
        let limit = args.value("pop") == nil ? nil : try args.int("pop", default: 0, range: 0...1000)
        let round = Round(mode: setup.mode, field: setup.field, settings: setup.settings, seed: seed, at: .zero)
        let game = KioskGame(field: setup.field, settings: setup.settings, seed: seed, at: .zero)
        let logical = setup.field.size
        let native = turn.logicalSize(panel: logical)  // a quarter turn is its own inverse on sizes
        var recording = RoundRecording(transform: TouchTransform(native: native, rotation: rotation),
                                       startButton: args.has("no-start") ? nil
                                           : (game.button(for: setup.mode) ?? game.button).center)
        if args.has("no-start") { recording.start = .milliseconds(100) }
        if setup.mode == .joystick {
            Console.out(recording.text(steering: round, limit: limit))
        } else {
            Console.out(recording.text(popping: round.bubbles, limit: limit, swipeLengthPx: setup.field.px(25),
                                       goal: round.goal))
        }
        return 0
    }
}
