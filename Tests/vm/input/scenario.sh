#!/bin/sh
# Guest side of Tests/vm/input-test.sh (busybox sh): runs bubble-kiosk with evdev input against
# uinput devices made by evemu-device. It only reports; the host script asserts on the serial log.
#   INPUT-STEP NAME ...       a step began (with the guest's uptime)
#   NAME| ...                 the kiosk's own output (status lines, input log) for run NAME
#   INPUT-EXIT NAME rc=N      how that kiosk run ended
# Kiosk runs use the virtual display, so this test does not depend on DRM.

VM_TAG=INPUT
. /usr/lib/vm-guest.sh   # say, step, wait_for, new_device, unplug, finish...: Tests/vm/guest-lib.sh

# kiosk NAME ARGS...: starts `bubble-kiosk run ARGS` in the background, output in /tmp/NAME.log.
kiosk() {
    name=$1; shift
    bubble-kiosk run --display virtual:1280x800 --status "$@" > "/tmp/$name.log" 2>&1 &
    kiosk_pid=$!
}

# tap_start RUN EVENTS: once the kiosk uses the device and shows the start screen, replays
# EVENTS (a tap on Start) on $dev_node and waits for the round to begin.
tap_start() {
    wait_for "/tmp/$1.log" 'input: using' 10
    wait_for "/tmp/$1.log" 'screen=start' 10
    evemu-play "$dev_node" < "$2"
    wait_for "/tmp/$1.log" 'screen=playing' 10 && step "$1" playing
}

# Drag for 2.5 s from (200, 600) to the right in 16 ms steps; the test unplugs the device midway.
awk 'BEGIN {
    print "E: 0.000000 0003 0039 21"; print "E: 0.000000 0003 0035 200"; print "E: 0.000000 0003 0036 600"
    print "E: 0.000000 0001 014a 1"; print "E: 0.000000 0003 0000 200"; print "E: 0.000000 0003 0001 600"
    print "E: 0.000000 0000 0000 0"
    for (i = 1; i <= 156; i++) {
        t = i * 0.016; x = 200 + 4 * i
        printf "E: %.6f 0003 0035 %d\nE: %.6f 0003 0000 %d\nE: %.6f 0000 0000 0\n", t, x, t, x, t
    }
    print "E: 2.600000 0003 0039 -1"; print "E: 2.600000 0001 014a 0"; print "E: 2.600000 0000 0000 0"
}' > /tmp/drag.events
# A finger held down, then 600 moves with no pause (3000 events, several times the kernel's
# per-reader buffer while the kiosk is stopped), then the lift.
printf 'E: 0.000000 0003 0039 31\nE: 0.000000 0003 0035 200\nE: 0.000000 0003 0036 300\nE: 0.000000 0001 014a 1\nE: 0.000000 0003 0000 200\nE: 0.000000 0003 0001 300\nE: 0.000000 0000 0000 0\n' > /tmp/hold.events
awk 'BEGIN { for (i = 1; i <= 600; i++) { x = 200 + i % 200; y = 300 + i % 100
    printf "E: 0.000000 0003 0035 %d\nE: 0.000000 0003 0036 %d\nE: 0.000000 0003 0000 %d\nE: 0.000000 0003 0001 %d\nE: 0.000000 0000 0000 0\n", x, y, x, y } }' > /tmp/flood.events
printf 'E: 0.000000 0003 0039 -1\nE: 0.000000 0001 014a 0\nE: 0.000000 0000 0000 0\n' > /tmp/lift.events

sed -n 's/^N: Name=/INPUT-INFO device at boot: /p' /proc/bus/input/devices

# --- 1: protocol B device present at start: tap Start; then overflow the kernel buffer --------
step tapB
new_device b1 /test/touch.desc
kiosk tapB --input evdev --stats
tap_start tapB /test/tap-start.events
evemu-play "$dev_node" < /tmp/hold.events
sleep 0.5
kill -STOP "$kiosk_pid"
evemu-play "$dev_node" < /tmp/flood.events
kill -CONT "$kiosk_pid"
sleep 0.5
evemu-play "$dev_node" < /tmp/lift.events
wait_for /tmp/tapB.log 'dropped events' 5 && step tapB resynchronised
# Status lines must go on after the resync: two more.
wait_more /tmp/tapB.log '^t=' "$(count /tmp/tapB.log '^t=')" 3
wait_more /tmp/tapB.log '^t=' "$(count /tmp/tapB.log '^t=')" 3
finish tapB
unplug "$dev_pid"

