// libdrm for Swift: the two libdrm headers plus small CDRM_-prefixed wrappers for what Swift
// cannot import or call directly (ioctl request macros, flag macros, C callbacks).
#ifndef CDRM_H
#define CDRM_H

#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <xf86drm.h>
#include <xf86drmMode.h>

// Flags and mode bits as plain constants (some are shift expressions Swift may not import).
static const uint32_t CDRM_PAGE_FLIP_EVENT = DRM_MODE_PAGE_FLIP_EVENT;
static const uint32_t CDRM_MODE_TYPE_PREFERRED = DRM_MODE_TYPE_PREFERRED;
static const uint32_t CDRM_MODE_FLAG_INTERLACE = DRM_MODE_FLAG_INTERLACE;
static const uint64_t CDRM_CAP_DUMB_BUFFER = DRM_CAP_DUMB_BUFFER;
static const uint32_t CDRM_OBJECT_CONNECTOR = DRM_MODE_OBJECT_CONNECTOR;

/// DRM_IOCTL_MODE_CREATE_DUMB: a CPU-mapped scanout buffer of width x height at bpp bits per
/// pixel. Returns 0 or -1 with errno set.
static inline int CDRM_create_dumb(int fd, uint32_t width, uint32_t height, uint32_t bpp,
                                   uint32_t *handle, uint32_t *pitch, uint64_t *size) {
    struct drm_mode_create_dumb req;
    memset(&req, 0, sizeof req);
    req.width = width;
    req.height = height;
    req.bpp = bpp;
    if (drmIoctl(fd, DRM_IOCTL_MODE_CREATE_DUMB, &req) != 0) return -1;
    *handle = req.handle;
    *pitch = req.pitch;
    *size = req.size;
    return 0;
}

/// DRM_IOCTL_MODE_MAP_DUMB: the offset to pass to mmap() on the card's fd.
static inline int CDRM_map_dumb(int fd, uint32_t handle, uint64_t *offset) {
    struct drm_mode_map_dumb req;
    memset(&req, 0, sizeof req);
    req.handle = handle;
    if (drmIoctl(fd, DRM_IOCTL_MODE_MAP_DUMB, &req) != 0) return -1;
    *offset = req.offset;
    return 0;
}

/// DRM_IOCTL_MODE_DESTROY_DUMB.
static inline int CDRM_destroy_dumb(int fd, uint32_t handle) {
    struct drm_mode_destroy_dumb req;
    memset(&req, 0, sizeof req);
    req.handle = handle;
    return drmIoctl(fd, DRM_IOCTL_MODE_DESTROY_DUMB, &req);
}

/// Where a page-flip completion lands: the handler below fills it, Swift reads and clears
/// `done`. The timestamp is the kernel's (CLOCK_MONOTONIC on every current driver).
typedef struct CDRM_flip_result {
    int done;
    uint32_t sequence;
    uint64_t tv_sec;
    uint32_t tv_usec;
} CDRM_flip_result;

static void CDRM_on_page_flip(int fd, unsigned int sequence, unsigned int tv_sec,
                              unsigned int tv_usec, void *user_data) {
    (void)fd;
    CDRM_flip_result *result = (CDRM_flip_result *)user_data;
    if (!result) return;
    result->done = 1;
    result->sequence = sequence;
    result->tv_sec = tv_sec;
    result->tv_usec = tv_usec;
}

/// drmModePageFlip with DRM_MODE_PAGE_FLIP_EVENT; the event's user data is `result`, which
/// must stay valid until the event has been handled.
static inline int CDRM_page_flip(int fd, uint32_t crtc_id, uint32_t fb_id, CDRM_flip_result *result) {
    return drmModePageFlip(fd, crtc_id, fb_id, DRM_MODE_PAGE_FLIP_EVENT, result);
}

/// Reads pending events from the card's fd and dispatches page flips to CDRM_on_page_flip,
/// so Swift needs no closure that C calls back. Returns drmHandleEvent's result.
static inline int CDRM_handle_events(int fd) {
    drmEventContext context;
    memset(&context, 0, sizeof context);
    context.version = 2;
    context.page_flip_handler = CDRM_on_page_flip;
    return drmHandleEvent(fd, &context);
}

#endif
