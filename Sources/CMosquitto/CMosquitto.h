// libmosquitto, the MQTT client library (Debian libmosquitto-dev).
#ifndef CMOSQUITTO_H
#define CMOSQUITTO_H

#include <mosquitto.h>

#endif
