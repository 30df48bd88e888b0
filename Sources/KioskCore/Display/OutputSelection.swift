/// Which connected screens the kiosk uses (`[display] outputs`): `first`, `all`, or names.
///
/// A name is a connector's kernel name (`HDMI-A-1`, compared without regard to case) or an
/// `edid:` token that names the monitor itself (`EDID.matches`), so a cable moved to another
/// port keeps the same screen main. The first screen chosen is the main one: the game is laid
/// out for it and touch belongs to it; the others mirror it.
public enum OutputSelection: Equatable, Sendable, CustomStringConvertible {
    /// The first connected screen, in the card's order (one screen).
    case first
    /// Every connected screen; the first in the card's order is main.
    case all
    /// These, in order of preference for main; screens not named stay dark.
    case named([String])

    /// The longest name accepted: connector names are short, EDID texts at most 13 characters.
    public static let longestName = 64

    /// `first`, `all`, or names separated by commas; nil when the text is none of these.
    public init?(parsing text: String) {
        let trimmed = String(ConfigParser.trimmingBlanks(Substring(text)))
        switch trimmed.lowercased() {
        case "first", "": self = .first
        case "all": self = .all
        default:
            let names = trimmed.split(separator: ",", omittingEmptySubsequences: false).map { String(ConfigParser.trimmingBlanks($0)) }
            guard !names.isEmpty, names.allSatisfy({ !$0.isEmpty && $0.count <= Self.longestName }) else { return nil }
            self = .named(names)
        }
    }

    /// What is wrong with `text` as a value of `[display] outputs`, or nil (the config's check).
    @Sendable public static func problem(_ text: String) -> String? {
        OutputSelection(parsing: text) == nil
            ? "first, all, or connector names (HDMI-A-1) and edid: names separated by commas, each at most \(longestName) characters"
            : nil
    }

    public var description: String {
        switch self {
        case .first: return "first"
        case .all: return "all"
        case .named(let names): return names.joined(separator: ",")
        }
    }

    /// The screens to use among `candidates` (in the card's order), main first; empty when none
    /// can show anything now (the kiosk then waits for one).
    ///
    /// Connected screens come first. A connector that says neither connected nor disconnected
    /// (fixed panels that cannot detect) is used only when it is named, or when no screen at all
    /// says connected, as `first` always did.
    public func choose(among candidates: [OutputCandidate]) -> [Int] {
        let usable = candidates.indices.filter { candidates[$0].presence == .connected && candidates[$0].hasModes }
        let maybe = candidates.indices.filter { candidates[$0].presence != .disconnected && candidates[$0].hasModes }
        switch self {
        case .first:
            return (usable.first ?? maybe.first).map { [$0] } ?? []
        case .all:
            return usable.isEmpty ? Array(maybe.prefix(1)) : usable
        case .named(let names):
            var chosen: [Int] = []
            for name in names {
                for i in maybe where !chosen.contains(i) && candidates[i].isNamed(name) {
                    chosen.append(i)
                }
            }
            return chosen
        }
    }

    /// Names that match no candidate at all (connected or not): probably typos, said once.
    public func unknownNames(among candidates: [OutputCandidate]) -> [String] {
        guard case .named(let names) = self else { return [] }
        return names.filter { name in !candidates.contains { $0.isNamed(name) } && !name.lowercased().hasPrefix("edid:") }
    }
}

/// A connector as the output choice sees it.
public struct OutputCandidate: Sendable {
    /// What the connector says about a monitor on it.
    public enum Presence: Sendable { case connected, disconnected, unknown }

    /// The kernel's name, `HDMI-A-1`.
    public var name: String
    public var presence: Presence
    public var hasModes: Bool
    /// Whether the monitor on it answers to an `edid:` name (false without one).
    public var monitorMatches: @Sendable (String) -> Bool

    public init(name: String, presence: Presence, hasModes: Bool,
                monitorMatches: @escaping @Sendable (String) -> Bool = { _ in false }) {
        self.name = name
        self.presence = presence
        self.hasModes = hasModes
        self.monitorMatches = monitorMatches
    }

    /// Whether `name` names this connector or its monitor.
    public func isNamed(_ wanted: String) -> Bool {
        if wanted.lowercased().hasPrefix("edid:") { return monitorMatches(wanted) }
        return wanted.lowercased() == name.lowercased()
    }
}
