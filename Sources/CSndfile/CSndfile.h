// libsndfile for Swift: decoding sound files (WAV, FLAC, Ogg, MP3, ...).
#ifndef CSNDFILE_H
#define CSNDFILE_H

#include <sndfile.h>

#endif
