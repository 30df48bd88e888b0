/*
 * Selftest scaffolding for the VM harness: a tiny evtest. Reads one evdev node and
 * prints what arrives, one event per line, so the host can assert on the serial log.
 *
 * usage: evread DEVICE [SECONDS] [FRAMES]
 *   stops after FRAMES SYN_REPORTs (default 0: no limit), SECONDS without input
 *   (default 10), or a read error such as ENODEV when the device is unplugged.
 * output: "EVREAD open NAME direct=0|1 x=MIN..MAX", "EVREAD ev TYPE CODE VALUE",
 *         "EVREAD done|timeout frames=N" or "EVREAD error ERRNO-NAME frames=N".
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/input.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

static const char *code_name(int type, int code) {
    switch (type << 16 | code) {
    case EV_SYN << 16 | SYN_REPORT: return "SYN_REPORT";
    case EV_KEY << 16 | BTN_TOUCH: return "BTN_TOUCH";
    case EV_ABS << 16 | ABS_X: return "ABS_X";
    case EV_ABS << 16 | ABS_Y: return "ABS_Y";
    case EV_ABS << 16 | ABS_MT_SLOT: return "ABS_MT_SLOT";
    case EV_ABS << 16 | ABS_MT_TRACKING_ID: return "ABS_MT_TRACKING_ID";
    case EV_ABS << 16 | ABS_MT_POSITION_X: return "ABS_MT_POSITION_X";
    case EV_ABS << 16 | ABS_MT_POSITION_Y: return "ABS_MT_POSITION_Y";
    }
    return "?";
}

int main(int argc, char **argv) {
    if (argc < 2) { fprintf(stderr, "usage: evread DEVICE [SECONDS] [FRAMES]\n"); return 2; }
    int seconds = argc > 2 ? atoi(argv[2]) : 10, frames_wanted = argc > 3 ? atoi(argv[3]) : 0;
    int fd = open(argv[1], O_RDONLY);
    if (fd < 0) { printf("EVREAD error open %s: %s\n", argv[1], strerror(errno)); return 1; }

    char name[128] = "";
    unsigned char props[INPUT_PROP_CNT / 8] = { 0 };
    struct input_absinfo ax = { 0 };
    ioctl(fd, EVIOCGNAME(sizeof name), name);
    ioctl(fd, EVIOCGPROP(sizeof props), props);
    ioctl(fd, EVIOCGABS(ABS_MT_POSITION_X), &ax);
    printf("EVREAD open %s name=\"%s\" direct=%d x=%d..%d\n", argv[1], name,
           (props[INPUT_PROP_DIRECT / 8] >> (INPUT_PROP_DIRECT % 8)) & 1, ax.minimum, ax.maximum);
    fflush(stdout);

    int frames = 0;
    struct pollfd pfd = { .fd = fd, .events = POLLIN };
    for (;;) {
        int ready = poll(&pfd, 1, seconds * 1000);
        if (ready == 0) { printf("EVREAD timeout frames=%d\n", frames); return 0; }
        struct input_event ev[16];
        ssize_t n = read(fd, ev, sizeof ev);
        if (n <= 0) {
            printf("EVREAD error %s (%s) frames=%d\n", errno == ENODEV ? "ENODEV" : "other",
                   strerror(errno), frames);
            return 3;
        }
        for (size_t i = 0; i < (size_t)n / sizeof ev[0]; i++) {
            printf("EVREAD ev %d %s %d\n", ev[i].type, code_name(ev[i].type, ev[i].code), ev[i].value);
            if (ev[i].type == EV_SYN && ev[i].code == SYN_REPORT) frames++;
        }
        fflush(stdout);
        if (frames_wanted && frames >= frames_wanted) { printf("EVREAD done frames=%d\n", frames); return 0; }
    }
}
