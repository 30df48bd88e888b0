#!/bin/bash
# HDMI-CEC TV control on a real kernel (QEMU): vivid's two emulated CEC adapters, wired to each
# other. /dev/cec0 plays the TV (`cec-ctl --tv`, cec-follower, `cec-ctl --monitor` logging the
# bus); the kiosk runs on the DRM display with a uinput touchscreen and `[display] cec =
# /dev/cec1` (vivid's "vid-out0", physical address 1.0.0.0), asleep all day by its schedule.
#
# usage: Tests/vm/cec-test.sh [--binary PATH] [--workdir DIR] [--verbose] [--stand-in]
#   --binary PATH   test this bubble-kiosk (default: `make release`); it runs on the host too, to
#                   print the tap on Start the guest plays
#   --workdir DIR   generated files, initramfs, serial.log (default: /tmp/vm-cec.*)
#   --verbose       echo the guest's serial console while it runs, and every check's details
#   --stand-in      no kiosk: cec-ctl and a cec-follower on /dev/cec1 play its part on the bus
#                   (claim, Standby, Image View On + Active Source, the answers), to check the
#                   harness itself; the checks on the kiosk's own log are skipped
# One boot (about a minute): the TV side starts; the kiosk claims Playback Device 1 (logical
# address 4) with its OSD name and, asleep after its first frame, sends Standby to the TV, which
# goes to standby; a tap wakes it: Image View On to the TV, then Active Source 1.0.0.0, and the TV
# goes on; the TV asks its OSD name and power status (on awake, standby asleep); the TV's own
# Standby broadcast puts the kiosk's display to sleep (log, DPMS, status line); another tap turns
# the TV on again; vivid unbound mid-run (the adapters go, as a USB CEC adapter pulled out): the
# kiosk says the adapter is gone and plays on (a tap on Start starts a round); exit 0, no crash.
# The TV's power state is what cec-follower broadcasts on the bus when it changes
# (REPORT_POWER_STATUS to all: to-standby about 1 s after Standby, standby 6 s later; to-on about
# 1 s after Image View On, on 8 s later) and its own "Changing state to ..." lines.
# Ends with "vm-test-cec: N passed, N failed"; exit 0 only when nothing failed.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

seed=7 standin=0
vm_test_args '--stand-in:standin=1' "$@"
work=$(vm_workdir "$work" cec)
t0=$(now)

need_host_packages python3 v4l-utils
"$VM_DIR/kernel.sh" > /dev/null
kiosk_files=()
vm_test_dir "$seed"
echo "STANDIN=$standin" >> "$gen/params"
if [ "$standin" = 0 ]; then
    binary=$(vm_kiosk_binary "$binary")
    # The tap on Start (round-recording's first touch) and its touchscreen; a config without the
    # CEC keys for the host's side, so an older binary there says nothing about them.
    printf '[display]\npx_per_mm = 4\n\n[attract]\ndemo = false\n' > "$work/game.conf"
    vm_recording start --seed "$seed" --size 1280x800 --config "$work/game.conf" --pop 0
    vm_header "$work/start.evemu" > "$gen/touch.desc"
    # Asleep all day (a touch keeps it awake for a minute after the latest one), no demo, no
    # sound card to look for, the adapter named (vivid has two, and neither says which connector
    # it belongs to).
    printf '[display]\npx_per_mm = 4\nsleep_schedule = 00:00-24:00\ncec = /dev/cec1\n\n[attract]\ndemo = false\n\n[sounds]\nenabled = false\n' \
        > "$gen/cec.conf"
    kiosk_files=(--binary "$binary")
fi
t_gen=$(elapsed "$t0")

