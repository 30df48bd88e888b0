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
while [ $# -gt 0 ]; do
    case "$1" in
        --workdir) work=$2; shift 2 ;;
        --verbose) verbose=; shift ;;
        -h|--help) sed -n '2,9p' "$0"; exit 0 ;;
        *) vm_die "unknown argument: $1" ;;
    esac
done
[ -n "$work" ] || work=$(mktemp -d /tmp/vm-selftest.XXXXXX)
mkdir -p "$work"
src=$VM_DIR/selftest
t0=$(vm_now)

vm_need_pkgs gcc libc6-dev libdrm-dev libcairo2-dev pkg-config python3
"$VM_DIR/kernel.sh" > /dev/null
t_kernel=$(vm_elapsed "$t0")

gcc -O2 -Wall -o "$work/drmcheck" "$src/drmcheck.c" $(pkg-config --cflags --libs libdrm)
gcc -O2 -Wall -o "$work/evread" "$src/evread.c"
gcc -O2 -Wall -o "$work/cairotext" "$src/cairotext.c" $(pkg-config --cflags --libs cairo fontconfig)
"$VM_DIR/build-initramfs.sh" --out "$work/initrd.gz" --scenario "$src/scenario.sh" \
    --binary "$work/drmcheck" --binary "$work/evread" --binary "$work/cairotext" \
    --file "$src/touch.desc:/test/touch.desc" \
    --file "$src/tap.events:/test/tap.events" \
    --file "$src/two-finger.events:/test/two-finger.events"
t_build=$(vm_elapsed "$t0")

out=$work/out
rm -rf "$out"
vm_rc=0
"$VM_DIR/run-vm.sh" --initrd "$work/initrd.gz" --outdir "$out" --timeout 120 $verbose || vm_rc=$?
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
in_section() { # FROM-REGEX TO-REGEX REGEX: REGEX occurs between the two marker lines
    sed -nE "/$1/,/$2/p" "$log" | grep -qE "$3"
}
dump() { python3 "$VM_DIR/ppm.py" check "$out/$1.ppm" "${@:2}"; }

check "VM ran the scenario to VM-TEST-END rc=0" test "$vm_rc" = 0
check "all kernel modules loaded" bash -c "! grep -q VM-MODULE-FAIL '$log'"
check "DRM program set a mode (SELFTEST-DRM ok WxH)" has '^SELFTEST-DRM ok [0-9]+x[0-9]+ fb_on_screen=A'
check "touch device 1 created" has '^SELFTEST-INPUT device1 /dev/input/event[0-9]+'
check "reader sees a direct touchscreen" has '^EVREAD open .*direct=1 x=0\.\.1279'
check "tap: BTN_TOUCH 1 arrived" in_section 'SELFTEST-INPUT device1' 'EVREAD done' 'EVREAD ev 1 BTN_TOUCH 1'
check "tap: ABS_MT_POSITION_X 320 / Y 400 arrived" \
    bash -c "sed -n '/SELFTEST-INPUT device1/,/EVREAD done/p' '$log' | grep -q 'ABS_MT_POSITION_X 320' &&
             sed -n '/SELFTEST-INPUT device1/,/EVREAD done/p' '$log' | grep -q 'ABS_MT_POSITION_Y 400'"
check "tap: release (TRACKING_ID -1, BTN_TOUCH 0) arrived" \
    bash -c "sed -n '/SELFTEST-INPUT device1/,/EVREAD done/p' '$log' | grep -q 'ABS_MT_TRACKING_ID -1' &&
             sed -n '/SELFTEST-INPUT device1/,/EVREAD done/p' '$log' | grep -q 'BTN_TOUCH 0'"
check "hot-unplug: event node disappeared" has '^SELFTEST-HOTPLUG removed /dev/input/event'
check "hot-unplug: open reader got ENODEV" has '^EVREAD error ENODEV'
check "hot-unplug: second device created" has '^SELFTEST-HOTPLUG second /dev/input/event[0-9]+'
check "second device: both slots reported" \
    in_section 'SELFTEST-HOTPLUG second' 'EVREAD (done|timeout)' 'ABS_MT_POSITION_X 1000'
check "second device: 3 frames read" in_section 'SELFTEST-HOTPLUG second' 'SELFTEST-DONE' 'EVREAD done frames=3'
check "scenario finished" has '^SELFTEST-DONE'
check "cairo drew text with a DejaVu font via fontconfig" has '^SELFTEST-CAIRO font=/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf inked=[1-9]'
check "screendump before-flip: whole screen green" dump before-flip --region 0,0,100%,100%=00FF00 --expect graphics
check "screendump final: left half red" dump final --region 0,0,50%,100%=FF0000 --at 25%,50%=FF0000
check "screendump final: right half blue" dump final --region 50%,0,100%,100%=0000FF --at 75%,50%=0000FF
check "screendump final: not the text console" dump final --expect graphics
check "screendump after-exit: text console is back" dump after-exit --expect console

for f in "$out"/*.ppm; do
    if [ -e "$f" ]; then python3 "$VM_DIR/ppm.py" png "$f" > /dev/null || true; fi
done

echo "--- facts from the guest"
grep -E '^SELFTEST-(INFO|FLIP|CAIRO|DRM (cap|atomic|connector|wait_vblank))|^SELFTEST-HOTPLUG (removed|nodes)' "$log" || true
echo "--- timings: kernel ready ${t_kernel} s, binaries + initramfs ${t_build} s, total ${t_vm} s"
echo "--- artifacts: $out (serial.log, *.ppm, *.png)"
if [ $failed -gt 0 ]; then
    echo "--- last lines of $log"
    tail -n 40 "$log" || true
fi
echo "selftest: $passed passed, $failed failed"
[ $failed = 0 ]
