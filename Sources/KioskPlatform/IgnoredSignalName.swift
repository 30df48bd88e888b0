#if canImport(Glibc)
import Glibc
#endif
internal import CLinux

/// Names of `EventLoop.ignoredSignals` for the line that logs one (`sigabbrev_np` is glibc 2.32+).
enum IgnoredSignalName {
    static func of(_ signo: Int32) -> String {
        switch signo {
        case SIGUSR2: return "SIGUSR2"
        case SIGALRM: return "SIGALRM"
        case SIGVTALRM: return "SIGVTALRM"
        case SIGXCPU: return "SIGXCPU"
        case SIGPWR: return "SIGPWR"
        case SIGIO: return "SIGIO"
        case SIGPROF: return "SIGPROF"
        case SIGXFSZ: return "SIGXFSZ"
        case SIGSTKFLT: return "SIGSTKFLT"
        case SIGSYS: return "SIGSYS"
        case SIGTRAP: return "SIGTRAP"
        case CLinux_sigrtmin()...CLinux_sigrtmax(): return signo == CLinux_sigrtmin() ? "SIGRTMIN" : "SIGRTMIN+\(signo - CLinux_sigrtmin())"
        default: return "signal \(signo)"
        }
    }
}
