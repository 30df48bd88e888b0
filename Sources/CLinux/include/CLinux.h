// Linux interfaces Swift's Glibc module does not import (timerfd, signalfd, inotify, wmemset,
// gettext), wrapped
// in small functions whose names say where they come from.
#ifndef CLINUX_H
#define CLINUX_H

#include <signal.h>
#include <errno.h>
#include <libintl.h>
#include <locale.h>
#include <spawn.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <sys/eventfd.h>
#include <sys/prctl.h>
#include <sys/inotify.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>
#include <wchar.h>

#include "CLinuxFB.h"
#include "CLinuxVT.h"
#include "CLinuxCEC.h"

/// Sets `count` 32-bit words to `value` with glibc's wmemset (wchar_t is 32 bits on Linux).
static inline void CLinux_fill32(uint32_t *words, uint32_t value, size_t count) {
    wmemset((wchar_t *)words, (wchar_t)value, count);
}

/// A non-blocking, close-on-exec CLOCK_MONOTONIC timerfd.
static inline int CLinux_timerfd_create(void) {
    return timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
}

/// Arms the timer once at an absolute CLOCK_MONOTONIC time in microseconds (0 disarms it).
static inline int CLinux_timerfd_arm_at(int fd, int64_t monotonic_us) {
    struct itimerspec spec = {0};
    if (monotonic_us > 0) {
        spec.it_value.tv_sec = monotonic_us / 1000000;
        spec.it_value.tv_nsec = (monotonic_us % 1000000) * 1000;
    }
    return timerfd_settime(fd, TFD_TIMER_ABSTIME, &spec, NULL);
}

/// Blocks `signals` for normal delivery and makes `fd` (or a new signalfd when `fd` is -1) read
/// exactly them, so signals arrive as ordinary events in the poll loop. Returns the descriptor,
/// or -1 with errno set.
static inline int CLinux_signalfd_set(int fd, const int *signals, int count) {
    sigset_t mask;
    sigemptyset(&mask);
    for (int i = 0; i < count; i++) sigaddset(&mask, signals[i]);
    if (sigprocmask(SIG_BLOCK, &mask, NULL) != 0) return -1;
    return signalfd(fd, &mask, SFD_NONBLOCK | SFD_CLOEXEC);
}

/// Ignores SIGPIPE: a closed pipe on standard output (`run --status | head -1`) then fails the
/// write with EPIPE instead of killing the kiosk with its display unrestored.
static inline int CLinux_ignore_sigpipe(void) { return signal(SIGPIPE, SIG_IGN) == SIG_ERR ? -1 : 0; }

/// Reads one pending signal number from a signalfd, or -1 with errno set (EAGAIN: none
/// pending; EIO for a short read, which a signalfd never gives).
static inline int CLinux_signalfd_read(int fd) {
    struct signalfd_siginfo info;
    ssize_t n = read(fd, &info, sizeof info);
    if (n == (ssize_t)sizeof info) return (int)info.ssi_signo;
    if (n >= 0) errno = EIO;
    return -1;
}

/// Monotonic time in microseconds.
static inline int64_t CLinux_monotonic_us(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

/// A non-blocking, close-on-exec eventfd: how worker threads wake the poll loop.
static inline int CLinux_eventfd_create(void) { return eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC); }

/// Names the calling thread (15 characters at most), for `top -H` and crash reports.
static inline int CLinux_set_thread_name(const char *name) { return prctl(PR_SET_NAME, name, 0, 0, 0); }

/// A non-blocking, close-on-exec inotify descriptor.
static inline int CLinux_inotify_init(void) { return inotify_init1(IN_NONBLOCK | IN_CLOEXEC); }

static const uint32_t CLinux_IN_CREATE = IN_CREATE;
static const uint32_t CLinux_IN_DELETE = IN_DELETE;
static const uint32_t CLinux_IN_ATTRIB = IN_ATTRIB;
static const uint32_t CLinux_IN_MOVED_TO = IN_MOVED_TO;
static const uint32_t CLinux_IN_CLOSE_WRITE = IN_CLOSE_WRITE;
static const uint32_t CLinux_IN_MOVED_FROM = IN_MOVED_FROM;
static const uint32_t CLinux_IN_DELETE_SELF = IN_DELETE_SELF;
static const uint32_t CLinux_IN_IGNORED = IN_IGNORED;
static const uint32_t CLinux_IN_Q_OVERFLOW = IN_Q_OVERFLOW;
static const uint32_t CLinux_IN_ONLYDIR = IN_ONLYDIR;

// Hooks: child processes started with posix_spawn, in a process group of their own, with
// the signal mask and dispositions of a fresh process, and no descriptor of the kiosk's.

static const short CLinux_POSIX_SPAWN_SETPGROUP = POSIX_SPAWN_SETPGROUP;
static const short CLinux_POSIX_SPAWN_SETSIGMASK = POSIX_SPAWN_SETSIGMASK;
static const short CLinux_POSIX_SPAWN_SETSIGDEF = POSIX_SPAWN_SETSIGDEF;

/// The process's environment (`environ`, which Swift does not import as a safe global).
static inline char *const *CLinux_environ(void) {
    extern char **environ;
    return environ;
}

/// Closes every descriptor from `from` up in the child (glibc 2.34 and later), so a hook
/// inherits nothing of the kiosk's (the DRM card, input devices) even if one lacks CLOEXEC.
/// (Defined in CLinux.c, which asks for the GNU declarations.)
int CLinux_spawn_closefrom(posix_spawn_file_actions_t *actions, int from);

/// A close-on-exec pipe (pipe2 with O_CLOEXEC); defined in CLinux.c.
int CLinux_pipe_cloexec(int fds[2]);

/// A descriptor that becomes readable when process `pid` exits (Linux 5.3), or -1 with errno.
static inline int CLinux_pidfd_open(pid_t pid) {
#ifdef SYS_pidfd_open
    return (int)syscall(SYS_pidfd_open, pid, 0);
#else
    errno = ENOSYS;
    return -1;
#endif
}

/// Empties `set` and fills it with every signal (for POSIX_SPAWN_SETSIGMASK/SETSIGDEF);
/// 0 or -1 with errno set.
static inline int CLinux_sigset_empty(sigset_t *set) { return sigemptyset(set); }
static inline int CLinux_sigset_fill(sigset_t *set) { return sigfillset(set); }

/// Decoding a waitpid status (macros Swift cannot import).
static inline int CLinux_wifexited(int status) { return WIFEXITED(status); }
static inline int CLinux_wexitstatus(int status) { return WEXITSTATUS(status); }
static inline int CLinux_wifsignaled(int status) { return WIFSIGNALED(status); }
static inline int CLinux_wtermsig(int status) { return WTERMSIG(status); }

#endif
