// libudev for Swift: the kernel's device events (DRM hotplug) read from a netlink monitor.
#ifndef CUDEV_H
#define CUDEV_H

#include <libudev.h>

#endif
