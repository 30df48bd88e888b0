/*
 * Selftest scaffolding for the VM harness (not kiosk code).
 *
 * Opens /dev/dri/card0, picks the first connected connector and its preferred mode,
 * shows an all-green dumb buffer with drmModeSetCrtc, asks the host for a screendump
 * ("before-flip"), then page-flips between two buffers with DRM_MODE_PAGE_FLIP_EVENT and
 * waits for each event with poll + drmHandleEvent. The last flip leaves buffer A on
 * screen: left half red (0xFF0000), right half blue (0x0000FF). It then prints
 * "SELFTEST-DRM ok WxH" and keeps the CRTC until killed or HOLD seconds pass.
 *
 * usage: drmcheck [HOLD-SECONDS]
 * build: gcc -O2 -o drmcheck drmcheck.c $(pkg-config --cflags --libs libdrm)
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#include <xf86drm.h>
#include <xf86drmMode.h>

struct buffer {
    uint32_t handle, pitch, fb_id;
    uint64_t size;
    uint32_t *pixels;
};

static int fail(const char *what) {
    printf("SELFTEST-DRM fail %s: %s\n", what, strerror(errno));
    return 1;
}

static double now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int create_buffer(int fd, uint32_t w, uint32_t h, struct buffer *b) {
    struct drm_mode_create_dumb create = { .width = w, .height = h, .bpp = 32 };
    struct drm_mode_map_dumb map = { 0 };
    if (drmIoctl(fd, DRM_IOCTL_MODE_CREATE_DUMB, &create) < 0) return -1;
    b->handle = create.handle;
    b->pitch = create.pitch;
    b->size = create.size;
    if (drmModeAddFB(fd, w, h, 24, 32, b->pitch, b->handle, &b->fb_id) < 0) return -1;
    map.handle = b->handle;
    if (drmIoctl(fd, DRM_IOCTL_MODE_MAP_DUMB, &map) < 0) return -1;
    b->pixels = mmap(NULL, b->size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, map.offset);
    return b->pixels == MAP_FAILED ? -1 : 0;
}

/* Fills the buffer: 'left' colour for x < split, 'right' colour for the rest (XRGB8888). */
static void fill(struct buffer *b, uint32_t w, uint32_t h, uint32_t split, uint32_t left, uint32_t right) {
    for (uint32_t y = 0; y < h; y++) {
        uint32_t *row = (uint32_t *)((uint8_t *)b->pixels + (size_t)y * b->pitch);
        for (uint32_t x = 0; x < w; x++) row[x] = x < split ? left : right;
    }
}

static void on_flip(int fd, unsigned int seq, unsigned int sec, unsigned int usec, void *data) {
    (void)fd; (void)seq; (void)sec; (void)usec;
    *(int *)data = 1;
}

