/// A monitor's identity and basics from the base block of its EDID (VESA E-EDID 1.3 and 1.4):
/// who made it, its model name and serial, its size and its preferred timing.
///
/// Text fields hold printable ASCII only (any other byte becomes `?`), so a hostile or broken
/// EDID cannot put control characters into a log line.
public struct EDID: Equatable, Sendable {
    /// Why bytes are not an EDID. A wrong checksum is not one of them: many real monitors ship
    /// with one broken byte and work, so it is recorded in `checksumValid` instead.
    public enum ParseError: Error, Equatable, Sendable, CustomStringConvertible {
        /// Fewer than the base block's 128 bytes (0: the connector has no EDID at all).
        case tooShort(count: Int)
        /// The first 8 bytes are not `00 FF FF FF FF FF FF 00`.
        case badHeader

        public var description: String {
            switch self {
            case .tooShort(let count): return "\(count) bytes, shorter than the 128-byte base block"
            case .badHeader: return "no EDID header (00 FF FF FF FF FF FF 00)"
            }
        }
    }

    /// The base block's size; extension blocks (CTA-861 and others) follow it; of those only the
    /// HDMI physical address is read.
    public static let blockSize = 128
    static let header: [UInt8] = [0x00, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x00]

    /// The 3-letter PNP id (`DEL`, `SAM`, `RHT`); a letter out of range shows as `?`.
    public var manufacturer: String
    /// The manufacturer's product code (bytes 10-11).
    public var productCode: UInt16
    /// The numeric serial number (bytes 12-15); 0 when the monitor gives none.
    public var serialNumber: UInt32
    /// The display product name (descriptor 0xFC), e.g. `DELL U2415`.
    public var modelName: String?
    /// The serial number as text (descriptor 0xFF): what a monitor's label says, unique per unit.
    public var serialText: String?
    /// Week of manufacture 1-54; 0 when not given, 255 when `year` is a model year.
    public var week: Int
    /// Year of manufacture (or the model year when `week` is 255).
    public var year: Int
    public var version: Int
    public var revision: Int
    /// Physical size in cm (bytes 21-22); 0 when unknown, as for projectors.
    public var widthCM: Int
    public var heightCM: Int
    /// The first detailed timing's active pixels: the monitor's native mode in EDID 1.3+.
    public var preferredSize: PixelSize?
    /// False when the base block's bytes do not sum to 0 mod 256; the other fields are read anyway.
    public var checksumValid: Bool
    /// The HDMI physical address the sink gave this port (`1.0.0.0` for the TV's HDMI 1), from
    /// the HDMI vendor-specific data block of a CTA-861 extension; nil without one. What a CEC
    /// adapter that leaves its address to software (USB adapters) is given.
    public var hdmiPhysicalAddress: UInt16?

    /// Reads the base block at the start of `bytes` (the whole blob, extensions included, as the
    /// kernel's EDID property and sysfs file give it, is fine). Throws `ParseError`.
    public init(parsing bytes: [UInt8]) throws {
        if let problem = Self.problem(bytes) { throw problem }
        self.init(checked: bytes)
    }

    /// What a connector's EDID bytes say: nil when it has none (nothing plugged in, a panel
    /// without EDID, an empty blob), else the monitor or why its EDID cannot be read.
    public static func read(_ bytes: [UInt8]?) -> Result<EDID, ParseError>? {
        guard let bytes, !bytes.isEmpty else { return nil }
        if let problem = problem(bytes) { return .failure(problem) }
        return .success(EDID(checked: bytes))
    }

    static func problem(_ bytes: [UInt8]) -> ParseError? {
        if bytes.count < blockSize { return .tooShort(count: bytes.count) }
        if Array(bytes[0..<8]) != header { return .badHeader }
        return nil
    }

    /// Reads bytes `problem` found nothing wrong with.
    private init(checked bytes: [UInt8]) {
        let block = Array(bytes[0..<Self.blockSize])
        checksumValid = block.reduce(UInt8(0), &+) == 0

        // Three 5-bit letters, big-endian, 1 = A.
        let packed = UInt16(block[8]) << 8 | UInt16(block[9])
        manufacturer = String([10, 5, 0].map { shift -> Character in
            let letter = (packed >> UInt16(shift)) & 0x1F
            return (1...26).contains(letter) ? Character(Unicode.Scalar(UInt8(letter) + 0x40)) : "?"
        })
        productCode = UInt16(block[10]) | UInt16(block[11]) << 8
        serialNumber = UInt32(block[12]) | UInt32(block[13]) << 8 | UInt32(block[14]) << 16 | UInt32(block[15]) << 24
        week = Int(block[16])
        year = 1990 + Int(block[17])
        version = Int(block[18])
        revision = Int(block[19])
        widthCM = Int(block[21])
        heightCM = Int(block[22])

        hdmiPhysicalAddress = Self.hdmiPhysicalAddress(in: bytes)
        modelName = nil
        serialText = nil
        preferredSize = nil
        for start in stride(from: 54, to: 126, by: 18) {
            let d = block[start..<start + 18]
            if d[start] != 0 || d[start + 1] != 0 {
                // A detailed timing (its pixel clock is not 0): the first one is the preferred mode.
                if preferredSize == nil {
                    let width = Int(d[start + 2]) | Int(d[start + 4] >> 4) << 8
                    let height = Int(d[start + 5]) | Int(d[start + 7] >> 4) << 8
                    if width > 0 && height > 0 { preferredSize = PixelSize(width: width, height: height) }
                }
                continue
            }
            switch d[start + 3] {
            case 0xFC: modelName = modelName ?? Self.text(d[(start + 5)...])
            case 0xFF: serialText = serialText ?? Self.text(d[(start + 5)...])
            default: break
            }
        }
    }

