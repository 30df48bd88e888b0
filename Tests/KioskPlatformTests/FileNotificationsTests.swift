import Glibc
import KioskCore
@testable import KioskPlatform
import KioskTestSupport
import Testing

/// `FileNotifications` (inotify on the loop) and `InstalledProgram`: what the touchscreens'
/// hotplug and the kiosk's own upgrade watch through.
@Suite struct FileNotificationsTests {
    @Test func aFileRenamedIntoAWatchedFolderIsOneNoticeWithItsName() throws {
        let dir = TemporaryDirectory("file-notifications")
        let loop = try EventLoop(signals: [])
        var seen: [FileNotifications.Notice] = []
        let notifications = try FileNotifications(dir.path, loop: loop, log: .discard) { seen += $0 }
        let watch = try notifications.add(dir.path, for: [.movedIn, .closedAfterWrite, .onlyDirectory])
        writeFile(dir.path + "/program.new", "2")
        #expect(rename(dir.path + "/program.new", dir.path + "/program") == 0)
        #expect(try loop.eventually(within: .seconds(5)) { seen.contains { $0.name == "program" } })
        // Written and closed (the new file, under its first name), then renamed into place.
        #expect(seen == [FileNotifications.Notice(watch: watch, events: .closedAfterWrite, name: "program.new"),
                         FileNotifications.Notice(watch: watch, events: .movedIn, name: "program")])
        // A removed watch says so and tells nothing about later files: the kernel queues a
        // notice when the call happens, so both would come in the same read.
        try notifications.remove(watch, path: dir.path)
        seen = []
        dir.touch("later")
        #expect(try loop.eventually(within: .seconds(5)) { !seen.isEmpty })
        #expect(seen == [FileNotifications.Notice(watch: watch, events: .watchGone, name: "")])
    }

    @Test func aDirectoryThatIsNotThereCannotBeWatched() throws {
        let loop = try EventLoop(signals: [])
        let notifications = try FileNotifications("nowhere", loop: loop, log: .discard) { _ in }
        #expect(throws: SystemError.self) { try notifications.add("/nonexistent-folder/x", for: [.created]) }
        #expect(loop.watchedCount == 1)
    }

    @Test func theKernelsRecordsAreReadWithTheirPaddedNamesAndOverflows() {
        // wd 3, IN_MOVED_TO, cookie 9, a name padded to 16 bytes; then an overflow (wd -1, no name).
        func bytes<T>(_ value: T) -> [UInt8] { withUnsafeBytes(of: value) { Array($0) } }
        func record(_ wd: Int32, _ mask: UInt32, _ name: String) -> [UInt8] {
            var padded = Array(name.utf8)
            if !padded.isEmpty { padded += [UInt8](repeating: 0, count: 16 - padded.count % 16) }
            var fields: [UInt8] = bytes(wd) + bytes(mask)
            fields += bytes(UInt32(9)) + bytes(UInt32(padded.count))
            return fields + padded
        }
        let bytes = record(3, FileNotifications.Events.movedIn.rawValue, "bubble-kiosk")
            + record(-1, FileNotifications.Events.overflow.rawValue, "")
        let notices = FileNotifications.parse(bytes[...])
        #expect(notices.map(\.name) == ["bubble-kiosk", ""])
        #expect(notices.map(\.events) == [.movedIn, .overflow])
        #expect(notices[0].watch != nil && notices[1].watch == nil)
        // A record cut short (a bad read) ends the list rather than reading past it.
        #expect(FileNotifications.parse(bytes[..<20]).isEmpty)
    }

    @Test func aProgramIsReplacedByANewFileNotByATouch() throws {
        let dir = TemporaryDirectory("installed-program")
        let path = dir.path + "/bubble-kiosk"
        writeFile(path, "1", mode: 0o755)
        let program = try #require(InstalledProgram(standingIn: path))
        #expect(program.directoryAndName == (dir.path, "bubble-kiosk"))
        #expect(!program.isReplaced)
        dir.touch("bubble-kiosk")
        #expect(!program.isReplaced)
        writeFile(path + ".new", "2", mode: 0o755)
        #expect(rename(path + ".new", path) == 0)
        #expect(program.isReplaced)
        // Gone altogether: nothing to restart into.
        #expect(unlink(path) == 0)
        #expect(!program.isReplaced)
        #expect(InstalledProgram(standingIn: path) == nil)
        #expect(InstalledProgram(path: "bubble-kiosk", running: program.running).directoryAndName == (".", "bubble-kiosk"))
        #expect(InstalledProgram(path: "/bubble-kiosk", running: program.running).directoryAndName == ("/", "bubble-kiosk"))
    }

    @Test func theRunningProgramIsTheFileTheProcessRuns() throws {
        let program = try #require(InstalledProgram.current())
        #expect(program.path.hasPrefix("/"))
        #expect(FileIdentity(program.path) == program.running)
        #expect(!program.isReplaced)
    }
}
