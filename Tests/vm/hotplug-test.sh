#!/bin/bash
# Monitors that come and go, on a real kernel (QEMU): the kiosk waits for a screen that is not
# there, comes back on when it is plugged in, survives an unplug mid-round, takes a tap after the
# screen came back, and plays on two screens ([display] outputs = all) until one is unplugged.
# Screendumps (per head) are checked from the host.
#
# usage: Tests/vm/hotplug-test.sh [--workdir DIR] [--binary PATH] [--verbose] [--seed N]
#   --workdir DIR   generated files, initramfs, serial logs, screendumps (default: /tmp/vm-hotplug.*)
#   --binary PATH   test this bubble-kiosk (default: `make release`); it runs on the host too, to
#                   print the round and the taps part c plays
#   --verbose       echo the guest's serial console while it runs, and every check's details
#   --seed N        part c's round (default 7)
# Two boots:
#   one screen (-vga std, bochs-drm, Virtual-1): (a) the kiosk started with the connector forced
#   off waits (`waiting for a display`, status `display_state=no-screen`), and after `echo detect`
#   and a change uevent shows the game within 10 s, same process; (b) off and back during the
#   demo round; (c) after off and back a touchscreen's taps pop bubbles (score and dump).
#   two screens (--gpu virtio:2): (d) head 1 plugged in from QEMU's side (vm-head: EDID,
#   1024x768 preferred) and `outputs = all`: both heads show the game (head 1 scaled and
#   letterboxed); the sysfs unplug of Virtual-2 leaves head 0 playing; (e) Virtual-2 back by
#   `echo detect` + uevent shows the game again, and QEMU's own unplug (a real HOTPLUG=1 event,
#   no sysfs write) leaves head 0 playing; (f) head 0's monitor replaced by one whose preferred
#   mode is 1024x768 (vm-head): the game is laid out again for it, same process.
# The unplug the issue prescribes: `echo off > /sys/class/drm/card0-CONN/status` (forced
# disconnected), `echo detect > .../status` (probed again), and `echo change >
# /sys/class/drm/card0/uevent` after each: on Debian's 6.1 kernel a write to `status` changes
# the connector but sends no uevent (see README.md).
# Ends with "hotplug-test: N passed, N failed"; exit 0 only when nothing failed.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

seed=7
vm_test_args '--seed=seed' "$@"
case "$seed" in ''|*[!0-9]*) die "--seed takes a number" ;; esac
work=$(vm_workdir "$work" hotplug)
t0=$(now)

need_host_packages python3
binary=$(vm_kiosk_binary "$binary")
t_build=$(elapsed "$t0")

# --- what the guest plays and what the host expects (part c), from the binary under test ------
vm_test_dir "$seed"
pops=2
# Part c: as e2e-test.sh's, no demo round (a tap on it would only stop it) and 4 px/mm as the
# VM's connector reports, so `state` here lays out exactly the kiosk's round.
printf '[display]\npx_per_mm = 4\n\n[attract]\ndemo = false\n' > "$gen/tap.conf"
"$binary" state --seed "$seed" --size 1280x800 --config "$gen/tap.conf" > "$work/tap.state.json"
vm_recording start --seed "$seed" --size 1280x800 --config "$gen/tap.conf" --pop 0
vm_header "$work/start.evemu" > "$gen/touch.desc"
vm_recording pops --seed "$seed" --size 1280x800 --config "$gen/tap.conf" --pop $pops --no-start
vm_expect tap "$work/tap.state.json" $pops
. "$work/expected.sh"
# Parts a and b: a demo round follows the start screen after 2 s, so b finds one in play.
printf '[attract]\ndemo_after_s = 2\n' > "$gen/ab.conf"
# Part d: every connected output shows the game.
printf '[display]\noutputs = all\n' > "$gen/all.conf"
t_gen=$(elapsed "$t0")

