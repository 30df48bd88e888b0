/// Text from a file, a device or the command line as an error line may quote it: control
/// characters escaped (`\e`, `\t`, `\x7f`, `\u{202e}`) so a value cannot drive the terminal,
/// and at most `limit` characters as shown (escapes count at their shown length): a longer text
/// is cut to fit with `...` at its end, so a huge value, or one full of escapes, cannot flood
/// the log. The only place that escapes: every message quoting what a user supplied goes
/// through it, and a line quoting several values gives each a share of the 300 characters a
/// log line may have (`Console.maximumLineLength`, which cuts the rest).
///
/// Quotes are left to the caller: `"got '\(echoed(value))'"`.
public func echoed<S: StringProtocol>(_ text: S, limit: Int = 80) -> String {
    let limit = max(limit, 3)
    var pieces: [String] = []
    var shown = 0
    for scalar in text.unicodeScalars {
        let piece = escapedScalar(scalar)
        shown += piece.unicodeScalars.count
        pieces.append(piece)
        if shown > limit {
            // Too long: drop whole pieces (never half an escape) until `...` fits.
            while shown > limit - 3, let last = pieces.popLast() { shown -= last.unicodeScalars.count }
            return pieces.joined() + "..."
        }
    }
    return pieces.joined()
}

/// Whether `echoed` escapes `scalar`: C0 and C1 controls (some terminals obey 0x9B as CSI),
/// DEL, and the format characters that reorder or hide text (bidi overrides and isolates,
/// zero-width marks), so a line reads as what it holds. Config values that reach paths,
/// devices and command lines refuse these characters, so they never pass raw.
public func isEscapedByEcho(_ scalar: Unicode.Scalar) -> Bool {
    switch scalar.value {
    case 0x00..<0x20, 0x7F, 0x80..<0xA0, 0x200B...0x200F, 0x202A...0x202E, 0x2066...0x2069, 0xFEFF: return true
    default: return false
    }
}

/// One scalar as `echoed` shows it.
private func escapedScalar(_ scalar: Unicode.Scalar) -> String {
    guard isEscapedByEcho(scalar) else { return String(Character(scalar)) }
    switch scalar.value {
    case 0x09: return "\\t"
    case 0x0A: return "\\n"
    case 0x0D: return "\\r"
    case 0x1B: return "\\e"
    case 0x00..<0x20, 0x7F: return "\\x" + NumberText.hex(scalar.value, digits: 2)
    default: return "\\u{" + NumberText.hex(scalar.value, digits: 4) + "}"
    }
}

