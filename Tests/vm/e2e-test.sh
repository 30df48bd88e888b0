#!/bin/bash
# The kiosk end to end on a real kernel (QEMU, bochs-drm, uinput): the release binary on
# /dev/dri/card0 with evdev input, driven by evemu-play through a real multi-touch device that
# evemu-device makes. Checks, from the serial log, that the touches reached the game (score,
# bubbles left) and, from QMP screendumps, that the kernel's display shows the game: bubble
# colours where `state` says bubbles are, background where they were popped.
#
# usage: Tests/vm/e2e-test.sh [--binary PATH] [--workdir DIR] [--verbose] [--seed N] [--pop K]
#   --binary PATH   test this bubble-kiosk (default: `make release`, .build/release/bubble-kiosk);
#                   it runs on the host too, to print the rounds and recordings the test uses
#   --workdir DIR   generated files, initramfs, serial.log, screendumps (default: /tmp/vm-e2e.*)
#   --verbose       echo the guest's serial console while it runs, and every check's details
#   --seed N        the round's seed (default 7); --pop K: bubbles popped per rotation (default 4)
# Scenarios (Tests/vm/e2e/scenario.sh), in one boot: at rotation 0, 90, 180 and 270 tap Start
# and pop the first K bubbles (rotation 0 then pops the rest: round over, with the bonus);
# unplug the touchscreen mid-drag and play on a second one; on tty1, switch VTs away and back
# (at rest, and while the game goes on), pop a bubble, and recover after another program held
# DRM master meanwhile; display sleep by a schedule over the guest's time (DPMS off read back
# with `devices`, no frames, a tap wakes it and is not played); the console is back at the end.
# Ends with "e2e-test: N passed, N failed"; exit 0 only when nothing failed.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

seed=7 pops=4
vm_test_args '--seed=seed --pop=pops' "$@"
case "$seed$pops" in *[!0-9]*) die "--seed and --pop take numbers" ;; esac
[ "$pops" -ge 1 ] && [ "$pops" -le 8 ] || die "--pop takes 1..8 (some bubbles must stay on screen)"
work=$(vm_workdir "$work" e2e)
t0=$(now)

need_host_packages python3 gcc libc6-dev libdrm-dev pkg-config
"$VM_DIR/kernel.sh" > /dev/null
t_kernel=$(elapsed "$t0")

binary=$(vm_kiosk_binary "$binary")
t_build=$(elapsed "$t0")

# --- what the guest plays and what the host expects, from the binary under test -----------
# One config for both sides: the VM's connector reports 320x200 mm (4 px/mm), and this says so
# explicitly so `state` on the host lays out exactly the kiosk's round; no demo round.
vm_test_dir "$seed"
unplug_pops=2                           # device B pops bubbles 0..1 after A was cut mid-drag
for r in 0 90 180 270; do
    case $r in 90|270) size=800x1280 ;; *) size=1280x800 ;; esac
    printf '[display]\npx_per_mm = 4\nrotation = %s\n\n[attract]\ndemo = false\n' "$r" > "$gen/rot$r.conf"
    "$binary" state --seed "$seed" --size $size --config "$gen/rot$r.conf" > "$work/rot$r.state.json"
    vm_recording "rot$r-pop" --seed "$seed" --size $size --config "$gen/rot$r.conf" --pop "$pops" --rotation $r
    vm_header "$work/rot$r-pop.evemu" > "$work/rot$r.desc"
    vm_expect "rot$r" "$work/rot$r.state.json" "$pops"