# --- the scenarios' shared functions (the guest's /test/kiosk.sh) ---------------------------------
cat > "$gen/kiosk.sh" <<'EOF'
# Sourced by both scenarios after /usr/lib/vm-guest.sh. The kiosk under test is $kiosk_pid, and
# VM_WAIT_PID too: the waits give up at once when it has exited (its log will not change again).
alive() { if kill -0 "$kiosk_pid" 2>/dev/null; then say ALIVE "$1 pid=$kiosk_pid yes"; else say ALIVE "$1 pid=$kiosk_pid no"; fi; }
# status RUN CHECKPOINT: the next status line of RUN (so it reflects everything so far).
status() {
    wait_more "/tmp/$1.log" '^t=' "$(count "/tmp/$1.log" '^t=')" 5
    say STATUS "$2 $(grep -E '^t=' "/tmp/$1.log" | tail -n1)"
}
# now RUN NAME: the latest status line as it is (no wait), said right before a screendump NAME so
# the host knows what the picture should be (a round with its HUD band, or the start screen).
now() { say NOW "$2 $(grep -E '^t=' "/tmp/$1.log" | tail -n1)"; }
# snap RUN NAME [--head N]: a screendump between two status lines, the last one before it (NOW
# NAME) and the first one after it (NOW NAME-after): the screen a dump shows was on screen at
# one or the other, since the status line is up to a second old and a round may end between.
snap() {
    local run=$1 name=$2 n
    shift 2
    now "$run" "$name"
    n=$(count "/tmp/$run.log" '^t=')
    vm-screendump "$@" "$name"
    wait_more "/tmp/$run.log" '^t=' "$n" 5
    now "$run" "$name-after"
}
# drawn FILE: status lines with frames drawn and nothing in the way (no display_state=...).
drawn() { grep -E '^t=[0-9]+s frames=[1-9]' "$1" 2>/dev/null | grep -cv 'display_state=' || true; }
# wait_drawn FILE N SECONDS: until there are more than N drawn lines.
wait_drawn() { poll "$3" "more than $2 drawing status lines in $1" more_drawn "$1" "$2"; }
more_drawn() { [ "$(drawn "$1")" -gt "$2" ]; }
# drawing RUN: waits for two more drawing status lines (after a change of screens).
drawing() { wait_drawn "/tmp/$1.log" $(( $(drawn "/tmp/$1.log") + 1 )) 10; }
# The drm subsystem's uevents, as a netlink listener gets them (busybox uevent), for the record.
uevent sh -c '[ "$SUBSYSTEM" = drm ] && echo "$ACTION $DEVPATH${HOTPLUG:+ HOTPLUG=$HOTPLUG}" >> /tmp/uevents.log' &
uevent_pid=$!
EOF

# --- boot 1: one screen (-vga std, bochs-drm) ------------------------------------------------
cat > "$work/one.sh" <<'EOF'
#!/bin/sh
# Runs inside the VM (-vga std: bochs-drm, one connector Virtual-1); prints HOTPLUG lines.
#   HOTPLUG-STEP NAME ...          a step began (with the guest's uptime)
#   HOTPLUG-STATUS NAME LINE       the kiosk's latest status line at checkpoint NAME
#   HOTPLUG-ALIVE NAME pid=P yes|no  whether the kiosk started as P is still running
#   HOTPLUG-SYSFS NAME status=S    the connector's status file after a write
#   HOTPLUG-BACK NAME after=S      seconds from the replug to a status line with frames drawn
#   HOTPLUG-EXIT RUN rc=N, RUN| ... the run's end and its output
#   UEVENTS| ...                   every uevent of the drm subsystem, for the record
VM_TAG=HOTPLUG
. /usr/lib/vm-guest.sh   # say, step, wait_for, wait_more, count, new_device, finish: guest-lib.sh
. /test/params           # SEED
card=/sys/class/drm/card0
conn=$card/card0-Virtual-1
. /test/kiosk.sh        # alive, status, now, drawing; starts the uevent listener