vm_test_files "$gen"/*
"$VM_DIR/build-initramfs.sh" --out "$work/initrd.gz" --scenario "$VM_DIR/cec/scenario.sh" \
    ${kiosk_files[@]+"${kiosk_files[@]}"} --binary /usr/bin/cec-ctl --binary /usr/bin/cec-follower \
    --module vivid "${VM_FILES[@]}"
t_initrd=$(elapsed "$t0")

out=$work/out
vm_boot "$work/initrd.gz" "$out" 200 $verbose
t_vm=$(elapsed "$t0")

# --- the bus log, cut at the guest's marks ------------------------------------------------------
VM_TAG=CEC
# bus_log: the monitor's messages one a line, "N<TAB>MESSAGE", N the line of the bus log where the
# message starts; its indented operand lines are joined on with single spaces, e.g.
#   Received from Playback Device 1 to all (4 to 15): ACTIVE_SOURCE (0x82): phys-addr: 1.0.0.0
bus_log() {
    vm_lines MON | tr -d '\r' | awk '
        function flush() { if (m != "") print n "\t" m; m = "" }
        /^(Received|Transmitted) / { flush(); n = NR; m = $0; next }
        /^[ \t]/ && m != "" { sub(/^[ \t]+/, ""); m = m " " $0; next }
        { flush() }
        END { flush() }'
}
bus_log > "$work/bus.txt"
# mark NAME: the bus log's length at the guest's mark NAME (begin: 0, end: all of it).
mark() {
    case $1 in begin) echo 0; return ;; end) echo 999999999; return ;; esac
    grep -E "^CEC-MARK $1 lines=" "$VM_LOG" | tail -n1 | sed -E 's/.*lines=([0-9]+).*/\1/'
}
# bus_between A B: the messages after mark A up to mark B.
bus_between() {
    local a b
    a=$(mark "$1") b=$(mark "$2")
    [ -n "$a" ] && [ -n "$b" ] || { echo "(no mark $1 or $2 in the serial log)"; return 1; }
    awk -F'\t' -v a="$a" -v b="$b" '$1 > a && $1 <= b { sub(/^[0-9]+\t/, ""); print }' "$work/bus.txt"
}
# bus_in_order A B REGEX...: messages between marks A and B match the regexes in this order (on
# failure: what was looked for and the messages there).
bus_in_order() {
    local a=$1 b=$2 re seg rest
    shift 2
    seg=$(bus_between "$a" "$b") || { echo "$seg"; return 1; }
    rest=$seg
    for re in "$@"; do
        if ! grep -qE -- "$re" <<< "$rest"; then
            echo "not found after the messages before it: $re"
            echo "messages on the bus between marks $a and $b:"
            sed 's/^/  /' <<< "$seg" | head -n 40
            return 1
        fi
        # (The regex reaches awk through the environment: -v would take its backslashes as escapes.)
        rest=$(RE=$re awk 'found { print } !found && $0 ~ ENVIRON["RE"] { found = 1 }' <<< "$rest")
    done
}
# bus_none A B REGEX: no message between marks A and B matches.
bus_none() {
    local seg
    seg=$(bus_between "$1" "$2") || { echo "$seg"; return 1; }
    ! grep -E -- "$3" <<< "$seg"
}
# answer NAME REGEX: the TV's question NAME (Q-NAME| lines, cec-ctl's output, whitespace squeezed)
# got an answer that matches.
answer() {
    local text
    text=$(vm_lines "Q-$1" | tr -d '\r' | tr -s ' \t\n' ' ')
    grep -qE -- "$2" <<< "$text" || { echo "cec-ctl printed: $text"; return 1; }
}
# (Output read whole before grep -q: under pipefail a grep that stops at its match would fail the
# pipe on SIGPIPE.)
tvf_has() { grep -qE -- "$2" <<< "$(vm_lines "$1" | tr -d '\r')"; }

# What the kiosk must put on the bus and answer (cec-ctl --monitor's wording on the TV's side).
from_kiosk='Received from Playback Device 1'
re_claim="^$from_kiosk to all \\(4 to 15\\): REPORT_PHYSICAL_ADDR \\(0x84\\): phys-addr: 1\\.0\\.0\\.0 prim-devtype: playback \\(0x04\\)\$"
re_standby="^$from_kiosk to TV \\(4 to 0\\): STANDBY \\(0x36\\)\$"
re_ivo="^$from_kiosk to TV \\(4 to 0\\): IMAGE_VIEW_ON \\(0x04\\)\$"
re_as="^$from_kiosk to all \\(4 to 15\\): ACTIVE_SOURCE \\(0x82\\): phys-addr: 1\\.0\\.0\\.0\$"
re_tv_power='^Transmitted by TV to all \(0 to 15\): REPORT_POWER_STATUS \(0x90\): pwr-state: '
re_osd='Received from Playback Device 1 \(4\): SET_OSD_NAME \(0x47\): name: bubble-kiosk '
re_pwr='Received from Playback Device 1 \(4\): REPORT_POWER_STATUS \(0x90\): pwr-state: '

