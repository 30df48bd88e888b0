import Glibc
import KioskPlatform
import Testing

/// The shared helpers every system call goes through: one EINTR loop, errors with errno and
/// the call's name.
@Suite struct SystemCallTests {
    @Test func anErrorNumberResultThrowsWithTheCallsName() throws {
        try checkErrorNumber("posix_spawnattr_init", "hook pop", 0)
        do {
            try checkErrorNumber("posix_spawn_file_actions_addclosefrom_np", "hook pop", ENOMEM)
            Issue.record("a non-zero error number did not throw")
        } catch let error as SystemError {
            #expect(error.call == "posix_spawn_file_actions_addclosefrom_np" && error.errno == ENOMEM)
        }
    }

    @Test func anInterruptedCallIsRepeatedAndOtherFailuresAreNot() throws {
        var calls = 0
        let r = try retryingInterrupts("read", "test") { () -> Int in
            calls += 1
            if calls < 3 { errno = EINTR; return -1 }
            return 7
        }
        #expect(r == 7 && calls == 3)

        calls = 0
        let failed = uninterrupted { () -> Int32 in
            calls += 1
            errno = calls == 1 ? EINTR : EAGAIN
            return -1
        }
        #expect(failed == -1 && errno == EAGAIN && calls == 2)
    }

    /// libevdev's convention: a negative errno as the result.
    @Test func anotherConventionUsesTheSameLoop() {
        var results: [Int32] = [-EINTR, -EINTR, -EAGAIN]
        let r = retrying(whileInterrupted: { $0 == -EINTR }) { results.removeFirst() }
        #expect(r == -EAGAIN && results.isEmpty)
    }
}
