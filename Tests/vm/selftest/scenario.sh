#!/bin/sh
# Selftest scenario, run by /init inside the VM (busybox sh). It only reports what
# happens ("SELFTEST-..." lines); Tests/vm/selftest.sh asserts on the serial log.

info() { echo "SELFTEST-INFO $*"; }

# wait_for FILE REGEX SECONDS: until a line of FILE matches (extended regex).
wait_for() {
    n=0
    until grep -qE "$2" "$1" 2>/dev/null; do
        n=$((n + 1))
        [ $n -gt $(($3 * 10)) ] && { echo "SELFTEST-WAIT timeout: $2 in $1"; return 1; }
        sleep 0.1
    done
}

# new_device NAME: creates the touchscreen with evemu-device (kept running in the
# background); sets $dev_pid and $dev_node.
new_device() {
    evemu-device /test/touch.desc > "/tmp/$1.log" 2>&1 &
    dev_pid=$!
    wait_for "/tmp/$1.log" '/dev/input/event[0-9]+' 10 || cat "/tmp/$1.log"
    dev_node=$(grep -oE '/dev/input/event[0-9]+' "/tmp/$1.log" | head -n1)
}

# play NODE EVENTS FRAMES: evread listens on NODE while evemu-play replays EVENTS.
play() {
    evread "$1" 5 "$3" > /tmp/evread.log &
    reader=$!
    wait_for /tmp/evread.log 'EVREAD open' 5
    evemu-play "$1" < "$2"
    wait $reader
    cat /tmp/evread.log
}

info "fb: $(ls /dev/fb* 2>/dev/null) name=$(cat /sys/class/graphics/fb0/name 2>/dev/null)"
for c in /sys/class/drm/card0-*; do
    info "connector ${c##*/} status=$(cat "$c/status") modes=$(head -n3 "$c/modes" | tr '\n' ' ')"
done
sed -n 's/^N: Name=/SELFTEST-INFO input device at boot: /p' /proc/bus/input/devices

# --- fonts: cairo finds DejaVu through /etc/fonts/fonts.conf ------------------------------
cairotext

# --- display: drmcheck draws red|blue and keeps the CRTC until it is killed --------------
drmcheck 90 2>&1 | tee /tmp/drm.log &
wait_for /tmp/drm.log 'SELFTEST-DRM (ok|fail)' 60
vm-screendump final || echo "SELFTEST-SCREENDUMP failed final"

# --- input: a tap on a uinput touchscreen reaches an evdev reader --------------------------
new_device dev1
echo "SELFTEST-INPUT device1 $dev_node"
play "$dev_node" /test/tap.events 2

# --- hot-unplug: kill evemu-device while a reader holds the node ---------------------------
evread "$dev_node" 20 > /tmp/unplug.log &
reader=$!
wait_for /tmp/unplug.log 'EVREAD open' 5
kill "$dev_pid"
n=0
while [ -e "$dev_node" ] && [ $n -lt 50 ]; do sleep 0.1; n=$((n + 1)); done
if [ -e "$dev_node" ]; then
    echo "SELFTEST-HOTPLUG still-present $dev_node"
else
    echo "SELFTEST-HOTPLUG removed $dev_node after ~$((n * 100)) ms"
fi
wait $reader
cat /tmp/unplug.log
echo "SELFTEST-HOTPLUG nodes now: $(ls /dev/input | tr '\n' ' ')"

new_device dev2
echo "SELFTEST-HOTPLUG second $dev_node"
play "$dev_node" /test/two-finger.events 3
kill "$dev_pid"

# --- the console comes back when the DRM master exits -------------------------------------
kill $(pidof drmcheck)
sleep 1
# fbcon shows tty1 (the serial console is ttyS0): some text to recognise it by.
printf '\n\n  bubble-kiosk VM selftest: the text console is back\n' > /dev/tty1
vm-screendump after-exit || echo "SELFTEST-SCREENDUMP failed after-exit"
echo "SELFTEST-DONE"
exit 0
