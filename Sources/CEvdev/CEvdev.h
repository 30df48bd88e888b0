// libevdev, plus the one thing Swift cannot reach through it: an event's timestamp, which
// <linux/input.h> spells through macros (`input_event_sec`) that differ between 64-bit time and
// 32-bit ARM kiosks built with 64-bit time_t.
#ifndef CEVDEV_H
#define CEVDEV_H

#include <stdint.h>
#include <linux/input.h>
#include <libevdev/libevdev.h>

/// The event's timestamp in microseconds of the clock chosen with libevdev_set_clock_id().
static inline int64_t CEvdev_event_time_us(const struct input_event *ev) {
    return (int64_t)ev->input_event_sec * 1000000 + (int64_t)ev->input_event_usec;
}

#endif