done
vm_header "$work/rot0-pop.evemu" > "$gen/touch.desc"
sed 's/^N: .*/N: bubble-kiosk second touchscreen/' "$gen/touch.desc" > "$gen/touch-b.desc"
# Rotation 0 goes on to clear the round: the whole round's recording minus what was played.
"$binary" round-recording --seed "$seed" --size 1280x800 --config "$gen/rot0.conf" > "$work/rot0-all.evemu"
vm_events "$work/rot0-all.evemu" > "$work/rot0-all.events"
n=$(wc -l < "$gen/rot0-pop.events")
tail -n +$((n + 1)) "$work/rot0-all.events" > "$gen/rot0-rest.events"
total=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["bubbles"]))' "$work/rot0.state.json")
vm_expect all "$work/rot0.state.json" "$total"
# Unplug: Start on A, then a drag along a swipe bubble's arrow that never lifts (A is unplugged
# meanwhile: the cut drag must not pop it), then B pops bubbles 0..1.
dragged=$(vm_bubbles pick-drag "$work/rot0.state.json" $unplug_pops)
vm_recording unplug-start --seed "$seed" --size 1280x800 --config "$gen/rot0.conf" --pop 0
vm_bubbles drag "$work/rot0.state.json" "$dragged" 0 > "$gen/unplug-drag.events"
# The same drag lifted where the guest cuts it (1 s in), replayed on the host: it is a swipe
# that pops the bubble, so the cut drag not popping it means something.
{ cat "$gen/touch.desc"; awk '$2 <= 1.0' "$gen/unplug-drag.events"
  printf 'E: 1.016000 0003 0039 -1\nE: 1.016000 0001 014a 0\nE: 1.016000 0000 0000 0\n'; } > "$work/unplug-lifted.evemu"
"$binary" play "$work/unplug-lifted.evemu" --seed "$seed" --size 1280x800 --config "$gen/rot0.conf" \
    > "$work/unplug-lifted.json" || true
vm_recording unplug-b --seed "$seed" --size 1280x800 --config "$gen/rot0.conf" --pop $unplug_pops --no-start
vm_expect unplug "$work/rot0.state.json" $unplug_pops
# VT switching: after the switches, a touch pops bubble 0. drmcheck (the selftest's DRM client)
# is the other program that takes DRM master while the kiosk is switched away.
vm_recording vt-pop --seed "$seed" --size 1280x800 --config "$gen/rot0.conf" --pop 1 --no-start
vm_expect vt "$work/rot0.state.json" 1
gcc -O2 -Wall -o "$work/drmcheck" "$VM_DIR/selftest/drmcheck.c" $(pkg-config --cflags --libs libdrm)
. "$work/expected.sh"
t_gen=$(elapsed "$t0")