int main(int argc, char **argv) {
    int hold = argc > 1 ? atoi(argv[1]) : 60;
    int fd = open("/dev/dri/card0", O_RDWR | O_CLOEXEC);
    if (fd < 0) return fail("open /dev/dri/card0");

    uint64_t cap = 0;
    drmGetCap(fd, DRM_CAP_DUMB_BUFFER, &cap);
    printf("SELFTEST-DRM cap dumb=%llu", (unsigned long long)cap);
    drmGetCap(fd, DRM_CAP_DUMB_PREFERRED_DEPTH, &cap);
    printf(" preferred_depth=%llu", (unsigned long long)cap);
    drmGetCap(fd, DRM_CAP_DUMB_PREFER_SHADOW, &cap);
    printf(" prefer_shadow=%llu", (unsigned long long)cap);
    cap = 0;
    drmGetCap(fd, DRM_CAP_ASYNC_PAGE_FLIP, &cap);
    printf(" async_flip=%llu\n", (unsigned long long)cap);

    /* Facts for the kiosk's backend: atomic modesetting, planes and their formats. */
    int atomic = drmSetClientCap(fd, DRM_CLIENT_CAP_ATOMIC, 1) == 0; /* implies universal planes */
    drmModePlaneRes *planes = drmModeGetPlaneResources(fd);
    printf("SELFTEST-DRM atomic=%d planes=%u", atomic, planes ? planes->count_planes : 0);
    for (uint32_t i = 0; planes && i < planes->count_planes; i++) {
        drmModePlane *p = drmModeGetPlane(fd, planes->planes[i]);
        printf(" plane%u:", i);
        for (uint32_t f = 0; p && f < p->count_formats; f++)
            printf("%s%.4s", f ? "," : "", (char *)&p->formats[f]);
        drmModeFreePlane(p);
    }
    printf("\n");
    drmSetClientCap(fd, DRM_CLIENT_CAP_ATOMIC, 0);

    drmModeRes *res = drmModeGetResources(fd);
    if (!res) return fail("drmModeGetResources");
    drmModeConnector *conn = NULL;
    for (int i = 0; i < res->count_connectors && !conn; i++) {
        drmModeConnector *c = drmModeGetConnector(fd, res->connectors[i]);
        if (c && c->connection == DRM_MODE_CONNECTED && c->count_modes > 0) conn = c;
        else drmModeFreeConnector(c);
    }
    if (!conn) { errno = ENODEV; return fail("no connected connector"); }

    drmModeModeInfo *mode = &conn->modes[0];
    for (int i = 0; i < conn->count_modes; i++)
        if (conn->modes[i].type & DRM_MODE_TYPE_PREFERRED) { mode = &conn->modes[i]; break; }
    printf("SELFTEST-DRM connector id=%u type=%s mm=%ux%u modes=%d preferred=%s@%u\n",
           conn->connector_id, drmModeGetConnectorTypeName(conn->connector_type),
           conn->mmWidth, conn->mmHeight, conn->count_modes, mode->name, mode->vrefresh);

    /* A CRTC this connector can drive: its current encoder's, or the first possible one. */
    uint32_t crtc_id = 0;
    for (int i = 0; i < conn->count_encoders && !crtc_id; i++) {
        drmModeEncoder *enc = drmModeGetEncoder(fd, conn->encoders[i]);
        if (!enc) continue;
        if (enc->crtc_id) crtc_id = enc->crtc_id;
        for (int j = 0; j < res->count_crtcs && !crtc_id; j++)
            if (enc->possible_crtcs & (1u << j)) crtc_id = res->crtcs[j];
        drmModeFreeEncoder(enc);
    }
    if (!crtc_id) { errno = ENODEV; return fail("no CRTC"); }

    uint32_t w = mode->hdisplay, h = mode->vdisplay;
    struct buffer a, b;
    if (create_buffer(fd, w, h, &a) < 0 || create_buffer(fd, w, h, &b) < 0) return fail("dumb buffer");
    fill(&a, w, h, w / 2, 0xFF0000, 0x0000FF);
    fill(&b, w, h, w, 0x00FF00, 0x00FF00);

    if (drmModeSetCrtc(fd, crtc_id, b.fb_id, 0, 0, &conn->connector_id, 1, mode) < 0)
        return fail("drmModeSetCrtc");
    printf("SELFTEST-DRM setcrtc ok crtc=%u pitch=%u\n", crtc_id, b.pitch);
    fflush(stdout);
    system("vm-screendump before-flip");

    drmVBlank vbl = { .request = { .type = DRM_VBLANK_RELATIVE, .sequence = 1 } };
    printf("SELFTEST-DRM wait_vblank=%s\n", drmWaitVBlank(fd, &vbl) == 0 ? "ok" : strerror(errno));

    /* A second flip while one is pending: refused (EBUSY) or queued? */
    drmEventContext ev = { .version = 2, .page_flip_handler = on_flip };
    int first = 0, second = 0;
    int r1 = drmModePageFlip(fd, crtc_id, a.fb_id, DRM_MODE_PAGE_FLIP_EVENT, &first);
    int r2 = drmModePageFlip(fd, crtc_id, b.fb_id, DRM_MODE_PAGE_FLIP_EVENT, &second);
    printf("SELFTEST-FLIP back-to-back: first=%s second=%s\n", r1 ? strerror(errno) : "ok",
           r2 ? strerror(errno) : "ok");
    struct pollfd pfd = { .fd = fd, .events = POLLIN };
    while ((!first || (!r2 && !second)) && poll(&pfd, 1, 1000) > 0) drmHandleEvent(fd, &ev);

    /* Flips A, B, A, ... ending on A; each waits for its event (1 s at most). */
    int flips = 31, events = 0;
    double t0 = now_ms();
    for (int i = 0; i < flips; i++) {
        int done = 0;
        struct buffer *next = i % 2 == 0 ? &a : &b;
        if (drmModePageFlip(fd, crtc_id, next->fb_id, DRM_MODE_PAGE_FLIP_EVENT, &done) < 0) {
            printf("SELFTEST-FLIP flip %d refused: %s\n", i, strerror(errno));
            drmModeSetCrtc(fd, crtc_id, a.fb_id, 0, 0, &conn->connector_id, 1, mode);
            break;
        }
        while (!done && poll(&pfd, 1, 1000) > 0) drmHandleEvent(fd, &ev);
        if (!done) { printf("SELFTEST-FLIP flip %d: no event within 1 s\n", i); break; }
        events++;
    }
    double took = now_ms() - t0;
    printf("SELFTEST-FLIP events=%d/%d total_ms=%.1f per_flip_ms=%.2f\n",
           events, flips, took, events ? took / events : 0.0);

    drmModeCrtc *crtc = drmModeGetCrtc(fd, crtc_id);
    printf("SELFTEST-DRM ok %ux%u fb_on_screen=%s\n", w, h,
           crtc && crtc->buffer_id == a.fb_id ? "A" : "other");
    fflush(stdout);
    sleep(hold);
    return 0;
}
