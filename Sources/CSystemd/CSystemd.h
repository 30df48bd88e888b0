// libsystemd's service-manager protocol (sd_notify, the watchdog), nothing else of it.
#ifndef CSYSTEMD_H
#define CSYSTEMD_H

#include <systemd/sd-daemon.h>

#endif
