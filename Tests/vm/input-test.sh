#!/bin/bash
# End-to-end test of evdev touch input on a real kernel (QEMU): bubble-kiosk with
# --input evdev against uinput devices made by evemu-device, on the virtual display.
#
# usage: Tests/vm/input-test.sh [--workdir DIR] [--verbose] [--binary PATH]
#   --workdir DIR       initramfs, serial.log and other artifacts (default: a new /tmp/vm-input.* dir)
#   --verbose           echo the guest's serial console while it runs
#   --binary PATH       test this bubble-kiosk (default: `make release`)
# Scenarios (Tests/vm/input/scenario.sh): a protocol B tap on Start and a kernel buffer overflow
# (SYN_DROPPED); no touchscreen at start, hotplug, unplug mid-drag, a second device; protocol A
# on a named, grabbed node; a single-touch panel; an absolute pointer like QEMU's tablet;
# `bubble-kiosk devices`; an ordinary user without, then with, access to the node.
# Ends with "N passed, N failed"; exit 0 only when nothing failed.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

vm_test_args '' "$@"
work=$(vm_workdir "$work" input)
src=$VM_DIR/input
t0=$(now)

"$VM_DIR/kernel.sh" > /dev/null
t_kernel=$(elapsed "$t0")

binary=$(vm_kiosk_binary "$binary")
t_build=$(elapsed "$t0")

