import Testing
@testable import KioskCore
import KioskTestSupport

/// EDID blobs kept as hex text in Fixtures/edid/ (`#` lines are comments).
enum EDIDFixture {
    static func bytes(_ name: String) -> [UInt8] { Fixture.hexBytes("edid/" + name) }

    /// `bytes` with byte 127 set so the base block sums to 0 again (after an edit).
    static func withChecksum(_ bytes: [UInt8]) -> [UInt8] {
        var b = bytes
        b[127] = 0 &- b[0..<127].reduce(UInt8(0), &+)
        return b
    }

    /// Turns descriptor `index` (0-3) into a dummy descriptor (tag 0x10), dropping its text.
    static func withoutDescriptor(_ bytes: [UInt8], _ index: Int) -> [UInt8] {
        var b = bytes
        let start = 54 + 18 * index
        for i in start..<start + 18 { b[i] = 0 }
        b[start + 3] = 0x10
        return withChecksum(b)
    }
}

/// The fields of real EDIDs, checked against what `edid-decode` (Debian 12's) says of the same bytes.
@Suite struct EDIDFixtureTests {
    /// The HDMI physical address comes from the CTA-861 block's HDMI vendor-specific data block:
    /// QEMU's has none; with one added (after its video and audio blocks), it is read; a
    /// truncated or lying length never reads past the block.
    @Test func theHDMIPhysicalAddressFromTheCTABlock() throws {
        var bytes = EDIDFixture.bytes("qemu-vga-std.hex")
        #expect(try EDID(parsing: bytes).hdmiPhysicalAddress == nil)
        #expect(try EDID(parsing: Array(bytes.prefix(128))).hdmiPhysicalAddress == nil)
        let d = Int(bytes[130])
        let vsdb: [UInt8] = [0x67, 0x03, 0x0c, 0x00, 0x10, 0x00, 0x00, 0x00]
        bytes.replaceSubrange((128 + d)..<(128 + d + vsdb.count), with: vsdb)
        bytes[130] = UInt8(d + vsdb.count)
        #expect(try EDID(parsing: bytes).hdmiPhysicalAddress == 0x1000)
        var short = bytes
        short[130] = UInt8(d + 3)
        #expect(try EDID(parsing: short).hdmiPhysicalAddress == nil, "the block cut by the timings' offset")
        var lying = bytes
        lying[128 + d] = 0x7f
        lying[130] = 0xff
        _ = try EDID(parsing: lying).hdmiPhysicalAddress
    }

    @Test func qemuStdVGAAsTheGuestKernelSeesIt() throws {
        let bytes = EDIDFixture.bytes("qemu-vga-std.hex")
        #expect(bytes.count == 256)
        let edid = try EDID(parsing: bytes)
        #expect(edid.manufacturer == "RHT")
        #expect(edid.productCode == 4660)
        #expect(edid.serialNumber == 0)
        #expect(edid.modelName == "QEMU Monitor")
        #expect(edid.serialText == nil)
        #expect(edid.week == 42 && edid.year == 2014)
        #expect(edid.version == 1 && edid.revision == 4)
        #expect(edid.widthCM == 32 && edid.heightCM == 20)
        #expect(edid.preferredSize == PixelSize(width: 1280, height: 800))
        #expect(edid.checksumValid)
        #expect(edid.productID == "RHT-1234")
        #expect(edid.nameToken == "edid:QEMU_Monitor")
        #expect(edid.summary == "RHT \"QEMU Monitor\", 32x20 cm, made 2014 week 42")
    }

    @Test func linuxFullHD() throws {
        let edid = try EDID(parsing: EDIDFixture.bytes("linux-1920x1080.hex"))
        #expect(edid.manufacturer == "LNX")
        #expect(edid.productCode == 0)
        #expect(edid.serialNumber == 0)
        #expect(edid.modelName == "Linux FHD")
        #expect(edid.serialText == "Linux #0")
        #expect(edid.week == 5 && edid.year == 2012)
        #expect(edid.version == 1 && edid.revision == 3)
        #expect(edid.widthCM == 50 && edid.heightCM == 28)
        #expect(edid.preferredSize == PixelSize(width: 1920, height: 1080))
        #expect(edid.checksumValid)
        #expect(edid.nameToken == "edid:Linux__0", "the serial text, with ' ' and '#' made safe for the config")
        #expect(edid.summary == "LNX \"Linux FHD\" serial Linux #0, 50x28 cm, made 2012 week 5")
    }

    @Test func linuxXGA() throws {
        let edid = try EDID(parsing: EDIDFixture.bytes("linux-1024x768.hex"))
        #expect(edid.manufacturer == "LNX")
        #expect(edid.modelName == "Linux XGA")
        #expect(edid.serialText == "Linux #0")
        #expect(edid.widthCM == 35 && edid.heightCM == 26)
        #expect(edid.preferredSize == PixelSize(width: 1024, height: 768))
        #expect(edid.checksumValid)
    }

