import KioskCore
import KioskPlatform

extension HookRunner {
    /// Runs `runtime`'s `[hooks]` for its events (`start`, `round_start`, `pop`, `round_over`,
    /// `idle`, `display_lost`, `touchscreen_lost`), follows reloads and lets go of running hooks
    /// at exit. `high_score` and `reset` are fired by whoever knows of them, with
    /// `fire(.highScore, fields: ...)` or `fire(named:fields:)`. The runtime's observers keep
    /// the runner as long as the runtime lives.
    @discardableResult
    public static func attach(to runtime: KioskRuntime) -> HookRunner {
        let hooks = HookRunner(settings: runtime.settings.hooks, loop: runtime.loop,
                               log: { [unowned runtime] level, message in runtime.log(level, message) })
        var mapper = HookEventMapper()
        runtime.observe { [unowned runtime] event, _ in
            guard let (hook, fields) = mapper.map(event, game: runtime.session.game) else { return }
            switch hook {
            case .start:
                hooks.fire(hook, fields: [("display", .string(runtime.display.name)), ("input", .string(runtime.input.name))])
            case .displayLost:
                hooks.fire(hook, fields: [("display", .string(runtime.display.name))] + fields)
            default:
                hooks.fire(hook, fields: fields)
            }
        }
        runtime.observeReload { settings in hooks.configure(settings.hooks) }
        runtime.observeExit { hooks.stop() }
        return hooks
    }
}
