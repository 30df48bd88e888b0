// Virtual-terminal ioctls (linux/vt.h, linux/kd.h) and SIGRTMIN for taking part in VT
// switching, wrapped because Swift cannot import the ioctl request macros, and SIGRTMIN is a
// glibc function call behind a macro.
#ifndef CLINUX_VT_H
#define CLINUX_VT_H

#include <linux/kd.h>
#include <linux/major.h>
#include <linux/vt.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/sysmacros.h>
#include <sys/types.h>

/// VT switching modes (struct vt_mode.mode) and VT_RELDISP's acquire acknowledgement.
static const int CLinux_VT_AUTO = VT_AUTO;
static const int CLinux_VT_PROCESS = VT_PROCESS;
static const int CLinux_VT_ACKACQ = VT_ACKACQ;

/// Console display modes for KDSETMODE/KDGETMODE.
static const int CLinux_KD_TEXT = KD_TEXT;
static const int CLinux_KD_GRAPHICS = KD_GRAPHICS;

/// Keyboard modes for KDSKBMODE/KDGKBMODE: K_OFF drops every key on the VT (no VT switch by
/// keys, no Ctrl-Alt-Del through the keymap, nothing queued), as X and Weston set it.
static const int CLinux_K_RAW = K_RAW;
static const int CLinux_K_XLATE = K_XLATE;
static const int CLinux_K_MEDIUMRAW = K_MEDIUMRAW;
static const int CLinux_K_UNICODE = K_UNICODE;
static const int CLinux_K_OFF = K_OFF;

/// Character-device major of the virtual consoles (/dev/ttyN); minors 1..63 are the VTs.
static const unsigned CLinux_TTY_MAJOR = TTY_MAJOR;
static const unsigned CLinux_MAX_NR_CONSOLES = MAX_NR_CONSOLES;

/// The first real-time signal glibc leaves to programs (a function call, not a constant).
static inline int CLinux_sigrtmin(void) { return SIGRTMIN; }
/// The last real-time signal.
static inline int CLinux_sigrtmax(void) { return SIGRTMAX; }

static inline unsigned CLinux_dev_major(dev_t dev) { return major(dev); }
static inline unsigned CLinux_dev_minor(dev_t dev) { return minor(dev); }
static inline dev_t CLinux_dev_make(unsigned major, unsigned minor) { return makedev(major, minor); }

/// KDGETMODE: the console's display mode into `mode`; 0 or -1 with errno set.
static inline int CLinux_kd_get_mode(int fd, int *mode) { return ioctl(fd, KDGETMODE, mode); }

/// KDSETMODE: KD_TEXT or KD_GRAPHICS.
static inline int CLinux_kd_set_mode(int fd, int mode) { return ioctl(fd, KDSETMODE, (unsigned long)mode); }

/// KDGKBMODE / KDSKBMODE: the VT's keyboard mode.
static inline int CLinux_kb_get_mode(int fd, int *mode) { return ioctl(fd, KDGKBMODE, mode); }
static inline int CLinux_kb_set_mode(int fd, int mode) { return ioctl(fd, KDSKBMODE, (unsigned long)mode); }

/// TIOCSCTTY: makes the tty behind `fd` the caller's controlling terminal again (the caller leads
/// its session; a hangup took the terminal away). The VT ioctls that change modes need it.
static inline int CLinux_tty_take_controlling(int fd) { return ioctl(fd, TIOCSCTTY, 0); }

/// VT_GETMODE / VT_SETMODE on the VT behind `fd`.
static inline int CLinux_vt_get_mode(int fd, struct vt_mode *mode) { return ioctl(fd, VT_GETMODE, mode); }
static inline int CLinux_vt_set_mode(int fd, const struct vt_mode *mode) { return ioctl(fd, VT_SETMODE, mode); }

/// VT_GETSTATE: the active VT's number (1-based) into `active`.
static inline int CLinux_vt_get_active(int fd, unsigned short *active) {
    struct vt_stat state;
    int r = ioctl(fd, VT_GETSTATE, &state);
    if (r == 0) *active = state.v_active;
    return r;
}

/// VT_RELDISP: 1 lets a requested switch away go ahead, VT_ACKACQ acknowledges a switch back.
static inline int CLinux_vt_release_display(int fd, int arg) { return ioctl(fd, VT_RELDISP, (unsigned long)arg); }

#endif
