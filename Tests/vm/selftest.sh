#!/bin/bash
# Proves the VM harness end to end: a real kernel's DRM device shows what a program drew,
# and uinput touch events reach an evdev reader, including hot-unplug and a second device.
#
# usage: Tests/vm/selftest.sh [--workdir DIR] [--verbose]
#   --workdir DIR  where binaries, the initramfs, serial.log and screendumps go
#                  (default: a new /tmp/vm-selftest.* dir; VM_WORK does the same)
#   --verbose      echo the guest's serial console while it runs
# Ends with "N passed, N failed"; exit 0 only when nothing failed.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

work=${VM_WORK:-} verbose=--quiet
parse_args '--workdir=work --verbose:verbose=' "$@"
work=$(vm_workdir "$work" selftest)
src=$VM_DIR/selftest
t0=$(now)

need_host_packages gcc libc6-dev libdrm-dev libcairo2-dev pkg-config python3
"$VM_DIR/kernel.sh" > /dev/null
t_kernel=$(elapsed "$t0")

gcc -O2 -Wall -o "$work/drmcheck" "$src/drmcheck.c" $(pkg-config --cflags --libs libdrm)
gcc -O2 -Wall -o "$work/evread" "$src/evread.c"
gcc -O2 -Wall -o "$work/cairotext" "$src/cairotext.c" $(pkg-config --cflags --libs cairo fontconfig)
vm_test_files "$src/touch.desc" "$src/tap.events" "$src/two-finger.events"
"$VM_DIR/build-initramfs.sh" --out "$work/initrd.gz" --scenario "$src/scenario.sh" \
    --binary "$work/drmcheck" --binary "$work/evread" --binary "$work/cairotext" "${VM_FILES[@]}"
t_build=$(elapsed "$t0")

out=$work/out
vm_boot "$work/initrd.gz" "$out" 120 $verbose
t_vm=$(elapsed "$t0")

# --- assertions (vm_check and friends: lib.sh) ---------------------------------------------
in_section() { # FROM-REGEX TO-REGEX REGEX: REGEX occurs between the two marker lines
    sed -nE "/$1/,/$2/p" "$VM_LOG" | grep -qE "$3"
}
tap_has() { # REGEX...: each occurs in what evread printed for the one-finger tap
    local re
    for re in "$@"; do in_section 'SELFTEST-INPUT device1' 'EVREAD done' "$re" || return 1; done
}

vm_check "VM ran the scenario to VM-TEST-END rc=0" vm_ran_ok
vm_check "all kernel modules loaded" vm_modules_loaded
vm_check "DRM program set a mode (SELFTEST-DRM ok WxH)" vm_has '^SELFTEST-DRM ok [0-9]+x[0-9]+ fb_on_screen=A'
vm_check "touch device 1 created" vm_has '^SELFTEST-INPUT device1 /dev/input/event[0-9]+'
vm_check "reader sees a direct touchscreen" vm_has '^EVREAD open .*direct=1 x=0\.\.1279'
vm_check "tap: BTN_TOUCH 1 arrived" tap_has 'EVREAD ev 1 BTN_TOUCH 1'
vm_check "tap: ABS_MT_POSITION_X 320 / Y 400 arrived" tap_has 'ABS_MT_POSITION_X 320' 'ABS_MT_POSITION_Y 400'
vm_check "tap: release (TRACKING_ID -1, BTN_TOUCH 0) arrived" tap_has 'ABS_MT_TRACKING_ID -1' 'BTN_TOUCH 0'
vm_check "hot-unplug: event node disappeared" vm_has '^SELFTEST-HOTPLUG removed /dev/input/event'
vm_check "hot-unplug: open reader got ENODEV" vm_has '^EVREAD error ENODEV'
vm_check "hot-unplug: second device created" vm_has '^SELFTEST-HOTPLUG second /dev/input/event[0-9]+'
vm_check "second device: both slots reported" \
    in_section 'SELFTEST-HOTPLUG second' 'EVREAD (done|timeout)' 'ABS_MT_POSITION_X 1000'
vm_check "second device: 3 frames read" in_section 'SELFTEST-HOTPLUG second' 'SELFTEST-DONE' 'EVREAD done frames=3'
vm_check "scenario finished" vm_has '^SELFTEST-DONE'
vm_check "cairo drew text with a DejaVu font via fontconfig" vm_has '^SELFTEST-CAIRO font=/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf inked=[1-9]'
vm_check "screendump before-flip: whole screen green" vm_dump before-flip --region 0,0,100%,100%=00FF00 --expect graphics
vm_check "screendump final: left half red" vm_dump final --region 0,0,50%,100%=FF0000 --at 25%,50%=FF0000
vm_check "screendump final: right half blue" vm_dump final --region 50%,0,100%,100%=0000FF --at 75%,50%=0000FF
vm_check "screendump final: not the text console" vm_dump final --expect graphics
vm_check "screendump after-exit: text console is back" vm_dump after-exit --expect console

vm_png_copies

echo "--- facts from the guest"
grep -E '^SELFTEST-(INFO|FLIP|CAIRO|DRM (cap|atomic|connector|wait_vblank))|^SELFTEST-HOTPLUG (removed|nodes)' "$VM_LOG" || true
echo "--- timings: kernel ready ${t_kernel} s, binaries + initramfs ${t_build} s, total ${t_vm} s"
echo "--- artifacts: $out (serial.log, *.ppm, *.png)"
vm_summary selftest
