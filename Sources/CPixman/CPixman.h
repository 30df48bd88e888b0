#ifndef CPIXMAN_H
#define CPIXMAN_H
#include <pixman.h>
#endif