# unplug NAME / replug NAME: the issue's sequence: force the connector off (or probe it again),
# then tell whoever listens with a change uevent for the card (the status write sends none).
screen_off() { echo off > $conn/status; echo change > $card/uevent; say SYSFS "$1 status=$(cat $conn/status)"; }
screen_on() { echo detect > $conn/status; echo change > $card/uevent; say SYSFS "$1 status=$(cat $conn/status)"; }
uptime_s() { cut -d' ' -f1 /proc/uptime; }
since() { awk -v s="$1" '{ printf "%.1f", $1 - s }' /proc/uptime; }
# back RUN NAME: waits (10 s) for a new drawing status line after a replug, says how long it took.
back() {
    _n=$(drawn "/tmp/$1.log") _s=$(uptime_s)
    wait_drawn "/tmp/$1.log" "$_n" 10 || return 1
    say BACK "$2 after=$(since "$_s")"
}
# no_screen RUN: waits (10 s) for a new status line that says display_state=no-screen.
no_screen() { wait_more "/tmp/$1.log" 'display_state=no-screen' "$(count "/tmp/$1.log" 'display_state=no-screen')" 10; }

printf '\n\n  bubble-kiosk hotplug test: the console\n' > /dev/tty1

# --- the kernel's side alone: status writes and the change uevent ----------------------------
step sysfs
n=$(count /tmp/uevents.log .)
echo off > $conn/status
say SYSFS "probe-off status=$(cat $conn/status)"
echo detect > $conn/status
say SYSFS "probe-detect status=$(cat $conn/status)"
sleep 1
say SYSFS "status writes sent $(( $(count /tmp/uevents.log .) - n )) uevents"
echo change > $card/uevent
wait_more /tmp/uevents.log . "$n" 5
say SYSFS "the change write sent $(( $(count /tmp/uevents.log .) - n )) uevents"

# Each part is a function that returns at the first wait that fails, so a kiosk that died does
# not make every later wait run out its time; its run is stopped and shown either way.
# --- a: no screen at the start; plugged in later ---------------------------------------------
part_a() {
    echo off > $conn/status
    say SYSFS "a-off status=$(cat $conn/status)"
    bubble-kiosk run --display drm --attract --status --config /test/ab.conf > /tmp/a.log 2>&1 &
    kiosk_pid=$! VM_WAIT_PID=$!
    wait_for /tmp/a.log 'waiting for a display' 10 || return 1
    no_screen a || return 1
    sleep 2
    alive a-waiting
    status a a-waiting
    vm-screendump a-waiting
    screen_on a-on
    back a a-back || return 1
    sleep 1
    snap a a-back
    alive a-back
    status a a-back
}

# --- b: unplugged and back during the demo round ---------------------------------------------
part_b() {
    # A demo round in play: the one --attract started may be over by now; the next starts 2 s
    # after (ab.conf).
    wait_more /tmp/a.log '^t=.* screen=demo ' "$(count /tmp/a.log '^t=.* screen=demo ')" 20 || return 1
    # That line, not the next: a short demo round may end within the second.
    say STATUS "b-before $(grep -E '^t=' /tmp/a.log | tail -n1)"
    screen_off b-off
    no_screen a || return 1
    status a b-off
    sleep 1
    alive b-off
    vm-screendump b-off
    screen_on b-on
    back a b-back || return 1
    sleep 1
    snap a b-back
    alive b-back
    status a b-back
}

# --- c: a touchscreen's taps count after the screen came back ---------------------------------
part_c() {
    bubble-kiosk run --display drm --input evdev --seed "$SEED" --status --config /test/tap.conf > /tmp/c.log 2>&1 &
    kiosk_pid=$! VM_WAIT_PID=$!
    wait_for /tmp/c.log "input: using $dev_node" 30 || return 1
    wait_for /tmp/c.log '^t=[0-9]+s .*screen=start' 30 || return 1
    evemu-play "$dev_node" < /test/start.events
    wait_for /tmp/c.log '^t=.*screen=playing' 10 || return 1
    status c c-playing
    screen_off c-off
    no_screen c || return 1
    screen_on c-on
    back c c-back || return 1
    step c taps
    evemu-play "$dev_node" < /test/pops.events
    sleep 1.5   # the pop particles live 1 s
    snap c c-popped
    status c c-popped
    alive c-end
}

