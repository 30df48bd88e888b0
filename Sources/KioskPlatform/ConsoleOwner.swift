/// The virtual terminal the kiosk owns on a Linux console (`VirtualTerminal`); a protocol so
/// runtime tests can switch VTs on virtual time.
public protocol ConsoleOwner: AnyObject {
    /// The signal the kernel sends for both release and acquire requests.
    var switchSignal: Int32 { get }
    /// True while this VT is the one on screen.
    var isActive: Bool { get }
    /// Decides what the signal just received asks for (it does not acknowledge yet).
    func handleSwitchSignal() -> VTSwitch
    /// Lets the switch away go ahead (after the display was given up); false when no switch
    /// was pending (the signal came from `kill`): the VT is still ours.
    @discardableResult
    func acknowledgeRelease() -> Bool
    /// Confirms the switch back (before taking the display again).
    func acknowledgeAcquire()
    /// Sets the keyboard mode again if another program changed it: systemd resets the VT (its
    /// `TTYReset=`) for the unit's reload command as well, which turns the keyboard back on.
    func keepKeyboard()
    /// Hands the VT back to the kernel's own switching and text mode. Idempotent.
    func restore()
}
