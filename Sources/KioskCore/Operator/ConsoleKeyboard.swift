/// The keyboard mode of a Linux virtual console (KDGKBMODE/KDSKBMODE).
public enum ConsoleKeyboardMode: Equatable, Sendable {
    /// Scancodes to the reader (K_RAW); keys do nothing on the console itself.
    case raw
    /// Keycodes to the reader (K_MEDIUMRAW).
    case mediumRaw
    /// The keymap's characters, in the console's 8-bit charset (K_XLATE).
    case translated
    /// The keymap's characters as UTF-8 (K_UNICODE): a text console's usual mode.
    case unicode
    /// Every key dropped (K_OFF): no VT switch, no Ctrl-Alt-Del, nothing queued.
    case off
    /// A number this list does not know.
    case unknown(Int)

    /// A console in this mode answers no one at the keyboard: a program that set it has
    /// crashed or not restored it.
    public var isDeaf: Bool {
        switch self {
        case .raw, .mediumRaw, .off: return true
        case .translated, .unicode, .unknown: return false
        }
    }
}

/// What the kiosk does with the keyboard of the VT it owns (`[kiosk] allow_vt_switch`): off
/// while the game runs, as X and Weston do, so a visitor's keyboard can switch to no other VT,
/// send no Ctrl-Alt-Del through the keymap and leave nothing typed in the console's queue.
/// Programmatic switching (`chvt`) is not the keyboard's and still works.
public struct ConsoleKeyboardPolicy: Equatable, Sendable {
    /// Keys may switch VTs and reach the console (developers, test benches).
    public var allowVTSwitch: Bool

    public init(allowVTSwitch: Bool) {
        self.allowVTSwitch = allowVTSwitch
    }

    /// The mode to set once the VT is the kiosk's, given the one found; nil leaves it. Allowed
    /// switching on a console a crashed program left deaf makes it answer again.
    public func whileOwned(found: ConsoleKeyboardMode) -> ConsoleKeyboardMode? {
        if !allowVTSwitch { return found == .off ? nil : .off }
        return found.isDeaf ? .unicode : nil
    }

    /// The mode to give back at exit: the one found at start, unless that one was deaf (a
    /// crashed kiosk's K_OFF, a crashed X's K_RAW): then the text console's own.
    public static func atExit(found: ConsoleKeyboardMode) -> ConsoleKeyboardMode {
        found.isDeaf ? .unicode : found
    }

    /// The log's one line on what applies, for `name` (`/dev/tty1`).
    public func describe(on name: String) -> String {
        allowVTSwitch
            ? "\(name): keys may switch VTs and reach the console ([kiosk] allow_vt_switch = true)"
            : "\(name): keyboard off while the kiosk runs: no VT switch, Ctrl-Alt-Del or typing from a keyboard ([kiosk] allow_vt_switch = false; chvt still switches)"
    }
}
