#!/bin/bash
# End-to-end test of evdev touch input on a real kernel (QEMU): bubble-kiosk with
# --input evdev against uinput devices made by evemu-device, on the virtual display.
#
# usage: Tests/vm/input-test.sh [--workdir DIR] [--verbose] [--binary PATH] [--scratch-path DIR]
#   --workdir DIR       initramfs, serial.log and other artifacts (default: a new /tmp/vm-input.* dir)
#   --verbose           echo the guest's serial console while it runs
#   --binary PATH       test this bubble-kiosk instead of building one
#   --scratch-path DIR  build with `swift build -c release --scratch-path DIR` (default: .build)
# Scenarios (Tests/vm/input/scenario.sh): a protocol B tap on Start and a kernel buffer overflow
# (SYN_DROPPED); no touchscreen at start, hotplug, unplug mid-drag, a second device; protocol A
# on a named, grabbed node; a single-touch panel; an absolute pointer like QEMU's tablet;
# `bubble-kiosk devices`; an ordinary user without, then with, access to the node.
# Ends with "N passed, N failed"; exit 0 only when nothing failed.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

work=${VM_WORK:-} verbose=--quiet binary= scratch=
while [ $# -gt 0 ]; do
    case "$1" in
        --workdir) work=$2; shift 2 ;;
        --verbose) verbose=; shift ;;
        --binary) binary=$2; shift 2 ;;
        --scratch-path) scratch=$2; shift 2 ;;
        -h|--help) sed -n '2,15p' "$0"; exit 0 ;;
        *) vm_die "unknown argument: $1" ;;
    esac
done
[ -n "$work" ] || work=$(mktemp -d /tmp/vm-input.XXXXXX)
mkdir -p "$work"
repo=$(cd "$VM_DIR/../.." && pwd)
src=$VM_DIR/input
t0=$(vm_now)

"$VM_DIR/kernel.sh" > /dev/null
t_kernel=$(vm_elapsed "$t0")

if [ -z "$binary" ]; then
    vm_need_pkgs pkg-config libevdev-dev libdrm-dev libcairo2-dev
    flags=(-c release)
    [ -n "$scratch" ] && flags+=(--scratch-path "$scratch")
    vm_log "swift build ${flags[*]}"
    (cd "$repo" && swift build "${flags[@]}" >&2)
    binary=$(cd "$repo" && swift build "${flags[@]}" --show-bin-path)/bubble-kiosk
fi
[ -x "$binary" ] || vm_die "no binary at $binary"
t_build=$(vm_elapsed "$t0")

