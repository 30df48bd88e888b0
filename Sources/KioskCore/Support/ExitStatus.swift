/// What `bubble-kiosk run`'s exit status says, for the service manager and for operators
/// reading `systemctl status` (doc/installing.md lists them).
public enum ExitStatus: Int32, Sendable, CaseIterable {
    /// Stopped by a signal or `--duration`.
    case stopped = 0
    /// Anything else that went wrong.
    case failure = 1
    /// The command line is wrong.
    case usage = 2
    /// The configuration file named with `--config` cannot be read at all.
    case configUnusable = 3
    /// No display to draw on (no card, no connected screen, no permission).
    case noDisplay = 4
    /// Another program is DRM master of the display.
    case displayBusy = 5
    /// An operator asked for a fresh start (the unit restarts it at once).
    case operatorReset = 10
    /// A new program file was installed (an upgrade): the unit starts the new one at once.
    case updated = 11
}
