internal import CLinux
import Glibc
import KioskCore

/// Starting a hook's process: `posix_spawn` (never a shell) in a process group of its own,
/// with a fresh signal mask and dispositions, its JSON line on standard input, standard output
/// and error one pipe back to the kiosk, and no other descriptor of the kiosk's.
enum HookSpawn {
    /// Starts `path` with `words` as its arguments and `environment`, writes `input` to its
    /// standard input, and returns the run, its output pipe still to be watched. Throws when
    /// anything of the setup fails: a child without its close-all step would inherit the DRM
    /// card and the input devices, so it is then not started at all.
    static func start(_ event: HookEvent, path: String, words: [String], environment: [String], input line: [UInt8],
                      at now: TimeStamp, deadline: TimeStamp,
                      log: Logger) throws -> HookRun {
        let context = "hook \(event.rawValue)"
        var fds: [Int32] = [-1, -1]
        try retryingInterrupts("pipe2", "\(context) input") { CLinux_pipe_cloexec(&fds) }
        let inputRead = FileDescriptor(adopting: fds[0]), inputWrite = FileDescriptor(adopting: fds[1])
        try retryingInterrupts("pipe2", "\(context) output") { CLinux_pipe_cloexec(&fds) }
        let outputRead = FileDescriptor(adopting: fds[0]), outputWrite = FileDescriptor(adopting: fds[1])
        // Only the kiosk's ends are non-blocking: the child's are ordinary blocking pipes.
        try retryingInterrupts("fcntl(F_SETFL)", "\(context) input") {
            fcntl(inputWrite.rawValue, F_SETFL, O_WRONLY | O_NONBLOCK)
        }
        try retryingInterrupts("fcntl(F_SETFL)", "\(context) output") {
            fcntl(outputRead.rawValue, F_SETFL, O_RDONLY | O_NONBLOCK)
        }

        var actions = posix_spawn_file_actions_t()
        try checkErrorNumber("posix_spawn_file_actions_init", context, posix_spawn_file_actions_init(&actions))
        defer { posix_spawn_file_actions_destroy(&actions) }
        try checkErrorNumber("posix_spawn_file_actions_adddup2", context,
                             posix_spawn_file_actions_adddup2(&actions, inputRead.rawValue, 0))
        try checkErrorNumber("posix_spawn_file_actions_adddup2", context,
                             posix_spawn_file_actions_adddup2(&actions, outputWrite.rawValue, 1))
        try checkErrorNumber("posix_spawn_file_actions_adddup2", context,
                             posix_spawn_file_actions_adddup2(&actions, outputWrite.rawValue, 2))
        try checkErrorNumber("posix_spawn_file_actions_addclosefrom_np", context, CLinux_spawn_closefrom(&actions, 3))

        var attributes = posix_spawnattr_t()
        try checkErrorNumber("posix_spawnattr_init", context, posix_spawnattr_init(&attributes))
        defer { posix_spawnattr_destroy(&attributes) }
        let flags = CLinux_POSIX_SPAWN_SETPGROUP | CLinux_POSIX_SPAWN_SETSIGMASK | CLinux_POSIX_SPAWN_SETSIGDEF
        try checkErrorNumber("posix_spawnattr_setflags", context, posix_spawnattr_setflags(&attributes, flags))
        try checkErrorNumber("posix_spawnattr_setpgroup", context, posix_spawnattr_setpgroup(&attributes, 0))
        var none = sigset_t(), all = sigset_t()
        try retryingInterrupts("sigemptyset", context) { CLinux_sigset_empty(&none) }
        try retryingInterrupts("sigfillset", context) { CLinux_sigset_fill(&all) }
        try checkErrorNumber("posix_spawnattr_setsigmask", context, posix_spawnattr_setsigmask(&attributes, &none))
        try checkErrorNumber("posix_spawnattr_setsigdefault", context, posix_spawnattr_setsigdefault(&attributes, &all))

        let argv = words.map { strdup($0) } + [nil]
        let envp = environment.map { strdup($0) } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var pid: pid_t = 0
        let status = argv.withUnsafeBufferPointer { a in
            envp.withUnsafeBufferPointer { e in
                posix_spawn(&pid, path, &actions, &attributes, a.baseAddress!, e.baseAddress!)
            }
        }
        // The child has its copies now; closing a pipe end loses nothing, so failures do not matter.
        try? inputRead.close()
        try? outputWrite.close()
        try checkErrorNumber("posix_spawn", path, status)

        // The JSON line fits the pipe's buffer; a hook that never reads it loses nothing else.
        let written = line.withUnsafeBytes { buf in uninterrupted { write(inputWrite.rawValue, buf.baseAddress, buf.count) } }
        if written != line.count {
            // The hook runs anyway, with what arrived (EPIPE: it closed its standard input at once).
            let why = written < 0 ? String(cString: strerror(errno)) : "\(written) of \(line.count) bytes"
            log(.warning, "hook \(event.rawValue)[\(pid)]: writing its JSON line: \(why)")
        }
        try? inputWrite.close()
        return HookRun(event: event, pid: pid, started: now, deadline: deadline, output: outputRead)
    }

    /// A descriptor readable once `pid` exits, or nil where pidfds are missing (before Linux 5.3).
    static func pidfd(_ pid: pid_t) -> FileDescriptor? {
        let fd = CLinux_pidfd_open(pid)
        return fd >= 0 ? FileDescriptor(adopting: fd) : nil
    }
}
