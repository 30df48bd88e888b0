// libmosquitto, the MQTT client library (Debian libmosquitto-dev), with its MQTT 5 reason codes
// and property identifiers.
#ifndef CMOSQUITTO_H
#define CMOSQUITTO_H

#include <mosquitto.h>
#include <mqtt_protocol.h>

#endif