# The kiosk's own checks (its log, its process): skipped with --stand-in, which runs no kiosk.
VM_SKIPPED=0
kiosk_check() {
    if [ "$standin" = 1 ]; then VM_SKIPPED=$((VM_SKIPPED + 1)); echo "skip $1 (no kiosk with --stand-in)"; return 0; fi
    vm_check "$@"
}
kiosk_log_in_order() { vm_in_order cec "$@"; }
alive_at() { vm_has "^CEC-ALIVE $1 pid=[0-9]+ yes"; }
awake_status() { vm_status_is "$1" 'screen=start ' && ! vm_status_is "$1" 'display_state=asleep'; }
standin_has() { tvf_has STANDIN "$1"; }
# claimed: cec-ctl's adapter info on /dev/cec1 once the claim was seen (ADAP1| lines).
claimed() {
    local info
    info=$(vm_lines ADAP1 | tr -d '\r')
    grep -qE 'Adapter Name +: vivid-000-vid-out0' <<< "$info" && grep -qE 'Physical Address +: 1\.0\.0\.0' <<< "$info" &&
        grep -qE 'Logical Address +: 4 \(Playback Device 1\)' <<< "$info" && grep -qE 'Primary Device Type +: Playback' <<< "$info" &&
        grep -qE "OSD Name +: 'bubble-kiosk'" <<< "$info" || { echo "$info"; return 1; }
}
# tap3_played: the start screen (awake) before the tap after the unbind, a round after it.
tap3_played() { awake_status before-tap3 && vm_status_is after-tap3 'screen=playing '; }
# The stand-in's part of a check that the kiosk's log makes with the kiosk.
standin_check() { if [ "$standin" = 1 ]; then vm_check "$@"; fi; }

echo "--- harness"
vm_check "VM ran the scenario to VM-TEST-END rc=0" vm_ran_ok
vm_check "all kernel modules loaded (vivid, cec and theirs)" vm_modules_loaded
vm_check "no wait in the guest timed out" vm_no_wait
vm_check "/dev/cec0 is vivid's vid-cap0 at 0.0.0.0 (the TV's side)" \
    bash -c "grep -qE '^ADAP0\| .*Adapter Name +: vivid-000-vid-cap0' '$VM_LOG' &&
             grep -qE '^ADAP0\| .*Physical Address +: 0\.0\.0\.0' '$VM_LOG'"
vm_check "the TV announced itself: logical address 0, 0.0.0.0" \
    bus_in_order begin start '^Transmitted by TV to all \(0 to 15\): REPORT_PHYSICAL_ADDR \(0x84\): phys-addr: 0\.0\.0\.0 prim-devtype: tv'
vm_check "the TV's follower runs (cec-follower polled the bus)" \
    bus_in_order begin start '^Transmitted by TV to Specific \(0 to 14\): POLL'

echo "--- the claim"
vm_check_show "/dev/cec1 is vivid's vid-out0 at 1.0.0.0 with logical address 4 (Playback Device 1), OSD name 'bubble-kiosk'" \
    claimed
vm_check_show "the claim is announced on the bus: Report Physical Address 1.0.0.0, playback" \
    bus_in_order start asleep1 "$re_claim"
kiosk_check "the kiosk logs its logical address 4" vm_has '^cec\| .*logical address 4'

echo "--- asleep after the first frame: Standby to the TV"
kiosk_check "the kiosk's display sleeps after its first frame (schedule 00:00-24:00)" \
    kiosk_log_in_order 'first frame on screen' 'display asleep \(schedule 00:00-24:00\)'
vm_check_show "Standby to the TV (4 to 0) after the claim" bus_in_order start asleep1 "$re_claim" "$re_standby"
vm_check_show "the TV goes to standby: it reports to-standby, then standby" \
    bus_in_order start asleep1 "$re_standby" "${re_tv_power}to-standby" "${re_tv_power}standby \\(0x01\\)"
vm_check "the TV's follower says it changed state to standby" tvf_has TVF '^>>> Changing state to standby'
vm_check_show "asleep from its first frame, it does not turn the TV on (no Image View On or Active Source before the tap)" \
    bus_none start tap1 "$re_ivo|$re_as"
vm_check_show "asked by the TV while asleep, the power status is standby" answer pwr-asleep1 "${re_pwr}standby \\(0x01\\)"

echo "--- a tap wakes it: Image View On, then Active Source"
kiosk_check "the tap wakes the display (and is not played)" \
    kiosk_log_in_order 'display asleep' 'display awake \(a touch; it is not played\)'
vm_check_show "Image View On to the TV, then Active Source 1.0.0.0 to all" bus_in_order tap1 awake1 "$re_ivo" "$re_as"
vm_check_show "the TV goes on: it reports to-on" bus_in_order tap1 awake1 "$re_ivo" "${re_tv_power}(to-on|on)"
vm_check "the TV's follower says it changed state to on, and took 1.0.0.0 as the active source" \
    vm_in_order TVF '^>>> Changing state to standby' '^>>> Changing state to on' '^>>> New active source: 1\.0\.0\.0'
kiosk_check "awake: the status line shows the start screen, not asleep" awake_status awake1
kiosk_check "bubble-kiosk devices: the kiosk's adapter with its addresses and OSD name" \
    vm_has '^DEVA\|   /dev/cec1 \(vivid, vivid-000-vid-out0\): physical address 1\.0\.0\.0, logical address 4 \(Playback Device 1\) "bubble-kiosk"'