    /// The physical address in the first HDMI vendor-specific data block (IEEE OUI 00-0C-03) of
    /// the CTA-861 extension blocks (tag 2) that follow the base block.
    static func hdmiPhysicalAddress(in bytes: [UInt8]) -> UInt16? {
        var start = blockSize
        while start + blockSize <= bytes.count {
            let block = bytes[start..<start + blockSize]
            start += blockSize
            // Data blocks run from byte 4 to the offset of the detailed timings in byte 2.
            guard block[block.startIndex] == 0x02 else { continue }
            let end = min(Int(block[block.startIndex + 2]), blockSize)
            var at = 4
            while at < end {
                let header = block[block.startIndex + at]
                let length = Int(header & 0x1f)
                let first = block.startIndex + at + 1
                if header >> 5 == 3, length >= 5, at + 1 + length <= end,
                   block[first] == 0x03, block[first + 1] == 0x0c, block[first + 2] == 0x00 {
                    return UInt16(block[first + 3]) << 8 | UInt16(block[first + 4])
                }
                at += 1 + length
            }
        }
        return nil
    }

    /// A descriptor's text: up to 13 bytes, ending at 0x0A (or 0x00, which some monitors pad
    /// with), outer spaces trimmed; nil when nothing is left. Only printable ASCII passes.
    static func text(_ bytes: ArraySlice<UInt8>) -> String? {
        var chars: [Character] = []
        for byte in bytes.prefix(13) {
            if byte == 0x0A || byte == 0x00 { break }
            chars.append((0x20...0x7E).contains(byte) ? Character(Unicode.Scalar(byte)) : "?")
        }
        while chars.last == " " { chars.removeLast() }
        while chars.first == " " { chars.removeFirst() }
        return chars.isEmpty ? nil : String(chars)
    }

    /// `DEL-A0B4`: the manufacturer and the product code in 4 hex digits, naming a model.
    public var productID: String { manufacturer + "-" + Self.hex(productCode) }

    // MARK: - Naming a screen

    /// The one name an operator copies into the config to name this monitor whichever port or
    /// cable it is on: `edid:SERIAL` when the EDID has a serial text (unique per monitor), else
    /// `edid:MODEL` when it has a model name, else `edid:MFG-PPPP` (the product code in 4 hex
    /// digits) followed by `-NNNN` (the numeric serial in decimal) when that is not 0.
    ///
    /// Every character other than letters, digits, `.`, `-` and `_` becomes `_`
    /// (`edid:DELL_U2415`), so the token survives a config value list: `#` starts a comment,
    /// `,` separates names and outer spaces are trimmed. `matches` accepts the token as is.
    public var nameToken: String {
        let text: String
        if let serialText {
            text = serialText
        } else if let modelName {
            text = modelName
        } else {
            text = productID + (serialNumber != 0 ? "-\(serialNumber)" : "")
        }
        return "edid:" + String(text.map { c -> Character in
            c.isASCII && (c.isLetter || c.isNumber || c == "." || c == "-" || c == "_") ? c : "_"
        })
    }

    /// Whether `name` names this monitor. Only names of the form `edid:TEXT` can match (a
    /// connector name such as `HDMI-A-1` never does); TEXT matches, ASCII case-insensitively,
    /// when it equals the serial text, the model name, the numeric serial number in decimal
    /// (when not 0), `MFG-PPPP` (`productID`), or the TEXT of `nameToken`.
    ///
    /// The contract `[display] outputs = first | all | NAME[,NAME...]` builds on: NAME is a
    /// connector name or such an `edid:` token. A serial names one monitor; a model name or
    /// `MFG-PPPP` names every monitor of that model.
    public func matches(_ name: String) -> Bool {
        let prefix = "edid:"
        guard name.count > prefix.count, Self.lowercased(String(name.prefix(prefix.count))) == prefix else { return false }
        let text = Self.lowercased(String(name.dropFirst(prefix.count)))
        var candidates = [serialText, modelName, productID, String(nameToken.dropFirst(prefix.count))]
        if serialNumber != 0 { candidates.append(String(serialNumber)) }
        return candidates.contains { $0.map(Self.lowercased) == text }
    }

    /// For humans, one line: `DEL "DELL U2415" serial 7MT0174J0ABL, 52x32 cm, made 2016 week 20`.
    public var summary: String {
        var line = manufacturer
        if let modelName {
            line += " \"\(modelName)\""
        } else {
            line += " product " + Self.hex(productCode)
        }
        if let serialText {
            line += " serial " + serialText
        } else if serialNumber != 0 {
            line += " serial \(serialNumber)"
        }
        if widthCM > 0 && heightCM > 0 { line += ", \(widthCM)x\(heightCM) cm" }
        switch week {
        case 255: line += ", model year \(year)"
        case 1...54: line += ", made \(year) week \(week)"
        default: line += ", made \(year)"
        }
        if !checksumValid { line += ", checksum wrong" }
        return line
    }

    // Lowercases ASCII letters only: the comparison must not depend on Unicode case rules.
    private static func lowercased(_ text: String) -> String {
        String(text.unicodeScalars.map { s -> Character in
            (0x41...0x5A).contains(s.value) ? Character(Unicode.Scalar(s.value + 0x20)!) : Character(s)
        })
    }

    private static func hex<T: BinaryInteger>(_ value: T) -> String { NumberText.hex(value, digits: 4, uppercase: true) }
}