files=(--file "$VM_DIR/selftest/touch.desc:/test/touch.desc")
for f in "$src"/*.desc "$src"/*.events "$src"/*.conf; do files+=(--file "$f:/test/$(basename "$f")"); done
"$VM_DIR/build-initramfs.sh" --out "$work/initrd.gz" --scenario "$src/scenario.sh" \
    --binary "$binary" "${files[@]}"
t_initrd=$(vm_elapsed "$t0")

out=$work/out
rm -rf "$out"
vm_rc=0
"$VM_DIR/run-vm.sh" --initrd "$work/initrd.gz" --outdir "$out" --timeout 300 $verbose || vm_rc=$?
t_vm=$(vm_elapsed "$t0")
log=$out/serial.log

# --- assertions ---------------------------------------------------------------------------
passed=0 failed=0
check() { # DESCRIPTION COMMAND...
    local what=$1; shift
    if "$@" > /dev/null 2>&1; then
        passed=$((passed + 1)); echo "ok   $what"
    else
        failed=$((failed + 1)); echo "FAIL $what"
    fi
}
has() { grep -qE "$1" "$log"; }
# in_order RUN REGEX...: the kiosk run's lines ("RUN| ...") match the regexes in this order.
in_order() {
    local run=$1 after=0 re line; shift
    for re in "$@"; do
        line=$(grep -E "^$run\| " "$log" | sed "s/^$run| //" | grep -nE -- "$re" | awk -F: -v a="$after" '$1 > a { print $1; exit }')
        [ -n "$line" ] || return 1
        after=$line
    done
}
# device_block RUN NAME: a device's lines in a `devices` listing, header to the next header.
device_block() {
    awk -v run="$1| " -v name="\"$2\"" '
        index($0, run) != 1 { next }
        { line = substr($0, length(run) + 1) }
        line ~ /^  \/dev\/input\/event/ { inside = index(line, name) > 0 }
        inside { print line }' "$log"
}
block_has() { device_block "$1" "$2" | grep -qE -- "$3"; }
exited_ok() { has "^INPUT-EXIT $1 rc=0"; }
no_crash() { ! grep -E "^$1\| " "$log" | grep -qE 'Fatal error|Segmentation|Illegal instruction|Trace/breakpoint|Aborted'; }

check "VM ran the scenario to VM-TEST-END rc=0" test "$vm_rc" = 0
check "all kernel modules loaded" bash -c "! grep -q VM-MODULE-FAIL '$log'"

# 1: protocol B
check "B: the uinput touchscreen is used as device 0 (protocol B, 10 slots)" \
    in_order tapB 'input: using /dev/input/event[0-9]+ "Bubble Kiosk Test Touchscreen" \(multi-touch protocol B, 10 slots\) as device 0'
check "B: the AT keyboard is ignored" in_order tapB 'input: ignoring /dev/input/event0 "AT Translated Set 2 keyboard"'
check "B: status goes from screen=start to screen=playing after the tap" \
    in_order tapB '^t=.* screen=start .*input=evdev:all\(1\)' '^t=.* screen=playing '
check "B: SYN_DROPPED is noticed and resynchronised" \
    in_order tapB 'screen=playing' 'the kernel dropped events .*resynchronised'
check "B: status lines go on after the resync" in_order tapB 'dropped events' '^t=' '^t='
check "B: exits 0 on SIGTERM with latency samples" \
    bash -c "grep -q '^INPUT-EXIT tapB rc=0' '$log' && grep -qE '^tapB\| stats: .*samples=[1-9]' '$log'"

# 2: hotplug
check "hotplug: starts without a touchscreen and waits" \
    bash -c "grep -q '^hotplug| bubble-kiosk: input: no touchscreen yet; waiting' '$log' &&
             grep -q '^INPUT-HOTPLUG alive without a touchscreen' '$log'"
check "hotplug: a plugged-in device is used, its tap starts a round" \
    in_order hotplug '^t=.*screen=start .*input=evdev:all\(0\)' 'input: using /dev/input/event[0-9]+ .* as device 0' \
    '^t=.*screen=playing .*input=evdev:all\(1\)'
# Whichever comes first releases it: the read's ENODEV or inotify's IN_DELETE.
check "hotplug: unplug mid-drag releases the device" \
    in_order hotplug 'screen=playing' 'input: /dev/input/event[0-9]+ gone \((unplugged|node removed)\); device 0 released'
check "hotplug: status lines go on after the unplug (no crash)" \
    in_order hotplug 'gone \(' '^t=.*input=evdev:all\(0\)' '^t=.*input=evdev:all\(0\)'
check "hotplug: a second device is used and its tap starts a new round" \
    in_order hotplug 'gone \(' '^t=.*screen=start .*input=evdev:all\(0\)' \
    'input: using /dev/input/event[0-9]+ .* as device 0' '^t=.*screen=playing .*input=evdev:all\(1\)'
check "hotplug: exits 0, no crash" bash -c "grep -q '^INPUT-EXIT hotplug rc=0' '$log'"
check "hotplug: no crash messages" no_crash hotplug

# 3-5: the other protocols
check "A: protocol A device on a named node is used" \
    in_order tapA 'input: using /dev/input/event[0-9]+ "Bubble Kiosk Protocol A Panel" \(multi-touch protocol A\)'
check "A: grabbing worked (no warning)" bash -c "! grep -q '^tapA| .*cannot grab' '$log'"
check "A: status names the node" in_order tapA '^t=.*input=evdev:/dev/input/event[0-9]+ '
check "A: tap starts a round" in_order tapA '^t=.*screen=start ' '^t=.*screen=playing '
check "A: exits 0" exited_ok tapA
check "single: non-direct BTN_TOUCH panel is used (single-touch)" \
    in_order tapSingle 'input: using .*"Bubble Kiosk Resistive Panel" \(single-touch\)'
check "single: tap starts a round" in_order tapSingle '^t=.*screen=start ' '^t=.*screen=playing '
check "single: exits 0" exited_ok tapSingle
check "pointer: QEMU-tablet-like device is used (absolute pointer)" \
    in_order tapPointer 'input: using .*"Bubble Kiosk Absolute Pointer" \(absolute pointer\)'
check "pointer: click starts a round" in_order tapPointer '^t=.*screen=start ' '^t=.*screen=playing '
check "pointer: exits 0" exited_ok tapPointer

# 6: devices
check "devices: exits 0" exited_ok devices
check "devices: the uinput touchscreen would be used" block_has devices "Bubble Kiosk Test Touchscreen" '→ would be used'
check "devices: it shows protocol B, slots and direct" \
    block_has devices "Bubble Kiosk Test Touchscreen" 'capabilities: multi-touch protocol B \(10 slots\), direct'
check "devices: it shows axis ranges and resolution" \
    block_has devices "Bubble Kiosk Test Touchscreen" 'ABS_MT_POSITION_X 0\.\.1279, 5 units/mm \(256 mm\)'
check "devices: the AT keyboard is ignored" \
    block_has devices "AT Translated Set 2 keyboard" 'ignored: no absolute axes'
check "devices: the absolute pointer would be used" block_has devices "Bubble Kiosk Absolute Pointer" '→ would be used'
check "devices: summary names what --input evdev would use" has '^devices\| input: --input evdev would use /dev/input/event'

# 7: ordinary user
check "user: devices says which group to join" \
    has '^user-devices\|   /dev/input/event0 "AT Translated Set 2 keyboard": permission denied: add the user to the input group'
check "user: permission hint, access granted at run time (inotify IN_ATTRIB), tap starts a round" \
    in_order user 'input: cannot open .*permission denied: add the user to the input group' \
    '^t=.*screen=start .*all\(0\)' 'input: using /dev/input/event[0-9]+' '^t=.*screen=playing '

echo "--- guest steps (uptime in s)"
grep -E '^INPUT-(STEP|DEVICE|HOTPLUG|USER|INFO|WAIT)' "$log" || true
echo "--- latency (virtual display: evdev event time to present)"
grep -E '^tapB\| stats:' "$log" || true
echo "--- timings: kernel ready ${t_kernel} s, binary ${t_build} s, initramfs ${t_initrd} s, total ${t_vm} s"
echo "--- artifacts: $out (serial.log)"
if [ $failed -gt 0 ]; then
    echo "--- last lines of $log"
    tail -n 60 "$log" || true
fi
echo "input-test: $passed passed, $failed failed"
[ $failed = 0 ]