# --- 2: no touchscreen at start, hotplug, unplug mid-drag, plug another ----------------------
step hotplug
kiosk hotplug --input evdev --config /test/hotplug.conf
wait_for /tmp/hotplug.log 'screen=start' 10
sleep 2
kill -0 "$kiosk_pid" && say HOTPLUG "alive without a touchscreen"
new_device h1 /test/touch.desc
wait_for /tmp/hotplug.log "input: using $dev_node" 10 && step hotplug first device used
evemu-play "$dev_node" < /test/tap-start.events
wait_for /tmp/hotplug.log 'screen=playing' 10 && step hotplug playing
evemu-play "$dev_node" < /tmp/drag.events 2> /tmp/drag.err &
player=$!
sleep 0.8
step hotplug unplug mid-drag
starts=$(count /tmp/hotplug.log 'screen=start')
unplug "$dev_pid"
wait "$player"
say HOTPLUG "evemu-play ended: $(head -c 200 /tmp/drag.err | tr '\n' ' ')"
wait_for /tmp/hotplug.log 'gone \(' 5 && step hotplug unplug seen
# The round times out to the start screen 5 s after the last touch (hotplug.conf).
wait_more /tmp/hotplug.log 'screen=start.*input=evdev:all\(0\)' "$starts" 15 && step hotplug back at start
playing_lines=$(count /tmp/hotplug.log 'screen=playing')
kill -0 "$kiosk_pid" && say HOTPLUG "alive after unplug"
new_device h2 /test/touch.desc
wait_for /tmp/hotplug.log "input: using $dev_node.* as device 0" 10 && step hotplug second device used
evemu-play "$dev_node" < /test/tap-start.events
wait_more /tmp/hotplug.log 'screen=playing' "$playing_lines" 10 && step hotplug playing again
finish hotplug
unplug "$dev_pid"

# --- 3: protocol A on a named node, grabbed ---------------------------------------------------
step tapA
new_device a1 /test/protocol-a.desc
kiosk tapA --input "evdev:$dev_node" --grab
tap_start tapA /test/tap-start-a.events
finish tapA
unplug "$dev_pid"

# --- 4: single-touch panel without INPUT_PROP_DIRECT ------------------------------------------
step tapSingle
new_device s1 /test/single-touch.desc
kiosk tapSingle --input evdev
tap_start tapSingle /test/tap-start-single.events
finish tapSingle
unplug "$dev_pid"

# --- 5: absolute pointer like QEMU's usb-tablet -----------------------------------------------
step tapPointer
new_device p1 /test/pointer.desc
kiosk tapPointer --input evdev
tap_start tapPointer /test/tap-start-pointer.events
finish tapPointer

# --- 6: bubble-kiosk devices (the pointer is still plugged in; add a protocol B one) ----------
step devices
new_device d1 /test/touch.desc
bubble-kiosk devices > /tmp/devices.log 2>&1
say EXIT "devices rc=$?"
show devices /tmp/devices.log
unplug "$dev_pid"

# --- 7: an ordinary user: permission hints, then access granted while running ----------------
step user
add_kiosk_user
say USER "$(as_user id) nodes: $(ls -l /dev/input | tr -s ' ' | cut -d' ' -f1,3,4,10 | tr '\n' ';')"
as_user /usr/local/bin/bubble-kiosk devices > /tmp/user-devices.log 2>&1
say EXIT "user-devices rc=$?"
show user-devices /tmp/user-devices.log
new_device u1 /test/touch.desc
chmod 600 "$dev_node"
as_user /usr/local/bin/bubble-kiosk run --display virtual:1280x800 --status --input evdev > /tmp/user.log 2>&1 &
kiosk_pid=$!
wait_for /tmp/user.log 'permission denied' 10
wait_for /tmp/user.log 'screen=start' 10
step user granting access
chmod 666 "$dev_node"
wait_for /tmp/user.log 'input: using' 10 && step user device used
evemu-play "$dev_node" < /test/tap-start.events
wait_for /tmp/user.log 'screen=playing' 10 && step user playing
finish user
unplug "$dev_pid"
step done
exit 0