step a
part_a && step b && part_b
echo detect > $conn/status   # whatever happened, the next part starts with the screen there
finish a
step c
new_device touch /test/touch.desc
part_c
echo detect > $conn/status
finish c
unplug "$dev_pid"

kill "$uevent_pid"
show UEVENTS /tmp/uevents.log
say TEST done
exit 0
EOF

# --- boot 2: two screens (virtio-gpu, max_outputs=2) ------------------------------------------
cat > "$work/two.sh" <<'EOF'
#!/bin/sh
# Runs inside the VM (virtio-gpu with two heads: Virtual-1 connected at boot, Virtual-2 not).
# Markers as in one.sh; HEADS| lines: both connectors' status and first modes.
VM_TAG=HOTPLUG
. /usr/lib/vm-guest.sh
card=/sys/class/drm/card0
conn1=$card/card0-Virtual-1 conn2=$card/card0-Virtual-2
. /test/kiosk.sh        # alive, status, now, drawing; starts the uevent listener
heads() {
    for c in $conn1 $conn2; do
        echo "$1 ${c##*/} status=$(cat $c/status) enabled=$(cat $c/enabled) modes=$(head -n3 $c/modes | tr '\n' ' ')"
    done > /tmp/heads.txt
    show HEADS /tmp/heads.txt
}

heads boot
# --- d: a second monitor (plugged in from QEMU's side: EDID, 1024x768 preferred) ---------------
part_d() {
    vm-head 1 1024x768 || say WAIT "vm-head 1 1024x768 failed"
    wait_for /tmp/uevents.log 'HOTPLUG=1' 10
    sleep 1
    heads d-plugged
    bubble-kiosk devices > /tmp/devices.log 2>&1
    show DEVICES /tmp/devices.log
    bubble-kiosk run --display drm --attract --status --config /test/all.conf > /tmp/d.log 2>&1 &
    kiosk_pid=$! VM_WAIT_PID=$!
    wait_drawn /tmp/d.log 0 30 || return 1
    drawing d || return 1
    snap d d-head0 --head 0
    snap d d-head1 --head 1
    status d d-both
    step d unplug Virtual-2
    echo off > $conn2/status
    echo change > $card/uevent
    heads d-off
    drawing d || return 1
    snap d d-off-head0 --head 0
    vm-screendump --head 1 d-off-head1
    alive d-off
    status d d-off
}

# --- e: Virtual-2 back through sysfs, then unplugged from QEMU's side (a real hotplug) --------
part_e() {
    echo detect > $conn2/status
    echo change > $card/uevent
    heads e-detect
    drawing d || return 1
    snap d e-back-head0 --head 0
    snap d e-back-head1 --head 1
    alive e-back
    status d e-back
    step e QEMU unplugs head 1
    n=$(count /tmp/uevents.log 'HOTPLUG=1')
    vm-head 1 off || say WAIT "vm-head 1 off failed"
    wait_more /tmp/uevents.log 'HOTPLUG=1' "$n" 10
    drawing d || return 1
    # The status file is the kernel's last probe: virtio-gpu's event does not probe (fbcon would,
    # but not while the kiosk is DRM master), the kiosk's own GETCONNECTOR does. Probe to record it.
    echo detect > $conn2/status
    heads e-unplugged
    snap d e-gone-head0 --head 0
    alive e-gone
    status d e-gone
}

# --- f: the main monitor replaced by one of another size (QEMU's side: 1024x768 preferred) ----
part_f() {
    n=$(count /tmp/uevents.log 'HOTPLUG=1')
    vm-head 0 1024x768 || say WAIT "vm-head 0 1024x768 failed"
    wait_more /tmp/uevents.log 'HOTPLUG=1' "$n" 10
    wait_for /tmp/d.log 'display=drm:/dev/dri/card0:Virtual-1:1024x768' 15 || return 1
    drawing d || return 1
    snap d f-resized-head0 --head 0
    alive f-resized
    status d f-resized
}

step d
part_d && step e && part_e && step f && part_f
finish d

kill "$uevent_pid"
show UEVENTS /tmp/uevents.log
say TEST done
exit 0
EOF