vm_test_files "$gen"/*
"$VM_DIR/build-initramfs.sh" --out "$work/initrd.gz" --scenario "$VM_DIR/e2e/scenario.sh" \
    --binary "$binary" --binary "$work/drmcheck" "${VM_FILES[@]}"
t_initrd=$(elapsed "$t0")

out=$work/out
vm_boot "$work/initrd.gz" "$out" 270 $verbose
t_vm=$(elapsed "$t0")

# --- assertions (vm_check and friends: lib.sh) ----------------------------------------------
VM_TAG=E2E
no_crash() { vm_no_crash "$1" 'restoring the screen'; }   # a failed restore counts too
display_re='drm:/dev/dri/card0:Virtual-1:1280x800@75'
touch_re='input: using /dev/input/event[0-9]+ "bubble-kiosk virtual touchscreen" \(multi-touch protocol B, 10 slots\)'

vm_check "host: round-recording describes the same 1280x800 panel at every rotation" \
    bash -c "cmp -s '$work/rot0.desc' '$work/rot90.desc' && cmp -s '$work/rot0.desc' '$work/rot180.desc' &&
             cmp -s '$work/rot0.desc' '$work/rot270.desc'"
vm_check "host: the first $pops pops are the start of the whole round's recording" \
    bash -c "head -n $n '$work/rot0-all.events' | cmp -s - '$gen/rot0-pop.events' && [ -s '$gen/rot0-rest.events' ]"
vm_check "host: the unplug drag, had it lifted, would pop bubble $dragged (bubble-kiosk play)" \
    grep -qE "\"id\":$dragged,\"popped\":true" "$work/unplug-lifted.json"
vm_check "host: the round has a drag bubble, which rot0's rest drags into the goal (bubble-kiosk play)" \
    bash -c "grep -q '\"kind\":\"drag\"' '$work/rot0.state.json' && grep -q '\"goal\":{' '$work/rot0.state.json' &&
             '$binary' round-recording --seed '$seed' --size 1280x800 --config '$gen/rot0.conf' --no-start > '$work/rot0-play.evemu' &&
             '$binary' play '$work/rot0-play.evemu' --seed '$seed' --size 1280x800 --config '$gen/rot0.conf' |
             grep -qE '\"popped\":true,\"taps_left\":0,\"kind\":\"drag\"'"
vm_check "VM ran the scenario to VM-TEST-END rc=0" vm_ran_ok
vm_check "all kernel modules loaded" vm_modules_loaded
vm_check "no step timed out in the guest" vm_no_wait

for r in 0 90 180 270; do
    eval "score=\$rot${r}_SCORE left=\$rot${r}_REMAINING all=\$rot${r}_TOTAL"
    rot_re=
    [ $r != 0 ] && rot_re=":rot$r"
    vm_check "rot$r: the kiosk drives card0 in the preferred mode${rot_re:+ (rot$r)}" \
        vm_in_order "rot$r" "^bubble-kiosk: display $display_re$rot_re, input evdev"
    vm_check "rot$r: the uinput touchscreen is used" vm_in_order "rot$r" "$touch_re"
    vm_check "rot$r: Start tapped, $pops bubbles popped: screen=playing score=$score bubbles=$left/$all" \
        vm_status_is "rot$r-mid" "screen=playing score=$score bubbles=$left/$all input=evdev:all\(1\) display=$display_re$rot_re "
    vm_check "rot$r: the screen is the game, not the text console" vm_dump "rot$r-mid" --expect graphics
    vm_check_show "rot$r: the $left bubbles left are drawn where state puts them (mapped for rotation $r), the $pops popped ones are gone" \
        vm_shown "rot$r-mid" "$work/rot$r.state.json" $r "$(vm_first_ids "$pops")"
    vm_check_show "rot$r: the goal basket is drawn where state puts it" \
        vm_bubbles goal "$out/rot$r-mid.ppm" "$work/rot$r.state.json" $r
    if [ $r = 0 ]; then
        vm_check "rot0: the rest popped too: screen=round-over score=$all_SCORE (with the 50 bonus) bubbles=0/$all_TOTAL" \
            vm_status_is rot0-end "screen=round-over score=$all_SCORE bubbles=0/$all_TOTAL "
        vm_check "rot0: the round-over screen is shown" vm_dump rot0-end --expect graphics
    fi
    vm_check "rot$r: SIGTERM stops it with exit 0 and latency samples" \
        bash -c "grep -q '^E2E-EXIT rot$r rc=0' '$VM_LOG' && grep -qE '^rot$r\| stats: .*samples=[1-9]' '$VM_LOG'"
    vm_check "rot$r: no crash, the screen restored without error" no_crash "rot$r"
done

vm_check "unplug: device A's tap starts a round" \
    vm_in_order unplug "$touch_re as device 0" '^t=.*screen=playing .*input=evdev:all\(1\)'
vm_check "unplug: unplugged mid-drag, the device is released" \
    vm_in_order unplug 'screen=playing' 'input: /dev/input/event[0-9]+ gone \((unplugged|node removed)\); device 0 released'
vm_check "unplug: status lines go on without a touchscreen (score 0, no bubble popped by the cut drag)" \
    vm_status_is unplug-none "screen=playing score=0 bubbles=$all_TOTAL/$all_TOTAL input=evdev:all\(0\)"
vm_check "unplug: device B is used" \
    vm_in_order unplug 'gone \(' 'input: using /dev/input/event[0-9]+ "bubble-kiosk second touchscreen"'
vm_check "unplug: B's pops count: screen=playing score=$unplug_SCORE bubbles=$unplug_REMAINING/$unplug_TOTAL" \
    vm_status_is unplug-end "screen=playing score=$unplug_SCORE bubbles=$unplug_REMAINING/$unplug_TOTAL input=evdev:all\(1\)"
vm_check_show "unplug: bubbles 0-$((unplug_pops - 1)) gone, the rest (bubble $dragged, dragged when A went away, too) still shown" \
    vm_shown unplug-end "$work/rot0.state.json" 0 "$(vm_first_ids $unplug_pops)"
vm_check "unplug: exits 0 on SIGTERM" vm_exited_ok unplug
vm_check "unplug: no crash" no_crash unplug

# frames_at CHECKPOINT: the frame count in the status line reported there.
frames_at() { grep -E "^E2E-STATUS $1 " "$VM_LOG" | tail -n1 | sed -nE 's/.* frames=([0-9]+) .*/\1/p'; }
wakeups_at() { grep -E "^E2E-STATUS $1 " "$VM_LOG" | tail -n1 | sed -nE 's/.* wakeups=([0-9]+).*/\1/p'; }
vt_is() { vm_has "^E2E-VT $1 tty=$2(\\s|\$)"; }   # serial lines may end in CR
# same_frames A B: no frame drawn between checkpoints A and B; more_frames A B: some were.
same_frames() { [ -n "$(frames_at "$1")" ] && [ "$(frames_at "$1")" = "$(frames_at "$2")" ]; }
more_frames() { [ -n "$(frames_at "$1")" ] && [ -n "$(frames_at "$2")" ] && [ "$(frames_at "$2")" -gt "$(frames_at "$1")" ]; }
one_more_frame() { [ -n "$(frames_at "$1")" ] && [ "$(frames_at "$2")" = "$(( $(frames_at "$1") + 1 ))" ]; }
no_frames_away() { same_frames vt-back-idle vt-away-1 && same_frames vt-away-1 vt-away-2; }
away_wakeups() {   # wake-ups between the two status lines taken while away (one second apart)
    local a b; a=$(wakeups_at vt-away-1) b=$(wakeups_at vt-away-2)
    [ -n "$a" ] && [ -n "$b" ] && echo $((b - a))
}
stolen() { vt_is away-steal tty2 && vt_is back-stolen tty1 && vm_in_order drmcheck '^SELFTEST-DRM ok'; }
start_screen='--region 0,0,100%,100%=141F33@0.9'   # the start screen: background, the title and button

