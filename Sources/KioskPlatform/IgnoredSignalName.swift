#if canImport(Glibc)
import Glibc
#endif

/// Names of `EventLoop.ignoredSignals` for the line that logs one (`sigabbrev_np` is glibc 2.32+).
enum IgnoredSignalName {
    static func of(_ signo: Int32) -> String {
        switch signo {
        case SIGUSR2: return "SIGUSR2"
        case SIGALRM: return "SIGALRM"
        case SIGVTALRM: return "SIGVTALRM"
        case SIGXCPU: return "SIGXCPU"
        case SIGPWR: return "SIGPWR"
        default: return "signal \(signo)"
        }
    }
}
