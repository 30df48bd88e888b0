#!/bin/sh
# Guest side of Tests/vm/e2e-test.sh (busybox sh): the release kiosk on the real DRM device
# (/dev/dri/card0, bochs-drm) with evdev input from uinput touchscreens made by evemu-device.
# Every file under /test was generated on the host by e2e-test.sh from the binary under test.
# It only reports; the host asserts on the serial log and the screendumps.
#   E2E-STEP NAME ...          a step began (with the guest's uptime)
#   E2E-STATUS NAME LINE       the kiosk's latest status line at checkpoint NAME
#   E2E-DEVICE NAME NODE       a touchscreen was created
#   E2E-EXIT RUN rc=N          how a kiosk run ended (SIGTERM: 0 expected)
#   RUN| ...                   the kiosk's own output for run RUN
#   E2E-WAIT timeout ...       something the scenario waited for did not happen

VM_TAG=E2E
. /usr/lib/vm-guest.sh   # say, step, wait_for, new_device, unplug, finish...: Tests/vm/guest-lib.sh

# kiosk RUN CONFIG: the kiosk on DRM with evdev input in the background, output in /tmp/RUN.log;
# returns once it uses a touchscreen (when one is plugged in) and shows the start screen.
kiosk() {
    bubble-kiosk run --display drm --input evdev --seed "$SEED" --status --stats --config "$2" \
        > "/tmp/$1.log" 2>&1 &
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

# --- 3: the console is back after the last run ----------------------------------------------
sleep 0.5
vm-screendump after-all
step done
exit 0
