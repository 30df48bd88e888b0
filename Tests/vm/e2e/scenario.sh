#!/bin/sh
# Guest side of Tests/vm/e2e-test.sh (busybox sh): the release kiosk on the real DRM device
# (/dev/dri/card0, bochs-drm) with evdev input from uinput touchscreens made by evemu-device.
# Every file under /test was generated on the host by e2e-test.sh from the binary under test.
# It only reports; the host asserts on the serial log and the screendumps.
#   E2E-STEP NAME ...          a step began (with the guest's uptime)
#   E2E-STATUS NAME LINE       the kiosk's latest status line at checkpoint NAME
#   E2E-DEVICE NAME NODE       a touchscreen was created
#   E2E-EXIT RUN rc=N          how a kiosk run ended (SIGTERM: 0 expected)
#   E2E-VT NAME tty=ttyN       the active VT at checkpoint NAME
#   RUN| ...                   the kiosk's own output for run RUN
#   E2E-WAIT timeout ...       something the scenario waited for did not happen

VM_TAG=E2E
. /usr/lib/vm-guest.sh   # say, step, poll, wait_for, new_device, unplug, finish...: Tests/vm/guest-lib.sh

# kiosk RUN CONFIG [TTY]: the kiosk on DRM with evdev input in the background, output in
# /tmp/RUN.log, stdin from TTY (a VT makes it take part in VT switching; default /dev/null);
# returns once it uses a touchscreen (when one is plugged in) and shows the start screen.
kiosk() {
    bubble-kiosk run --display drm --input evdev --seed "$SEED" --status --stats --config "$2" \
        < "${3:-/dev/null}" > "/tmp/$1.log" 2>&1 &
    kiosk_pid=$!
    wait_for "/tmp/$1.log" '^t=[0-9]+s .*screen=start' 30
}

# status RUN CHECKPOINT: waits for the next status line (so it reflects everything played so
# far) and reports it.
status() {
    wait_more "/tmp/$1.log" '^t=' "$(count "/tmp/$1.log" '^t=')" 5
    say STATUS "$2 $(grep -E '^t=' "/tmp/$1.log" | tail -n1)"
}

# play RUN EVENTS: replays E: lines on the current device; then waits out the pop effects
# (particles live 1 s) so a screendump shows bubbles or background only.
play() {
    step "$1" play "$2"
    evemu-play "$dev_node" < "$2" || say WAIT "evemu-play $2 failed"
    sleep 1.5
}

# frames RUN: the frame count of RUN's latest status line.
frames() { grep -E '^t=' "/tmp/$1.log" | tail -n1 | sed -E 's/.* frames=([0-9]+) .*/\1/'; }

# drawn RUN N: waits (5 s, as every wait: see VM_WAIT_SCALE) until a status line of RUN shows
# more than N frames: the kiosk has drawn again (the first frame after a switch renders every
# sprite anew, which takes a while under TCG).
drawn() { poll 5 "a frame after frame $2 in /tmp/$1.log" more_frames "$1" "$2"; }
more_frames() { [ "$(frames "$1")" -gt "$2" ] 2>/dev/null; }

# switch_vt N NAME: chvt N (it waits until the switch is done, which takes the kiosk's
# acknowledgement when it leaves or enters tty1), then reports the active VT.
switch_vt() {
    step vt "chvt $1"
    timeout 10 chvt "$1" || say WAIT "chvt $1 failed or hung (rc=$?)"
    say VT "$2 tty=$(cat /sys/class/tty/tty0/active)"
}

. /test/params   # SEED

# --- 1: each rotation: tap Start, pop the first K bubbles; rotation 0 then pops the rest ------
new_device a /test/touch.desc
for r in 0 90 180 270; do
    step "rot$r"
    kiosk "rot$r" "/test/rot$r.conf"
    wait_for "/tmp/rot$r.log" "input: using $dev_node" 5
    play "rot$r" "/test/rot$r-pop.events"
    vm-screendump "rot$r-mid"
    status "rot$r" "rot$r-mid"
    if [ "$r" = 0 ]; then
        play rot0 /test/rot0-rest.events
        vm-screendump rot0-end
        status rot0 rot0-end
    fi
    finish "rot$r"
done

# --- 2: unplug the touchscreen mid-drag, plug in another ------------------------------------
step unplug
kiosk unplug /test/rot0.conf
wait_for /tmp/unplug.log "input: using $dev_node" 5
evemu-play "$dev_node" < /test/unplug-start.events
wait_for /tmp/unplug.log '^t=.*screen=playing' 10
status unplug unplug-playing
evemu-play "$dev_node" < /test/unplug-drag.events 2> /tmp/drag.err &
player=$!
sleep 1
step unplug unplugging mid-drag
unplug "$dev_pid"
wait "$player"
say INFO "evemu-play after the unplug: $(head -c 200 /tmp/drag.err | tr '\n' ' ')"
wait_for /tmp/unplug.log 'gone \(' 5 && step unplug released
# The kiosk goes on without a touchscreen: two more status lines.
wait_more /tmp/unplug.log '^t=' "$(count /tmp/unplug.log '^t=')" 5
status unplug unplug-none
new_device b /test/touch-b.desc
wait_for /tmp/unplug.log "input: using $dev_node" 10
play unplug /test/unplug-b.events
vm-screendump unplug-end
status unplug unplug-end
finish unplug
unplug "$dev_pid"