    @Test func aWrongChecksumIsRecordedNotFatal() throws {
        var bytes = EDIDFixture.bytes("linux-1920x1080.hex")
        bytes[127] &+= 1
        let edid = try EDID(parsing: bytes)
        #expect(!edid.checksumValid)
        #expect(edid.modelName == "Linux FHD")
        #expect(edid.summary.hasSuffix(", checksum wrong"))
    }

    @Test func onlyTheBaseBlockCountsForTheChecksum() throws {
        var bytes = EDIDFixture.bytes("qemu-vga-std.hex")
        bytes[200] &+= 1
        #expect(try EDID(parsing: bytes).checksumValid)
    }

    @Test func tooShortAndBadHeaderThrow() {
        let bytes = EDIDFixture.bytes("linux-1920x1080.hex")
        for count in [0, 1, 8, 127] {
            #expect(throws: EDID.ParseError.tooShort(count: count)) { try EDID(parsing: Array(bytes.prefix(count))) }
        }
        for i in 0..<8 {
            var bad = bytes
            bad[i] ^= 0x01
            #expect(throws: EDID.ParseError.badHeader) { try EDID(parsing: bad) }
        }
        #expect("\(EDID.ParseError.tooShort(count: 0))" == "0 bytes, shorter than the 128-byte base block")
    }
}

/// Text fields, manufacturer letters, and the naming contract `[display] outputs` relies on.
@Suite struct EDIDTextAndNamingTests {
    let fhd = EDIDFixture.bytes("linux-1920x1080.hex")

    /// `fhd` with the 13 text bytes of descriptor `index` (1: serial, 3: model) replaced.
    func withText(_ text: [UInt8], descriptor index: Int) -> [UInt8] {
        var b = fhd
        let start = 54 + 18 * index + 5
        for i in 0..<13 { b[start + i] = i < text.count ? text[i] : 0x20 }
        return EDIDFixture.withChecksum(b)
    }

    @Test func controlCharactersAndHighBytesBecomeQuestionMarks() throws {
        let hostile: [UInt8] = [0x1B, 0x5B, 0x32, 0x4A, 0x41, 0x7F, 0x80, 0xFF, 0x09, 0x42]
        let edid = try EDID(parsing: withText(hostile, descriptor: 3))
        #expect(edid.modelName == "?[2JA????B")
    }

    @Test func textEndsAtNewlineOrNulAndOuterSpacesGo() throws {
        #expect(try EDID(parsing: withText(Array("  AB CD  \nXY".utf8), descriptor: 3)).modelName == "AB CD")
        #expect(try EDID(parsing: withText(Array("AB".utf8) + [0, 0x43], descriptor: 3)).modelName == "AB")
        #expect(try EDID(parsing: withText(Array("   \n".utf8), descriptor: 3)).modelName == nil)
        // 13 bytes with no terminator: all of them.
        #expect(try EDID(parsing: withText(Array("ABCDEFGHIJKLM".utf8), descriptor: 1)).serialText == "ABCDEFGHIJKLM")
    }

    @Test func manufacturerLettersOutOfRangeShowAsQuestionMarks() throws {
        var b = fhd
        b[8] = 0x00
        b[9] = 0x1B // letters 0, 0, 27
        #expect(try EDID(parsing: EDIDFixture.withChecksum(b)).manufacturer == "???")
        b[8] = 0x10
        b[9] = 0xAC // Dell's id
        #expect(try EDID(parsing: EDIDFixture.withChecksum(b)).manufacturer == "DEL")
    }

    @Test func weekAndModelYear() throws {
        var b = fhd
        b[16] = 0xFF
        b[17] = 30
        #expect(try EDID(parsing: EDIDFixture.withChecksum(b)).summary.hasSuffix(", model year 2020"))
        b[16] = 0
        #expect(try EDID(parsing: EDIDFixture.withChecksum(b)).summary.hasSuffix(", 50x28 cm, made 2020"))
    }

    @Test func nameTokenFallsBackFromSerialToModelToProduct() throws {
        let noSerial = EDIDFixture.withoutDescriptor(fhd, 1)
        #expect(try EDID(parsing: noSerial).nameToken == "edid:Linux_FHD")
        let neither = EDIDFixture.withoutDescriptor(noSerial, 3)
        let bare = try EDID(parsing: neither)
        #expect(bare.nameToken == "edid:LNX-0000")
        #expect(bare.summary == "LNX product 0000, 50x28 cm, made 2012 week 5")
        var numbered = neither
        numbered[10] = 0xB4
        numbered[11] = 0xA0
        numbered[12] = 0x01
        numbered[13] = 0x01
        numbered[14] = 0x01
        numbered[15] = 0x01
        let edid = try EDID(parsing: EDIDFixture.withChecksum(numbered))
        #expect(edid.productCode == 0xA0B4)
        #expect(edid.serialNumber == 16_843_009)
        #expect(edid.nameToken == "edid:LNX-A0B4-16843009")
        #expect(edid.summary.hasPrefix("LNX product A0B4 serial 16843009,"))
    }