vm_check "vt: tty1 is the foreground VT at boot" vt_is boot tty1
vm_check "vt: the kiosk starts on tty1 and shows the start screen" vm_status_is vt-start 'screen=start '
vm_check "vt: chvt 2 completes (the kiosk let go of tty1)" vt_is away-idle tty2
vm_check "vt: switched away, the console shows, not the game" vm_dump vt-away-idle --expect console
vm_check "vt: chvt 1 completes" vt_is back-idle tty1
vm_check "vt: back at rest, the start screen is on screen again (repainted in full)" \
    vm_dump vt-back-idle --expect graphics $start_screen
vm_check "vt: exactly one frame for the way back at rest (frames $(frames_at vt-start) -> $(frames_at vt-back-idle))" \
    one_more_frame vt-start vt-back-idle
vm_check "vt: away, a tap on Start still plays (the game goes on): screen=playing" \
    vm_status_is vt-away-1 'screen=playing score=0 '
vm_check "vt: away, no frame is drawn (frames $(frames_at vt-back-idle), $(frames_at vt-away-1), $(frames_at vt-away-2))" \
    no_frames_away
vm_check "vt: away, the kiosk sleeps ($(away_wakeups) wake-ups in a second, at most 4)" \
    test "$(away_wakeups || echo 99)" -le 4
vm_check "vt: away while playing, the console shows" vm_dump vt-away --expect console
vm_check "vt: chvt 1 completes again" vt_is back tty1
vm_check "vt: back, frames are drawn again" more_frames vt-away-2 vt-back
vm_check_show "vt: back, the round started while away is on screen in full (all bubbles where state puts them)" \
    vm_shown vt-back "$work/rot0.state.json" 0 ""
vm_check "vt: after the switches a touch pops bubble 0: score=$vt_SCORE bubbles=$vt_REMAINING/$vt_TOTAL" \
    vm_status_is vt-pop "screen=playing score=$vt_SCORE bubbles=$vt_REMAINING/$vt_TOTAL input=evdev:all\(1\)"
