/// The translations in a compiled gettext catalogue (`msgfmt`'s `.mo` file): msgid to msgstr.
///
/// The kiosk reads the file itself rather than through the C library's gettext, which picks the
/// catalogue by the process's locale: a kiosk has only C.UTF-8, under which Debian 13's C library
/// ignores LANGUAGE. The format: a magic number (which gives the byte order), a revision, the
/// count of strings, and two tables of (length, offset) pairs, originals then translations.
public enum MOFile {
    /// Why a file is not a catalogue, with the byte offset where it went wrong.
    public struct FormatError: Error, Equatable, CustomStringConvertible {
        public let reason: String
        public var description: String { reason }
    }

    /// Every entry with a translation; plural and context entries keep their raw msgid.
    public static func translations(_ bytes: [UInt8]) throws -> [String: String] {
        func word(_ at: Int, bigEndian: Bool) throws -> Int {
            guard at >= 0, at <= bytes.count - 4 else { throw FormatError(reason: "cut short at byte \(at)") }
            let b = bytes[at..<at + 4].map { Int($0) }
            return bigEndian ? b[0] << 24 | b[1] << 16 | b[2] << 8 | b[3] : b[3] << 24 | b[2] << 16 | b[1] << 8 | b[0]
        }
        let magic = try word(0, bigEndian: false)
        let bigEndian: Bool
        switch magic {
        case 0x9504_12DE: bigEndian = false
        case 0xDE12_0495: bigEndian = true
        default: throw FormatError(reason: "not a gettext catalogue (magic number)")
        }
        guard try word(4, bigEndian: bigEndian) >> 16 == 0 else { throw FormatError(reason: "unknown major revision") }
        let count = try word(8, bigEndian: bigEndian)
        let originals = try word(12, bigEndian: bigEndian), translated = try word(16, bigEndian: bigEndian)
        // Each entry takes 8 bytes of each table: more than the file holds is a lie.
        guard count <= bytes.count / 16 else { throw FormatError(reason: "\(count) strings in \(bytes.count) bytes") }
        func string(table: Int, index: Int) throws -> String {
            let length = try word(table + 8 * index, bigEndian: bigEndian)
            let offset = try word(table + 8 * index + 4, bigEndian: bigEndian)
            guard offset >= 0, length >= 0, length < bytes.count, offset <= bytes.count - length else {
                throw FormatError(reason: "string \(index) outside the file (offset \(offset), length \(length))")
            }
            return String(decoding: bytes[offset..<offset + length], as: UTF8.self)
        }
        var result: [String: String] = [:]
        for index in 0..<count {
            let id = try string(table: originals, index: index), text = try string(table: translated, index: index)
            // The header (empty msgid) and untranslated entries carry nothing to show.
            if !id.isEmpty, !text.isEmpty { result[id] = text }
        }
        return result
    }
}
