/// Why a display could not be set up, in words an operator can act on.
public enum DisplaySetupError: Error, CustomStringConvertible {
    /// Another program (a compositor, another kiosk) is DRM master of the card.
    case notMaster(path: String)
    /// The device node exists but the user may not open it.
    case permissionDenied(path: String, group: String)
    /// No card (or no card with a connected screen), with what was seen on the way.
    case noDisplay(String)
    /// `--connector` or `--mode` named something the card does not have.
    case notFound(String)
    /// The device works but cannot drive the kiosk (pixel format, no dumb buffers, no CRTC).
    case unsupported(String)

    public var description: String {
        switch self {
        case .notMaster(let path):
            return "\(path): cannot become DRM master (another program owns the display: stop it, or switch VT)"
        case .permissionDenied(let path, let group):
            return "\(path): permission denied: add the user to the \(group) group "
                + "(usermod -aG \(group) USER, then log in again)"
        case .noDisplay(let text), .notFound(let text), .unsupported(let text):
            return text
        }
    }
}