vm_check_show "vt: bubble 0 gone on screen, the rest shown" vm_shown vt-pop "$work/rot0.state.json" 0 0
vm_check "vt: drmcheck took DRM master while the kiosk was away, then tty1 came back" stolen
vm_check "vt: back on tty1 while drmcheck is master: drmcheck's picture stays (red|blue)" \
    vm_dump vt-stolen --expect graphics --at 25%,50%=FF0000 --at 75%,50%=0000FF
vm_check "vt: the kiosk is refused master and says the display is lost" \
    vm_in_order vt 'display lost: .*drmSetMaster'
vm_check "vt: drmcheck gone, the kiosk retries, gets master back and draws" more_frames vt-stolen vt-recovered
vm_check_show "vt: recovered, the game is on screen in full again (bubble 0 still popped)" \
    vm_shown vt-recovered "$work/rot0.state.json" 0 0
vm_check "vt: exits 0 on SIGTERM" vm_exited_ok vt
vm_check "vt: no crash, no restore error" no_crash vt
vm_check "vt: tty1 is the foreground VT after the run" vt_is after tty1
vm_check "sleep: asleep (schedule) right after the first frame: screen off" \
    vm_in_order sleep 'first frame on screen' 'display asleep \(schedule [0-9]{2}:[0-9]{2}-[0-9]{2}:[0-9]{2}\): screen off'
vm_check "sleep: devices reads the connector's DPMS back through libdrm: off" \
    vm_has '^SLEEPDEV1\|       power \(DPMS\): off'
vm_check "sleep: the status line says so: screen=start ... display_state=asleep" \
    vm_status_is sleep-1 'screen=start .*display_state=asleep'
vm_check "sleep: no frame drawn while asleep (frames $(frames_at sleep-1), $(frames_at sleep-2))" \
    same_frames sleep-1 sleep-2
vm_check "sleep: a tap wakes it" vm_in_order sleep 'display asleep' 'display awake \(a touch; it is not played\)'
vm_check "sleep: DPMS reads on again after the touch" vm_has '^SLEEPDEV2\|       power \(DPMS\): on'
vm_check "sleep: frames drawn again ($(frames_at sleep-2) -> $(frames_at sleep-woken))" more_frames sleep-2 sleep-woken
vm_check "sleep: the waking tap on Start was no tap: still the start screen, awake" \
    bash -c "grep -E '^E2E-STATUS sleep-woken ' '$VM_LOG' | tail -n1 | grep -E 'screen=start score=0 ' | grep -qv 'display_state=asleep'"
vm_check "sleep: the start screen is on the display again" vm_dump sleep-woken --expect graphics $start_screen
vm_check "sleep: after the run the text console is back" vm_dump sleep-after --expect console
vm_check "sleep: exits 0 on SIGTERM, no crash" bash -c "grep -q '^E2E-EXIT sleep rc=0' '$VM_LOG' && ! grep -qE '^sleep\| .*(Fatal error|Segmentation|restoring the screen)' '$VM_LOG'"
vm_check "after the last run: the text console is back" vm_dump after-all --expect console

vm_png_copies
echo "--- status at each checkpoint"
grep -E '^E2E-STATUS ' "$VM_LOG" | sed 's/^E2E-STATUS /  /' || true
echo "--- input-to-screen latency on bochs-drm (evdev event time to page flip), per run"
for run in rot0 rot90 rot180 rot270 unplug vt sleep; do
    printf '  %-7s %s\n' "$run" "$(vm_lines "$run" | grep -E '^stats:' | tail -n1)"
done
echo "--- guest steps (uptime in s)"
grep -E '^E2E-(STEP|DEVICE|INFO|WAIT)' "$VM_LOG" | sed 's/^/  /' || true
echo "--- timings (s since the start): kernel ready ${t_kernel} s, binary ${t_build} s, recordings ${t_gen} s, initramfs ${t_initrd} s, total ${t_vm} s"
echo "--- artifacts: $work (test/ = what the guest got, *.state.json, out/serial.log, out/*.ppm and *.png)"
vm_summary e2e-test
