// alsa-lib's PCM interface for Swift, plus what Swift cannot write itself (a variadic C
// callback).
#ifndef CALSA_H
#define CALSA_H

#include <alsa/asoundlib.h>

static const int CALSA_PCM_NONBLOCK = SND_PCM_NONBLOCK;

static void CALSA_quiet_handler(const char *file, int line, const char *function, int err, const char *fmt, ...) {
    (void)file; (void)line; (void)function; (void)err; (void)fmt;
}

/// alsa-lib prints its own "ALSA lib pcm.c:..." lines to stderr by default; the kiosk reports
/// errors itself, once, through its log.
static inline void CALSA_silence_errors(void) {
    snd_lib_error_set_handler(CALSA_quiet_handler);
}

#endif
