#!/bin/sh
# Selftest scenario, run by /init inside the VM (busybox sh). It only reports what
# happens ("SELFTEST-..." lines); Tests/vm/selftest.sh asserts on the serial log.

VM_TAG=SELFTEST
. /usr/lib/vm-guest.sh   # say, wait_for, ...: Tests/vm/guest-lib.sh

# play NODE EVENTS FRAMES: evread listens on NODE while evemu-play replays EVENTS.
play() {
    # A fresh log: the last play's 'EVREAD open' would let the events go before the reader is there.
    rm -f /tmp/evread.log
    evread "$1" 5 "$3" > /tmp/evread.log &
    reader=$!
    wait_for /tmp/evread.log 'EVREAD open' 5
    evemu-play "$1" < "$2"
    wait $reader
    cat /tmp/evread.log
}

say INFO "fb: $(ls /dev/fb* 2>/dev/null) name=$(cat /sys/class/graphics/fb0/name 2>/dev/null)"
for c in /sys/class/drm/card0-*; do
    say INFO "connector ${c##*/} status=$(cat "$c/status") modes=$(head -n3 "$c/modes" | tr '\n' ' ')"
done
sed -n 's/^N: Name=/SELFTEST-INFO input device at boot: /p' /proc/bus/input/devices

# --- fonts: cairo finds DejaVu through /etc/fonts/fonts.conf ------------------------------
cairotext

# --- display: drmcheck draws red|blue and keeps the CRTC until it is killed --------------
drmcheck 90 2>&1 | tee /tmp/drm.log &
wait_for /tmp/drm.log 'SELFTEST-DRM (ok|fail)' 60
vm-screendump final || say SCREENDUMP "failed final"

# --- input: a tap on a uinput touchscreen reaches an evdev reader --------------------------
new_device dev1 /test/touch.desc
say INPUT "device1 $dev_node"
play "$dev_node" /test/tap.events 2

# --- hot-unplug: kill evemu-device while a reader holds the node ---------------------------
evread "$dev_node" 20 > /tmp/unplug.log &
reader=$!
wait_for /tmp/unplug.log 'EVREAD open' 5
kill "$dev_pid"
n=0
while [ -e "$dev_node" ] && [ $n -lt 50 ]; do sleep 0.1; n=$((n + 1)); done
if [ -e "$dev_node" ]; then
    say HOTPLUG "still-present $dev_node"
else
    say HOTPLUG "removed $dev_node after ~$((n * 100)) ms"
fi
wait $reader
cat /tmp/unplug.log
say HOTPLUG "nodes now: $(ls /dev/input | tr '\n' ' ')"

new_device dev2 /test/touch.desc
say HOTPLUG "second $dev_node"
play "$dev_node" /test/two-finger.events 3
unplug "$dev_pid"

# --- the console comes back when the DRM master exits -------------------------------------
kill $(pidof drmcheck)
sleep 1
# fbcon shows tty1 (the serial console is ttyS0): some text to recognise it by.
printf '\n\n  bubble-kiosk VM selftest: the text console is back\n' > /dev/tty1
vm-screendump after-exit || say SCREENDUMP "failed after-exit"
say DONE
exit 0