vm_test_files "$gen"/*
"$VM_DIR/build-initramfs.sh" --out "$work/one.gz" --scenario "$work/one.sh" --binary "$binary" "${VM_FILES[@]}"
"$VM_DIR/build-initramfs.sh" --out "$work/two.gz" --scenario "$work/two.sh" --binary "$binary" \
    --module virtio_pci --module virtio-gpu "${VM_FILES[@]}"
t_initrd=$(elapsed "$t0")

# --- assertions (vm_check and friends: lib.sh) -------------------------------------------------
# Colours as display-test.sh: the HUD bar 0B1220 at 85 % over the background 141F33.
hud=0C1423 background=141F33
VM_TAG=HOTPLUG
alive_at() { vm_has "^HOTPLUG-ALIVE $1 pid=[0-9]+ yes"; }
back_within() {   # back_within NAME SECONDS
    local s
    s=$(grep -E "^HOTPLUG-BACK $1 after=" "$VM_LOG" | tail -n1 | sed -E 's/.*after=([0-9.]+).*/\1/')
    [ -n "$s" ] && awk -v a="$s" -v b="$2" 'BEGIN { exit !(a <= b) }'
}
same_pid() {      # every ALIVE line of the run names one pid
    [ "$(grep -E "^HOTPLUG-ALIVE ($1)" "$VM_LOG" | sed -E 's/.*pid=([0-9]+).*/\1/' | sort -u | wc -l)" = 1 ]
}
# letterboxed NAME: the game (1280x800) scaled into the dump's size keeping its shape, wherever
# the letterbox puts it: the HUD band along the top of that picture during a round (as game_on),
# else mostly background inside it.
letterboxed() {
    case $(screen_at "$1") in
        round) letterbox_shows "$1" "$hud@0.9" hud ;;
        other) letterbox_shows "$1" "$background@0.5" all ;;
        *) letterbox_shows "$1" "$hud@0.9" hud || letterbox_shows "$1" "$background@0.5" all ;;
    esac
}
letterbox_shows() {
    python3 - "$VM_OUT/$1.ppm" "$2" "$3" <<'PY'
import os, sys
sys.path.insert(0, os.environ["VM_DIR"])
import ppm
img = ppm.Image.load(sys.argv[1])
w, h = img.width, img.height
scale = min(w / 1280, h / 800)
top = int(round((h - 800 * scale) / 2))
band = max(2, int(6 * scale) - 1)
colour, need = sys.argv[2].split("@")
rows = (top + 1, top + band) if sys.argv[3] == "hud" else (top, h - top)
share = img.fraction(colour, box=(0, rows[0], w, rows[1]), tol=8)
print("size %dx%d scale %.3f: picture in rows %d..%d; rows %d..%d: %.4f of pixels %s, want %s" % (
    w, h, scale, top, h - top - 1, rows[0], rows[1] - 1, share, colour, need))
sys.exit(0 if share >= float(need) else 1)
PY
}

out1=$work/out-one
vm_boot "$work/one.gz" "$out1" 240 $verbose
t_one=$(elapsed "$t0")
echo "--- one screen (-vga std)"
# Checks that take more than one command (vm_check runs one).
no_wait() { vm_no_wait && ! vm_has VM-HEAD-TIMEOUT; }
not_game() { ! python3 "$VM_DIR/ppm.py" check "$VM_OUT/$1.ppm" --region 0,0,100%,6=$hud@0.9; }
# game_on NAME: dump NAME is the kiosk's picture: during a round (screen=demo or playing, see
# screen_at) the HUD band along the top; otherwise (a demo round ends after about 10 s) the
# start or round-over screen, mostly background; either when a round began or ended meanwhile.
game_on() {
    case $(screen_at "$1") in
        round) round_shown "$1" ;;
        other) between_rounds_shown "$1" ;;
        *) round_shown "$1" || between_rounds_shown "$1" ;;
    esac
}
round_shown() { vm_dump "$1" --expect graphics --region 0,0,100%,6=$hud@0.9; }
between_rounds_shown() { vm_dump "$1" --expect graphics --region 0,0,100%,100%=$background@0.5; }
# screen_at NAME: "round" when the status lines before and after dump NAME (snap) both say a
# round was in play, "other" when neither does, "either" when a round began or ended between.
screen_at() {
    local before after
    before=$(in_round "$1") after=$(in_round "$1-after")
    if [ "$before" = "$after" ]; then echo "$before"; else echo either; fi
}
in_round() {
    if grep -E "^HOTPLUG-NOW $1 " "$VM_LOG" | tail -n1 | grep -qE 'screen=(demo|playing) '; then
        echo round
    else
        echo other
    fi
}
waiting() { alive_at "$1" && vm_status_is "$1" 'display_state=no-screen'; }
clear_status() { vm_status_is "$1" 'frames=[1-9]' && ! vm_status_is "$1" 'display_state='; }
size_is() { local info; info=$(python3 "$VM_DIR/ppm.py" info "$VM_OUT/$1.ppm") && grep -q "^size $2\$" <<< "$info"; }
heads_line() { vm_has "^HEADS\\| $1 card0-$2 status=$3"; }