kiosk_check "bubble-kiosk devices: the TV's power, asked through the kiosk's adapter, is on" vm_has '^DEVA\|       TV power: (on|turning-on)'
kiosk_check "bubble-kiosk devices: the TV's own adapter is said to be the TV's, not asked" \
    vm_has '^DEVA\|       TV power: this adapter is the TV'
vm_check_show "asked by the TV, the OSD name is bubble-kiosk" answer osd-awake1 "$re_osd"
vm_check_show "asked by the TV while awake, the power status is on" answer pwr-awake1 "${re_pwr}on \\(0x00\\)"

echo "--- the TV's Standby broadcast puts the kiosk to sleep"
vm_check "the TV broadcast Standby (0 to 15)" \
    bus_in_order tvstandby tap2 '^Transmitted by TV to all \(0 to 15\): STANDBY \(0x36\)$'
standin_check "the broadcast reached /dev/cec1 (the stand-in's follower went to standby)" \
    standin_has '^>>> Changing state to standby'
kiosk_check "the kiosk logs that the TV went to standby, then its display sleeps" \
    kiosk_log_in_order 'display awake' 'the TV went to standby' 'display asleep'
kiosk_check "DPMS reads off (bubble-kiosk devices)" vm_has '^DEV\| .*power \(DPMS\): off'
kiosk_check "the status line says display_state=asleep" vm_status_is asleep-tv 'display_state=asleep'
vm_check_show "asked by the TV after its Standby, the power status is standby" answer pwr-asleep2 "${re_pwr}standby \\(0x01\\)"

echo "--- another tap: the TV on again"
kiosk_check "the tap wakes the display again" \
    kiosk_log_in_order 'the TV went to standby' 'display asleep' 'display awake \(a touch; it is not played\)'
vm_check_show "Image View On, then Active Source 1.0.0.0" bus_in_order tap2 awake2 "$re_ivo" "$re_as"
vm_check_show "the TV (restarted in standby) goes on: it reports to-on" bus_in_order tap2 awake2 "$re_ivo" "${re_tv_power}(to-on|on)"
vm_check "the TV's follower (in standby) says it changed state to on, and took 1.0.0.0 as the active source" \
    vm_in_order TVF2 '^>>> Changing state to on' '^>>> New active source: 1\.0\.0\.0'
kiosk_check "awake again: the start screen, not asleep" awake_status awake2

echo "--- the adapter goes (vivid unbound): the kiosk plays on"
vm_check "the adapters are gone: the TV's monitor saw it" \
    bash -c "grep -qE '^CEC-INFO unbind rc=0 adapters left: *\$' <(tr -d '\\r' < '$VM_LOG') &&
             grep -qE '^MON\| Device was disconnected' '$VM_LOG'"
standin_check "the stand-in's follower saw its adapter go" standin_has '^Device was disconnected'
kiosk_check "the kiosk logs that the adapter is gone" kiosk_log_in_order 'the TV went to standby' 'display awake' 'is gone'
kiosk_check "the kiosk is still running after the unbind" alive_at unbind
kiosk_check "a tap on Start after the unbind starts a round (start screen, then playing)" tap3_played
kiosk_check "still running after that tap" alive_at after-tap3
kiosk_check "exit 0 on SIGTERM" vm_exited_ok cec
kiosk_check "no crash (no Fatal error in its log)" vm_no_crash cec

if [ "$VM_FAILED" -gt 0 ]; then
    echo "--- the bus (cec-ctl --monitor on the TV's adapter), one message a line, at the guest's marks"
    for m in start asleep1 tap1 awake1 tvstandby tap2 awake2 unbind; do
        echo "  [$m at line $(mark $m)]"
    done
    sed -E 's/^([0-9]+)\t/  \1: /' "$work/bus.txt" | grep -v ': POLL' | tail -n 60
    if [ "$standin" = 0 ]; then
        echo "--- the kiosk's log (last 40 lines)"
        vm_lines cec | tail -n 40 | sed 's/^/  /'
    fi
fi
echo "--- guest steps (uptime in s)"
grep -E '^CEC-(STEP|MARK|INFO|STATUS|ALIVE|EXIT|WAIT)' "$VM_LOG" | tr -d '\r' | sed 's/^/  /' || true
echo "--- timings: files ${t_gen} s, initramfs ${t_initrd} s, total ${t_vm} s"
echo "--- artifacts: $work (out/serial.log, bus.txt: the bus one message a line)"
[ "$VM_SKIPPED" = 0 ] || echo "($VM_SKIPPED checks of the kiosk's log and process skipped: --stand-in runs no kiosk)"
vm_summary vm-test-cec
