/// What a VT switch signal asks for.
public enum VTSwitch: Equatable, Sendable {
    /// Another VT wants the screen: stop drawing, give up the display, then acknowledge.
    case release
    /// The VT is ours again: acknowledge, take the display back and repaint.
    case acquire
}

/// The virtual terminal the kiosk owns on a Linux console (`VirtualTerminal`); a protocol so
/// runtime tests can switch VTs on virtual time.
public protocol ConsoleOwner: AnyObject {
    /// The signal the kernel sends for both release and acquire requests.
    var switchSignal: Int32 { get }
    /// Decides what the signal just received asks for (it does not acknowledge yet).
    func handleSwitchSignal() -> VTSwitch
    /// Lets the switch away go ahead (after the display was given up).
    func acknowledgeRelease()
    /// Confirms the switch back (before taking the display again).
    func acknowledgeAcquire()
    /// Hands the VT back to the kernel's own switching and text mode. Idempotent.
    func restore()
}