    @Test func matchesEveryIdentifyingFieldCaseInsensitively() throws {
        var b = fhd
        b[12] = 0x39
        b[13] = 0x30 // serial number 12345
        let edid = try EDID(parsing: EDIDFixture.withChecksum(b))
        for name in ["edid:Linux #0", "EDID:linux #0", "edid:Linux FHD", "edid:LINUX fhd", "edid:12345",
                     "edid:LNX-0000", "edid:lnx-0000", "edid:Linux__0", edid.nameToken] {
            #expect(edid.matches(name), "\(name)")
        }
        for name in ["Linux FHD", "HDMI-A-1", "edid:", "edid:Linux", "edid:Linux #1", "edid:0", "edid:LNX-0001",
                     "edid: Linux FHD", "serial:Linux #0", "edid:Linux_FHD"] {
            #expect(!edid.matches(name), "\(name)")
        }
    }

    @Test func aZeroSerialNumberMatchesNothing() throws {
        let edid = try EDID(parsing: fhd)
        #expect(edid.serialNumber == 0)
        #expect(!edid.matches("edid:0"))
    }

    @Test func theModelNamesEveryMonitorOfTheModelTheSerialOnlyOne() throws {
        var other = fhd
        let start = 54 + 18 + 5
        other[start + 7] = 0x31 // "Linux #1"
        let a = try EDID(parsing: fhd), b = try EDID(parsing: EDIDFixture.withChecksum(other))
        #expect(a.matches("edid:Linux FHD") && b.matches("edid:Linux FHD"))
        #expect(a.matches(a.nameToken) && !b.matches(a.nameToken))
        #expect(b.matches(b.nameToken) && !a.matches(b.nameToken))
    }
}

/// Random and mutated blobs: never a crash, text always printable, and the token always
/// names the monitor it came from.
@Suite struct EDIDFuzzTests {
    static let fixtures = ["qemu-vga-std.hex", "linux-1920x1080.hex", "linux-1024x768.hex"].map(EDIDFixture.bytes)

    func checkInvariants(_ edid: EDID) {
        let texts = [edid.manufacturer, edid.modelName ?? "", edid.serialText ?? "", edid.summary, edid.nameToken]
        for text in texts {
            #expect(text.unicodeScalars.allSatisfy { (0x20...0x7E).contains($0.value) }, "\(text.unicodeScalars.map(\.value))")
        }
        #expect(edid.manufacturer.count == 3)
        #expect((edid.modelName?.count ?? 0) <= 13 && (edid.serialText?.count ?? 0) <= 13)
        #expect(edid.nameToken.hasPrefix("edid:") && edid.nameToken.count > 5)
        #expect(edid.nameToken.dropFirst(5).allSatisfy { $0.isLetter || $0.isNumber || "._-".contains($0) })
        #expect(edid.matches(edid.nameToken))
        if let size = edid.preferredSize { #expect((1...4095).contains(size.width) && (1...4095).contains(size.height)) }
    }

    @Test func randomBlobsWithAHeader() throws {
        var rng = SeededGenerator(seed: 0xED1D)
        for _ in 0..<3000 {
            let count = rng.integer(in: 128...300)
            var bytes = (0..<count).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
            bytes.replaceSubrange(0..<8, with: EDID.header)
            // Half of them look like display descriptors, so the text paths get random bytes.
            if rng.next() & 1 == 0 {
                for start in stride(from: 54, to: 126, by: 18) {
                    bytes[start] = 0
                    bytes[start + 1] = 0
                    bytes[start + 2] = 0
                    bytes[start + 3] = [0xFC, 0xFF, 0xFE, 0xFD][rng.integer(in: 0...3)]
                }
            }
            checkInvariants(try EDID(parsing: bytes))
        }
    }

    @Test func mutatedRealBlobs() {
        var rng = SeededGenerator(seed: 20_261_202)
        var parsed = 0
        for _ in 0..<3000 {
            var bytes = Self.fixtures[rng.integer(in: 0...Self.fixtures.count - 1)]
            for _ in 0..<rng.integer(in: 1...8) {
                bytes[rng.integer(in: 0...bytes.count - 1)] = UInt8(truncatingIfNeeded: rng.next())
            }
            if rng.integer(in: 0...9) == 0 { bytes.removeLast(rng.integer(in: 0...bytes.count)) }
            do {
                checkInvariants(try EDID(parsing: bytes))
                parsed += 1
            } catch EDID.ParseError.tooShort(let count) {
                #expect(count == bytes.count && count < 128)
            } catch EDID.ParseError.badHeader {
                #expect(Array(bytes.prefix(8)) != EDID.header)
            } catch {
                Issue.record("unexpected error \(error)")
            }
        }
        #expect(parsed > 2000, "most mutations keep the header")
    }

    @Test func everyTruncationThrows() {
        let bytes = Self.fixtures[0]
        for count in 0..<128 {
            #expect(throws: EDID.ParseError.tooShort(count: count)) { try EDID(parsing: Array(bytes.prefix(count))) }
        }
    }
}
