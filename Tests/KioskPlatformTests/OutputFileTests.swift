import Glibc
import KioskCore
import KioskTestSupport
import Testing
@testable import KioskPlatform

/// The one writer of output files: regular files replaced atomically, anything else left alone.
@Suite struct OutputFileTests {
    private func kind(_ path: String) -> mode_t {
        var st = stat()
        return lstat(path, &st) == 0 ? st.st_mode & S_IFMT : 0
    }

    @Test func aFIFOIsRefusedAtOnceAndLeftInPlace() throws {
        let dir = TemporaryDirectory("output-file-tests")
        let fifo = dir.path + "/out.png"
        #expect(mkfifo(fifo, 0o600) == 0)
        // Opening the FIFO for writing would wait for a reader forever; renaming over it would
        // replace it with a regular file. Neither may happen.
        #expect(throws: OutputRefusal(path: fifo, kind: "a FIFO")) { try OutputFile.write(fifo, [1, 2, 3]) }
        #expect(kind(fifo) == S_IFIFO)
        #expect(try FileSystem.listDirectory(dir.path) == ["out.png"], "no temporary file left behind")
        #expect(OutputRefusal(path: fifo, kind: "a FIFO").description == "\(fifo): not a regular file (a FIFO); left as it is")
    }

    @Test func devicesDirectoriesAndDanglingLinksAreRefused() throws {
        let dir = TemporaryDirectory("output-file-tests")
        #expect(throws: OutputRefusal(path: "/dev/null", kind: "a character device")) { try OutputFile.check("/dev/null") }
        #expect(throws: OutputRefusal(path: dir.path, kind: "a directory")) { try OutputFile.write(dir.path, [1]) }
        let dangling = dir.path + "/dangling"
        #expect(symlink(dir.path + "/nowhere", dangling) == 0)
        #expect(throws: OutputRefusal(path: dangling, kind: "a symlink to nothing")) { try OutputFile.write(dangling, [1]) }
        let toDevice = dir.path + "/null"
        #expect(symlink("/dev/null", toDevice) == 0)
        #expect(throws: OutputRefusal(path: toDevice, kind: "a character device")) { try OutputFile.write(toDevice, [1]) }
        #expect(kind(toDevice) == S_IFLNK)
    }

    @Test func aRegularFileIsReplacedKeepingItsModeAndALinkStays() throws {
        let dir = TemporaryDirectory("output-file-tests")
        let path = dir.path + "/metrics.prom"
        try OutputFile.write(path, Array("first\n".utf8))
        #expect(chmod(path, 0o600) == 0)
        try OutputFile.write(path, Array("second\n".utf8))
        #expect(try FileSystem.readText(path) == "second\n")
        var st = stat()
        #expect(stat(path, &st) == 0 && st.st_mode & 0o777 == 0o600)
        let link = dir.path + "/link.prom"
        #expect(symlink(path, link) == 0)
        try OutputFile.write(link, Array("third\n".utf8))
        #expect(kind(link) == S_IFLNK)
        #expect(try FileSystem.readText(path) == "third\n")
        #expect(try FileSystem.listDirectory(dir.path) == ["link.prom", "metrics.prom"])
    }

    @Test func aMissingFolderIsASystemErrorNamingTheFile() throws {
        do {
            try OutputFile.write("/nonexistent-folder/shot.png", [1])
            Issue.record("wrote into a folder that does not exist")
        } catch let error as SystemError {
            #expect(error.errno == ENOENT)
            #expect(error.context.hasPrefix("/nonexistent-folder/shot.png"))
        }
    }
}
