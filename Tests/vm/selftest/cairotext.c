/*
 * Selftest scaffolding for the VM harness: proves that cairo finds a font through the
 * initramfs's minimal /etc/fonts/fonts.conf. Prints the file fontconfig picks for
 * "sans-serif" and how many pixels a line of text covers.
 *
 * output: "SELFTEST-CAIRO font=PATH inked=N"  (N > 0 when text was drawn)
 * build:  gcc -O2 -o cairotext cairotext.c $(pkg-config --cflags --libs cairo fontconfig)
 */
#include <cairo.h>
#include <fontconfig/fontconfig.h>
#include <stdio.h>

int main(void) {
    FcPattern *want = FcNameParse((const FcChar8 *)"sans-serif");
    FcConfigSubstitute(NULL, want, FcMatchPattern);
    FcDefaultSubstitute(want);
    FcResult result;
    FcPattern *got = FcFontMatch(NULL, want, &result);
    FcChar8 *file = NULL;
    if (!got || FcPatternGetString(got, FC_FILE, 0, &file) != FcResultMatch) file = (FcChar8 *)"none";

    cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_RGB24, 320, 60);
    cairo_t *cr = cairo_create(s);
    cairo_set_source_rgb(cr, 1, 1, 1);
    cairo_select_font_face(cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
    cairo_set_font_size(cr, 32);
    cairo_move_to(cr, 10, 42);
    cairo_show_text(cr, "Bubble Kiosk");
    cairo_surface_flush(s);

    long inked = 0;
    unsigned char *data = cairo_image_surface_get_data(s);
    for (int y = 0; y < 60; y++)
        for (int x = 0; x < 320; x++)
            inked += ((unsigned int *)(data + y * cairo_image_surface_get_stride(s)))[x] != 0;
    printf("SELFTEST-CAIRO font=%s inked=%ld\n", file, inked);
    return inked > 0 ? 0 : 1;
}