# The selftest's touchscreen description serves here too.
vm_test_files "$VM_DIR/selftest/touch.desc" "$src"/*.desc "$src"/*.events "$src"/*.conf
"$VM_DIR/build-initramfs.sh" --out "$work/initrd.gz" --scenario "$src/scenario.sh" \
    --binary "$binary" "${VM_FILES[@]}"
t_initrd=$(elapsed "$t0")

out=$work/out
vm_boot "$work/initrd.gz" "$out" 300 $verbose
t_vm=$(elapsed "$t0")

# --- assertions (vm_check, vm_in_order and friends: lib.sh) ---------------------------------
# device_block RUN NAME: a device's lines in a `devices` listing, header to the next header.
device_block() {
    awk -v run="$1| " -v name="\"$2\"" '
        index($0, run) != 1 { next }
        { line = substr($0, length(run) + 1) }
        line ~ /^  \/dev\/input\/event/ { inside = index(line, name) > 0 }
        inside { print line }' "$VM_LOG"
}
block_has() { grep -qE -- "$3" <<< "$(device_block "$1" "$2")"; }  # whole first: see vm_no_crash
VM_TAG=INPUT

vm_check "VM ran the scenario to VM-TEST-END rc=0" vm_ran_ok
vm_check "all kernel modules loaded" vm_modules_loaded

# 1: protocol B
vm_check "B: the uinput touchscreen is used as device 0 (protocol B, 10 slots)" \
    vm_in_order tapB 'input: using /dev/input/event[0-9]+ "Bubble Kiosk Test Touchscreen" \(multi-touch protocol B, 10 slots\) as device 0'
vm_check "B: the AT keyboard is ignored" vm_in_order tapB 'input: ignoring /dev/input/event0 "AT Translated Set 2 keyboard"'
vm_check "B: status goes from screen=start to screen=playing after the tap" \
    vm_in_order tapB '^t=.* screen=start .*input=evdev:all\(1\)' '^t=.* screen=playing '
vm_check "B: SYN_DROPPED is noticed and resynchronised" \
    vm_in_order tapB 'screen=playing' 'the kernel dropped events .*resynchronised'
vm_check "B: status lines go on after the resync" vm_in_order tapB 'dropped events' '^t=' '^t='
vm_check "B: exits 0 on SIGTERM with latency samples" \
    bash -c "grep -q '^INPUT-EXIT tapB rc=0' '$VM_LOG' && grep -qE '^tapB\| stats: .*samples=[1-9]' '$VM_LOG'"

# 2: hotplug
vm_check "hotplug: starts without a touchscreen and waits" \
    bash -c "grep -q '^hotplug| bubble-kiosk: input: no touchscreen yet; waiting' '$VM_LOG' &&
             grep -q '^INPUT-HOTPLUG alive without a touchscreen' '$VM_LOG'"
vm_check "hotplug: a plugged-in device is used, its tap starts a round" \
    vm_in_order hotplug '^t=.*screen=start .*input=evdev:all\(0\)' 'input: using /dev/input/event[0-9]+ .* as device 0' \
    '^t=.*screen=playing .*input=evdev:all\(1\)'
# Whichever comes first releases it: the read's ENODEV or inotify's IN_DELETE.
vm_check "hotplug: unplug mid-drag releases the device" \
    vm_in_order hotplug 'screen=playing' 'input: /dev/input/event[0-9]+ gone \((unplugged|node removed)\); device 0 released'
vm_check "hotplug: status lines go on after the unplug (no crash)" \
    vm_in_order hotplug 'gone \(' '^t=.*input=evdev:all\(0\)' '^t=.*input=evdev:all\(0\)'
vm_check "hotplug: a second device is used and its tap starts a new round" \
    vm_in_order hotplug 'gone \(' '^t=.*screen=start .*input=evdev:all\(0\)' \
    'input: using /dev/input/event[0-9]+ .* as device 0' '^t=.*screen=playing .*input=evdev:all\(1\)'
vm_check "hotplug: exits 0, no crash" vm_exited_ok hotplug
vm_check "hotplug: no crash messages" vm_no_crash hotplug

# 3-5: the other protocols
vm_check "A: protocol A device on a named node is used" \
    vm_in_order tapA 'input: using /dev/input/event[0-9]+ "Bubble Kiosk Protocol A Panel" \(multi-touch protocol A\)'
vm_check "A: grabbing worked (no warning)" bash -c "! grep -q '^tapA| .*cannot grab' '$VM_LOG'"
vm_check "A: status names the node" vm_in_order tapA '^t=.*input=evdev:/dev/input/event[0-9]+ '
vm_check "A: tap starts a round" vm_in_order tapA '^t=.*screen=start ' '^t=.*screen=playing '
vm_check "A: exits 0" vm_exited_ok tapA
vm_check "single: non-direct BTN_TOUCH panel is used (single-touch)" \
    vm_in_order tapSingle 'input: using .*"Bubble Kiosk Resistive Panel" \(single-touch\)'
vm_check "single: tap starts a round" vm_in_order tapSingle '^t=.*screen=start ' '^t=.*screen=playing '
vm_check "single: exits 0" vm_exited_ok tapSingle
vm_check "pointer: QEMU-tablet-like device is used (absolute pointer)" \
    vm_in_order tapPointer 'input: using .*"Bubble Kiosk Absolute Pointer" \(absolute pointer\)'
vm_check "pointer: click starts a round" vm_in_order tapPointer '^t=.*screen=start ' '^t=.*screen=playing '
vm_check "pointer: exits 0" vm_exited_ok tapPointer

# 6: devices
vm_check "devices: exits 0" vm_exited_ok devices
vm_check "devices: the uinput touchscreen would be used" block_has devices "Bubble Kiosk Test Touchscreen" '→ would be used'
vm_check "devices: it shows protocol B, slots and direct" \
    block_has devices "Bubble Kiosk Test Touchscreen" 'capabilities: multi-touch protocol B \(10 slots\), direct'
vm_check "devices: it shows axis ranges and resolution" \
    block_has devices "Bubble Kiosk Test Touchscreen" 'ABS_MT_POSITION_X 0\.\.1279, 5 units/mm \(256 mm\)'
vm_check "devices: the AT keyboard is ignored" \
    block_has devices "AT Translated Set 2 keyboard" 'ignored: no absolute axes'
vm_check "devices: the absolute pointer would be used" block_has devices "Bubble Kiosk Absolute Pointer" '→ would be used'
vm_check "devices: summary names what --input evdev would use" vm_has '^devices\| input: --input evdev would use /dev/input/event'

# 7: ordinary user
vm_check "user: devices says which group to join" \
    vm_has '^user-devices\|   /dev/input/event0 "AT Translated Set 2 keyboard": permission denied: add the user to the input group'
vm_check "user: permission hint, access granted at run time (inotify IN_ATTRIB), tap starts a round" \
    vm_in_order user 'input: cannot open .*permission denied: add the user to the input group' \
    '^t=.*screen=start .*all\(0\)' 'input: using /dev/input/event[0-9]+' '^t=.*screen=playing '

echo "--- guest steps (uptime in s)"
grep -E '^INPUT-(STEP|DEVICE|HOTPLUG|USER|INFO|WAIT)' "$VM_LOG" || true
echo "--- latency (virtual display: evdev event time to present)"
grep -E '^tapB\| stats:' "$VM_LOG" || true
echo "--- timings: kernel ready ${t_kernel} s, binary ${t_build} s, initramfs ${t_initrd} s, total ${t_vm} s"
echo "--- artifacts: $out (serial.log)"
vm_summary input-test 60