vm_check "VM ran the scenario to VM-TEST-END rc=0" vm_ran_ok
vm_check "no wait in the guest timed out" no_wait
vm_check "sysfs: echo off forces Virtual-1 disconnected" vm_has '^HOTPLUG-SYSFS probe-off status=disconnected'
vm_check "sysfs: echo detect gives it back (connected)" vm_has '^HOTPLUG-SYSFS probe-detect status=connected'
vm_check "sysfs: the status writes send no uevent (as README.md says of this kernel)" \
    vm_has '^HOTPLUG-SYSFS status writes sent 0 uevents'
vm_check "sysfs: echo change > card0/uevent reaches a netlink listener (change of card0, no HOTPLUG=1)" \
    bash -c "grep -q '^HOTPLUG-SYSFS the change write sent 1 uevents' '$VM_LOG' &&
             grep -qE '^UEVENTS\| change /devices/.*/drm/card0\s*\$' '$VM_LOG'"
vm_check "a: with no screen the kiosk says it is waiting for a display" vm_has '^a\| .*waiting for a display'
vm_check "a: it keeps running, its status line says display_state=no-screen" waiting a-waiting
vm_check "a: nothing of the game on screen while waiting" not_game a-waiting
vm_check "a: plugged in, the game is drawn within 10 s" back_within a-back 10
vm_check "a: the game is on screen (HUD band along the top)" game_on a-back
vm_check "a: still running once the screen is back" alive_at a-back
vm_check "a: the status line has no display_state once the screen is back" clear_status a-back
vm_check "b: the demo round is playing before the unplug" vm_status_is b-before 'screen=demo '
vm_check "b: unplugged mid-round: display_state=no-screen, still running" waiting b-off
vm_check "b: plugged back in, the game is drawn within 10 s" back_within b-back 10
vm_check "b: the game is on screen again" game_on b-back
vm_check "b: still running, the status line clear again" clear_status b-back
vm_check "a+b: the same pid at every checkpoint" same_pid 'a-|b-'
vm_check "a+b: exit 0 on SIGTERM" vm_exited_ok a
vm_check "a+b: no crash" vm_no_crash a
vm_check "c: the tap on Start starts a round" vm_status_is c-playing 'screen=playing score=0 '
vm_check "c: unplugged and back: the kiosk draws again within 10 s" back_within c-back 10
vm_check "c: taps after the replug count: screen=playing score=$tap_SCORE bubbles=$tap_REMAINING/$tap_TOTAL" \
    vm_status_is c-popped "screen=playing score=$tap_SCORE bubbles=$tap_REMAINING/$tap_TOTAL "
popped_shown() {
    [ -f "$out1/c-popped.ppm" ] || { echo "no screendump c-popped (part c stopped before it)"; return 1; }
    vm_shown c-popped "$work/tap.state.json" 0 "$(vm_first_ids $pops)"
}
vm_check_show "c: the popped bubbles are gone from the screen, the rest drawn where state puts them" popped_shown
vm_check "c: still running after the taps" alive_at c-end
vm_check "c: exit 0 on SIGTERM" vm_exited_ok c
vm_check "c: no crash" vm_no_crash c
vm_png_copies
log_one=$VM_LOG