# --- 3: VT switching: the kiosk on tty1 lets go of the screen and takes it back -----------
# Nothing in /init touches the VTs: tty1 is the kernel's foreground VT at boot (the serial
# console is ttyS0). The kiosk gets tty1 as stdin, as a systemd unit with TTYPath= would.
step vt
say VT "boot tty=$(cat /sys/class/tty/tty0/active)"
printf '\n\n  bubble-kiosk e2e: tty2, shown while the kiosk is switched away\n' > /dev/tty2
new_device c /test/touch.desc
kiosk vt /test/rot0.conf /dev/tty1
wait_for /tmp/vt.log "input: using $dev_node" 5
# The start screen is drawn, then once more when the high-score lists come back from the score
# writer's thread, and then rests: wait until two status lines in a row show the same frames.
settled=$(frames vt)
for _ in 1 2 3 4 5 6 7 8 9 10; do
    status vt settling > /dev/null
    [ "$(frames vt)" = "$settled" ] && break
    settled=$(frames vt)
done
say STATUS "vt-start $(grep -E '^t=' /tmp/vt.log | tail -n1)"
# a) At rest on the start screen: away (the console shows) and back. Nothing changed, so only
#    the full repaint on the way back can put the game on screen again.
before=$(frames vt)
switch_vt 2 away-idle
sleep 0.3
vm-screendump vt-away-idle
switch_vt 1 back-idle
drawn vt "$before"
vm-screendump vt-back-idle
status vt vt-back-idle
# b) Away while the game goes on: Start is tapped on the hidden screen; no frame is drawn.
switch_vt 2 away
evemu-play "$dev_node" < /test/unplug-start.events
wait_for /tmp/vt.log '^t=.*screen=playing' 10
status vt vt-away-1
status vt vt-away-2
vm-screendump vt-away
before=$(frames vt)
switch_vt 1 back
drawn vt "$before"
sleep 0.3
vm-screendump vt-back
status vt vt-back
# c) Touch still works after the switches: pop bubble 0.
play vt /test/vt-pop.events
vm-screendump vt-pop
status vt vt-pop
# d) Master taken meanwhile: drmcheck becomes master while the kiosk is away, so the kiosk
#    is refused on the way back and retries; once drmcheck is gone it recovers and repaints.
switch_vt 2 away-steal
drmcheck 60 > /tmp/drmcheck.log 2>&1 &
stealer=$!
wait_for /tmp/drmcheck.log '^SELFTEST-DRM ok' 20
switch_vt 1 back-stolen
sleep 0.5
vm-screendump vt-stolen
# No frame is drawn while refused: the latest status line will do (no need to wait for one).
say STATUS "vt-stolen $(grep -E '^t=' /tmp/vt.log | tail -n1)"
before=$(frames vt)
kill "$stealer"
wait "$stealer" 2>/dev/null
step vt drmcheck gone
show drmcheck /tmp/drmcheck.log
# The kiosk draws again once its retry gets master: the frame count moves on.
drawn vt "$before"
sleep 0.3
vm-screendump vt-recovered
say STATUS "vt-recovered $(grep -E '^t=' /tmp/vt.log | tail -n1)"
finish vt
unplug "$dev_pid"
say VT "after tty=$(cat /sys/class/tty/tty0/active)"

# --- 4: display sleep: a sleep_schedule range around the guest's time of day ----------------
# From a minute ago to 30 minutes on (the guest's local time is UTC, for date and the kiosk
# alike): the kiosk draws its first frame, switches the connector off (DPMS) and draws nothing;
# a tap on Start wakes it and must not start a round; after it the console is back.
step sleep
sched=$(date +%H:%M | awk -F: '{ m = $1 * 60 + $2; s = (m + 1439) % 1440; e = (m + 30) % 1440
    printf "%02d:%02d-%02d:%02d", s / 60, s % 60, e / 60, e % 60 }')
say INFO "sleep schedule $sched"
printf '[display]\npx_per_mm = 4\nsleep_schedule = %s\n\n[attract]\ndemo = false\n' "$sched" > /tmp/sleep.conf
new_device d /test/touch.desc
vm-screendump sleep-before
# On tty1, as the unit runs it: at exit the VT goes back to text mode and the console is redrawn.
kiosk sleep /tmp/sleep.conf /dev/tty1
wait_for /tmp/sleep.log "input: using $dev_node" 5
wait_for /tmp/sleep.log 'display asleep \(schedule' 10
bubble-kiosk devices > /tmp/sleep-devices-off.log 2>&1
show SLEEPDEV1 /tmp/sleep-devices-off.log
status sleep sleep-1
sleep 1.5
status sleep sleep-2
vm-screendump sleep-asleep
evemu-play "$dev_node" < /test/unplug-start.events
wait_for /tmp/sleep.log 'display awake' 10
status sleep sleep-woken
bubble-kiosk devices > /tmp/sleep-devices-on.log 2>&1
show SLEEPDEV2 /tmp/sleep-devices-on.log
vm-screendump sleep-woken
finish sleep
unplug "$dev_pid"
sleep 0.5
vm-screendump sleep-after

# --- 5: the console is back after the last run ----------------------------------------------
sleep 0.5
vm-screendump after-all
step done
exit 0
