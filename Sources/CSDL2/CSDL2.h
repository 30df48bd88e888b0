// SDL2 for the desktop window (bubble-kiosk-desktop only; the kiosk binary never links it).
#include <SDL.h>
// SDL_syswm.h declares the X11 members only when told the X11 driver is there; Xlib's headers
// come with libsdl2-dev (libx11-dev). Nothing from libX11 is called: ConnectionNumber is a field.
#ifndef SDL_VIDEO_DRIVER_X11
#define SDL_VIDEO_DRIVER_X11 1
#endif
#include <SDL_syswm.h>

/// The X11 connection's descriptor for a window on the X11 driver, -1 on any other (Wayland).
/// Readable when the X server sent something: the kiosk's poll loop wakes on it instead of a timer.
static inline int CSDL2_x11_connection_fd(SDL_Window *window) {
    SDL_SysWMinfo info;
    SDL_VERSION(&info.version);
    if (!SDL_GetWindowWMInfo(window, &info) || info.subsystem != SDL_SYSWM_X11) return -1;
    return ConnectionNumber(info.info.x11.display);
}

/// The event's type (the union's first member), and the members Swift reads.
static inline Uint32 CSDL2_event_type(const SDL_Event *e) { return e->type; }

#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

/// One descriptor for the kiosk's poll loop that stands for several (the X11 connection, a
/// wake-up eventfd, a fallback timerfd): an epoll set, readable while any member is.
static inline int CSDL2_epoll_create(void) { return epoll_create1(EPOLL_CLOEXEC); }
static inline int CSDL2_epoll_add(int ep, int fd) {
    struct epoll_event ev = { .events = EPOLLIN };
    ev.data.fd = fd;
    return epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev);
}
static inline int CSDL2_eventfd_create(void) { return eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC); }
/// Adds one to an eventfd's counter: 0, or -1 with errno set.
static inline int CSDL2_eventfd_signal(int fd) { uint64_t one = 1; return write(fd, &one, sizeof one) == sizeof one ? 0 : -1; }
/// Reads an eventfd's or timerfd's counter so it stops being readable: 0, or -1 with errno
/// set (EAGAIN when it was not readable).
static inline int CSDL2_counter_drain(int fd) { uint64_t n; return read(fd, &n, sizeof n) == sizeof n ? 0 : -1; }
static inline int CSDL2_timerfd_create(void) { return timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC); }
/// Fires every `period_ms` from now on.
static inline int CSDL2_timerfd_every(int fd, long period_ms) {
    struct itimerspec spec = { { period_ms / 1000, (period_ms % 1000) * 1000000L }, { period_ms / 1000, (period_ms % 1000) * 1000000L } };
    return timerfd_settime(fd, 0, &spec, NULL);
}