out2=$work/out-two
vm_boot "$work/two.gz" "$out2" 240 --gpu virtio:2 $verbose
t_two=$(elapsed "$t0")
echo "--- two screens (virtio-gpu, max_outputs=2)"
vm_check "VM ran the scenario to VM-TEST-END rc=0" vm_ran_ok
vm_check "all kernel modules loaded (virtio_pci, virtio_gpu...)" vm_modules_loaded
vm_check "no wait in the guest timed out" no_wait
vm_check "boot: Virtual-1 connected" heads_line boot Virtual-1 connected
vm_check "boot: Virtual-2 disconnected" heads_line boot Virtual-2 disconnected
vm_check "vm-head: QEMU plugs head 1 in: Virtual-2 connected, enabled, 1024x768 preferred" \
    vm_has '^HEADS\| d-plugged card0-Virtual-2 status=connected enabled=enabled modes=1024x768 '
vm_check "vm-head: the plug is a HOTPLUG=1 uevent" vm_has '^UEVENTS\| change /devices/.*/drm/card0 HOTPLUG=1'
vm_check "d: head 0 shows the game (HUD band along the top)" game_on d-head0
vm_check "d: head 1's dump is 1024x768" size_is d-head1 1024x768
vm_check "d: head 1 shows the game" vm_dump d-head1 --expect graphics
vm_check_show "d: head 1's picture is the game scaled and letterboxed (the HUD band at the top of the picture in a round)" \
    letterboxed d-head1
vm_check "d: sysfs unplug: Virtual-2 disconnected" heads_line d-off Virtual-2 disconnected
vm_check "d: head 0 still plays (HUD band)" game_on d-off-head0
vm_check "d: the kiosk runs on, its status line clear" clear_status d-off
vm_check "e: echo detect: Virtual-2 connected again" heads_line e-detect Virtual-2 connected
vm_check "e: head 1 shows the game again" vm_dump e-back-head1 --expect graphics
vm_check_show "e: head 1 letterboxed again" letterboxed e-back-head1
vm_check "e: QEMU's unplug of head 1 (HOTPLUG=1): Virtual-2 disconnected" heads_line e-unplugged Virtual-2 disconnected
vm_check "e: head 0 still plays (HUD band)" game_on e-gone-head0
vm_check "e: the kiosk runs on" alive_at e-gone
vm_check "f: a main monitor of another size: the kiosk shows on Virtual-1 at 1024x768" \
    vm_status_is f-resized 'display=drm:/dev/dri/card0:Virtual-1:1024x768@[0-9]+ '
vm_check "f: the game is laid out again for it (the log says so)" \
    vm_has '^d\| bubble-kiosk: display drm:/dev/dri/card0:Virtual-1:1024x768@[0-9]+: now 1024x768 at '
vm_check "f: head 0's dump is 1024x768 and shows the game" \
    bash -c "python3 '$VM_DIR/ppm.py' info '$VM_OUT/f-resized-head0.ppm' | grep -q '^size 1024x768\$'"
vm_check "f: head 0 shows the game filling the new size" game_on f-resized-head0
vm_check "d+e+f: the same pid at every checkpoint" same_pid 'd-|e-|f-'
vm_check "d+e+f: exit 0 on SIGTERM" vm_exited_ok d
vm_check "d+e+f: no crash" vm_no_crash d
vm_png_copies

echo "--- from the guests"
grep -hE '^HOTPLUG-(STEP|STATUS|NOW|ALIVE|SYSFS|BACK|EXIT|WAIT)|^HEADS\||^UEVENTS\||^[acd]\| bubble-kiosk' "$log_one" "$VM_LOG" || true
echo "--- timings: build ${t_build} s, recordings ${t_gen} s, initramfs ${t_initrd} s, one screen until ${t_one} s, two screens until ${t_two} s"
echo "--- artifacts: $work (out-one/, out-two/: serial.log, *.ppm, *.png)"
vm_summary hotplug-test
