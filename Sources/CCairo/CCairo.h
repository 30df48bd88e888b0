#ifndef CCAIRO_H
#define CCAIRO_H
#include <cairo.h>
#endif
