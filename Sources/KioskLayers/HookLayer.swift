import KioskCore
import KioskPlatform

/// The `[hooks]` layer: runs the programs configured for the kiosk's events (`HookEventMapper`
/// says which, with what data), follows reloads and lets go of running hooks at exit.
public final class HookLayer: KioskLayer {
    /// The runner, once attached.
    public private(set) var runner: HookRunner?
    private weak var host: LayerHost?

    public init() {}

    public func attach(to host: LayerHost) {
        self.host = host
        runner = HookRunner(settings: host.settings.hooks, loop: host.loop,
                            log: host.logger)
    }

    public func handle(_ event: KioskEvent, _ facts: EventFacts) {
        guard let runner, let (hook, fields) = HookEventMapper.map(event, facts) else { return }
        runner.fire(hook, fields: Self.fields(for: hook, fields, host: host), at: facts.wall)
    }

    /// A hook's data: the mapper's, with the display and input names where they matter (the
    /// start, a lost display). Fleet control's events (`PREFIX/event`) carry the same.
    public static func fields(for hook: HookEvent, _ fields: [(String, JSON)], host: LayerHost?) -> [(String, JSON)] {
        switch hook {
        case .start:
            return [("display", .string(host?.displayName ?? "")), ("input", .string(host?.inputName ?? ""))]
        case .displayLost:
            return [("display", .string(host?.displayName ?? ""))] + fields
        default:
            return fields
        }
    }

    public func reload(_ settings: Settings) { runner?.configure(settings.hooks) }

    public func stop() { runner?.stop() }
}
