import Glibc
import KioskCore
import Testing
@testable import KioskPlatform
import KioskTestSupport

@Suite struct FileLimitTests {
    @Test func onlyRegularFilesAreRead() throws {
        let dir = TemporaryDirectory("evdev-tests")
        let fifo = dir.path + "/fifo"
        #expect(mkfifo(fifo, 0o600) == 0)
        // Without O_NONBLOCK this open would wait for a writer forever.
        #expect(throws: FileRefusal.notRegular(kind: "a FIFO")) { try FileSystem.readText(fifo) }
        #expect(throws: FileRefusal.notRegular(kind: "a character device")) { try FileSystem.readText("/dev/zero") }
        #expect(throws: FileRefusal.notRegular(kind: "a directory")) { try LineReader(path: dir.path) }
        #expect(FileRefusal.notRegular(kind: "a FIFO").description == "not a regular file (a FIFO)")
    }

    @Test func readsAreCappedAtTheLimit() throws {
        let dir = TemporaryDirectory("evdev-tests")
        let path = dir.path + "/big.conf"
        try OutputFile.write(path, Array(repeating: UInt8(ascii: "#"), count: 3000))
        #expect(try FileSystem.readText(path, limit: 3000).utf8.count == 3000)
        #expect(throws: FileRefusal.tooLarge(bytes: 3000, limit: 2999)) { try FileSystem.readText(path, limit: 2999) }
        #expect(FileRefusal.tooLarge(bytes: 2_000_000, limit: 1 << 20).description == "too large (2000000 bytes, at most 1 MiB)")
        let config = ConfigLoader.loadFile(path)
        #expect(config.diagnostics.isEmpty)
    }

    @Test func lineReaderSplitsAcrossChunksAndLineEnds() throws {
        let dir = TemporaryDirectory("evdev-tests")
        let path = dir.path + "/lines.evemu"
        // Lines of every length around the reader's 64 KiB chunks, CR LF and LF, no final LF.
        var expected: [String] = []
        var text = ""
        var n = 0
        while text.utf8.count < 200_000 {
            let line = String(repeating: "x", count: n % 300) + "\(n)"
            expected.append(line)
            text += line + (n % 3 == 0 ? "\r\n" : "\n")
            n += 1
        }
        text += "last"
        expected.append("last")
        try OutputFile.write(path, Array(text.utf8))
        let reader = try LineReader(path: path)
        var lines: [String] = []
        while let line = try reader.next() { lines.append(line) }
        #expect(lines == expected)
    }

    @Test func aLineWithoutEndIsRefusedAtItsNumber() throws {
        let dir = TemporaryDirectory("evdev-tests")
        let path = dir.path + "/junk.evemu"
        try OutputFile.write(path, Array("N: x\nI: 0 0 0 0\n".utf8) + Array(repeating: UInt8(ascii: "z"), count: 300_000))
        let reader = try LineReader(path: path)
        #expect(try reader.next() == "N: x")
        #expect(try reader.next() == "I: 0 0 0 0")
        #expect(throws: RecordingError(file: path, line: 3, message: "expected a line of at most 4096 bytes, got a longer one")) {
            try reader.next()
        }
        #expect(throws: RecordingError.self) { try EvemuReader.open(path: path) }
    }

    @Test func openReadsTheHeaderOfAFile() throws {
        let text = RecordingBuilder(screen: PixelSize(width: 800, height: 600)).text()
        let dir = TemporaryDirectory("evdev-tests")
        let path = dir.path + "/r.evemu"
        try OutputFile.write(path, Array(text.utf8))
        let reader = try EvemuReader.open(path: path)
        #expect(reader.header == (try EvemuRecording.parse(text, file: path)).withoutEvents)
    }
}

private extension EvemuRecording {
    var withoutEvents: EvemuRecording {
        var r = self
        r.events = []
        return r
    }
}

@Suite struct ReplayInputTests {
    /// A tap, then a line the parser refuses: the tap is delivered, then the replay just ends.
    @Test func aBadLineMidwayEndsTheReplayAfterWhatCameBefore() throws {
        var builder = RecordingBuilder(screen: PixelSize(width: 800, height: 600))
        builder.tap(at: Vector2(400, 300), start: .milliseconds(0))
        let text = builder.text() + "E: 99999999999.000000 0000 0000 0000\n"
        let input = ReplayTouchInput(recording: try EvemuReader(text: text, file: "r.evemu"), path: "r.evemu",
                                     screen: PixelSize(width: 800, height: 600), log: .discard)
        var frames: [TouchFrame] = []
        let loop = try EventLoop()
        input.start(loop: loop, deliver: { frames.append($0) }, lost: { _, _ in })
        #expect(!input.isFinished)
        input.advance(to: (EventLoop.now() + .milliseconds(10_000)))
        #expect(input.isFinished)
        #expect(input.nextDeadline == nil)
        #expect(frames.contains { !$0.contacts.isEmpty })
        #expect(frames.last?.contacts.isEmpty == true)
    }
}
