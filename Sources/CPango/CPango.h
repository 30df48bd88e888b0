#ifndef CPANGO_H
#define CPANGO_H
#include <pango/pangocairo.h>

/// PANGO_GLYPH_UNKNOWN_FLAG is a cast macro Swift does not import: a glyph with it set is a
/// character no font had (the rest of the glyph is the character).
static inline PangoGlyph CPango_glyph_unknown_flag(void) { return PANGO_GLYPH_UNKNOWN_FLAG; }

/// PANGO_SCALE: Pango units in a device unit.
static inline int CPango_scale(void) { return PANGO_SCALE; }

#endif
