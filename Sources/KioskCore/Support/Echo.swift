/// Text from a file, a device or the command line as an error line may quote it: control
/// characters escaped (`\e`, `\t`, `\x7f`, `\u{202e}`) so a value cannot drive the terminal,
/// and text longer than `limit` characters cut to `limit - 3` plus `...`, so a huge value
/// cannot flood the log.
///
/// Quotes are left to the caller: `"got '\(echoed(value))'"`.
public func echoed<S: StringProtocol>(_ text: S, limit: Int = 80) -> String {
    var kept: [Unicode.Scalar] = []
    var cut = false
    for scalar in text.unicodeScalars {
        if kept.count == max(limit, 3) {
            cut = true
            break
        }
        kept.append(scalar)
    }
    if cut { kept.removeLast(3) }
    return kept.map(escapedScalar).joined() + (cut ? "..." : "")
}

/// One scalar as `echoed` shows it.
private func escapedScalar(_ scalar: Unicode.Scalar) -> String {
    switch scalar.value {
    case 0x09: return "\\t"
    case 0x0A: return "\\n"
    case 0x0D: return "\\r"
    case 0x1B: return "\\e"
    case 0x00..<0x20, 0x7F:
        return "\\x" + hexDigits(scalar.value, count: 2)
    // C1 controls (some terminals obey 0x9B as CSI), and the format characters that reorder
    // or hide text (bidi overrides, zero-width marks), so a line reads as what it holds.
    case 0x80..<0xA0, 0x200B...0x200F, 0x202A...0x202E, 0x2066...0x2069, 0xFEFF:
        return "\\u{" + hexDigits(scalar.value, count: 4) + "}"
    default:
        return String(Character(scalar))
    }
}

private func hexDigits(_ value: UInt32, count: Int) -> String {
    let digits = String(value, radix: 16)
    return String(repeating: "0", count: max(0, count - digits.count)) + digits
}
