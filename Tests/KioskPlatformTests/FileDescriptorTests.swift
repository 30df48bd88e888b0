import Glibc
import KioskPlatform
import Testing

/// The descriptor owner closes exactly once: on deinit, or on an explicit `close()`.
/// Each test moves /dev/null to a number of its own far above what parallel tests get (the
/// kernel hands out the lowest free number), so no other test can reuse it in between.
@Suite struct FileDescriptorTests {
    /// /dev/null as descriptor `number`, owned by the caller.
    private func devNull(at number: Int32) throws -> FileDescriptor {
        let null = try FileDescriptor.open("/dev/null", O_RDONLY | O_CLOEXEC)
        // The lowest free number from `number` on: `number` itself unless a test leaked it.
        let moved = try retryingInterrupts("fcntl(F_DUPFD_CLOEXEC)", "/dev/null") {
            fcntl(null.rawValue, F_DUPFD_CLOEXEC, number)
        }
        #expect(moved == number)
        return FileDescriptor(adopting: moved)
    }

    private func isOpen(_ number: Int32) -> Bool { fcntl(number, F_GETFD) != -1 }

    @Test func droppingTheOwnerClosesIt() throws {
        do {
            let owner = try devNull(at: 901)
            #expect(isOpen(owner.rawValue))
        }
        #expect(fcntl(901, F_GETFD) == -1 && errno == EBADF)
    }

    @Test func closeClosesAtOnce() throws {
        let owner = try devNull(at: 902)
        try owner.close()
        #expect(fcntl(902, F_GETFD) == -1 && errno == EBADF)
    }

    @Test func aFailedCloseNamesTheCallAndErrno() throws {
        #expect(!isOpen(903))
        let notOpen = FileDescriptor(adopting: 903)
        do {
            try notOpen.close()
            Issue.record("closing a descriptor that is not open succeeded")
        } catch let error as SystemError {
            #expect(error.call == "close" && error.errno == EBADF)
        }
    }

    @Test func releaseHandsItOverOpen() throws {
        let owner = try devNull(at: 904)
        let number = owner.release()
        #expect(isOpen(number))
        #expect(close(number) == 0)
    }

    @Test func openRegularFileGivesABlockingDescriptor() throws {
        let file = try FileSystem.openRegularFile("/etc/passwd")
        let flags = fcntl(file.rawValue, F_GETFL)
        #expect(flags != -1 && flags & O_NONBLOCK == 0)
    }
}
