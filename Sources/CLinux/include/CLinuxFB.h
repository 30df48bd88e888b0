// fbdev and console ioctls for the framebuffer fallback display, wrapped in small functions
// because Swift cannot import the ioctl request macros.
#ifndef CLINUX_FB_H
#define CLINUX_FB_H

#include <linux/fb.h>
#include <linux/kd.h>
#include <stdint.h>
#include <string.h>
#include <sys/ioctl.h>

/// What the fallback display needs from FBIOGET_VSCREENINFO and FBIOGET_FSCREENINFO.
typedef struct CLinux_fb_info {
    uint32_t xres, yres;
    uint32_t xoffset, yoffset;
    uint32_t bits_per_pixel;
    uint32_t red_offset, red_length;
    uint32_t green_offset, green_length;
    uint32_t blue_offset, blue_length;
    /// Physical size in millimetres; 0 or 0xFFFFFFFF when the driver does not know.
    uint32_t width_mm, height_mm;
    uint32_t line_length;
    uint32_t smem_len;
    char id[17];
} CLinux_fb_info;

/// Fills `info` from both screeninfo ioctls; 0 or -1 with errno set.
static inline int CLinux_fb_get_info(int fd, CLinux_fb_info *info) {
    struct fb_var_screeninfo var;
    struct fb_fix_screeninfo fix;
    memset(info, 0, sizeof *info);
    if (ioctl(fd, FBIOGET_VSCREENINFO, &var) != 0) return -1;
    if (ioctl(fd, FBIOGET_FSCREENINFO, &fix) != 0) return -1;
    info->xres = var.xres;
    info->yres = var.yres;
    info->xoffset = var.xoffset;
    info->yoffset = var.yoffset;
    info->bits_per_pixel = var.bits_per_pixel;
    info->red_offset = var.red.offset;
    info->red_length = var.red.length;
    info->green_offset = var.green.offset;
    info->green_length = var.green.length;
    info->blue_offset = var.blue.offset;
    info->blue_length = var.blue.length;
    info->width_mm = var.width;
    info->height_mm = var.height;
    info->line_length = fix.line_length;
    info->smem_len = fix.smem_len;
    memcpy(info->id, fix.id, sizeof fix.id);
    info->id[16] = 0;
    return 0;
}

/// FBIOBLANK: powers the screen down (blank != 0, FB_BLANK_POWERDOWN) or back on
/// (FB_BLANK_UNBLANK); 0 or -1 with errno set.
static inline int CLinux_fb_blank(int fd, int blank) {
    return ioctl(fd, FBIOBLANK, blank ? FB_BLANK_POWERDOWN : FB_BLANK_UNBLANK);
}

/// KDSETMODE on a console tty: graphics (1) stops fbcon drawing text and the cursor over the
/// kiosk's picture; text (0) gives the console back.
static inline int CLinux_kd_set_graphics(int tty_fd, int graphics) {
    return ioctl(tty_fd, KDSETMODE, graphics ? KD_GRAPHICS : KD_TEXT);
}

#endif
