#!/bin/bash
# The kiosk on a real kernel's DRM device (QEMU -vga std, bochs-drm): mode set, page flips,
# rotation, the DRM-master refusal of a second instance, the screen given back on exit and on
# SIGTERM, the fbdev fallback, and a render-only card (vgem) as card0. Screendumps are checked from the host.
#
# usage: Tests/vm/display-test.sh [--workdir DIR] [--binary PATH] [--verbose]
#   --workdir DIR       initramfs, serial.log, screendumps (default: a new /tmp/vm-display.* dir)
#   --binary PATH       test this bubble-kiosk (default: `make release`)
#   --verbose           echo the guest's serial console while it runs
# Ends with "display-test: N passed, N failed"; exit 0 only when nothing failed.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

vm_test_args '' "$@"
work=$(vm_workdir "$work" display)
t0=$(now)

binary=$(vm_kiosk_binary "$binary")
t_build=$(elapsed "$t0")

# --- the guest side ------------------------------------------------------------------------
cat > "$work/rot90.conf" <<'EOF'
[display]
rotation = 90
EOF

cat > "$work/scenario.sh" <<'EOF'
#!/bin/sh
# Runs inside the VM; prints DISPLAY-TEST lines that display-test.sh asserts on.
VM_TAG=DISPLAY
. /usr/lib/vm-guest.sh   # say, wait_for, ...: Tests/vm/guest-lib.sh
# vgem comes in with the initramfs's modules; it stays out until part 7 makes it card0.
rmmod vgem || say TEST "rmmod vgem failed"

bubble-kiosk devices > /tmp/devices.log 2>&1
say TEST "devices rc=$?"
show DEVICES /tmp/devices.log
printf '\n\n  bubble-kiosk display test: console before the kiosk\n' > /dev/tty1
vm-screendump console-before

# on_screen LOG: until the kiosk's status says a frame is on screen. Not "t=2s": a slow first
# frame (a cold start under a loaded emulator) merges the first seconds into one later line.
on_screen() { wait_for "$1" '^t=[0-9]+s frames=[1-9]' 30; }

# Runs 1 to 4 end on SIGTERM once their screens are taken, so a slow start cannot run out a
# --duration before the checks; run 5 keeps --duration's own exit covered.

# --- 1: the kiosk at rotation 0; a second instance must be refused meanwhile ---------------
start=$(cut -d' ' -f1 /proc/uptime)
bubble-kiosk run --display drm --attract --status > /tmp/run1.log 2>&1 &
pid=$!
on_screen /tmp/run1.log
say TEST "run1 status-2s after $(awk -v s="$start" '{ printf "%.1f", $1 - s }' /proc/uptime) s"
vm-screendump game
bubble-kiosk run --display drm --duration 2 --input none > /tmp/second.log 2>&1
say TEST "second rc=$?"
show SECOND /tmp/second.log
vm-screendump game-later
kill -TERM $pid
wait $pid
say TEST "run1 rc=$?"
show RUN1 /tmp/run1.log
sleep 0.5
vm-screendump after-exit

# --- 2: rotation 90 from the config file ------------------------------------------------------
bubble-kiosk run --display drm --attract --status --config /test/rot90.conf > /tmp/run2.log 2>&1 &
pid=$!
on_screen /tmp/run2.log
vm-screendump rot90
kill -TERM $pid
wait $pid
say TEST "run2 rc=$?"
show RUN2 /tmp/run2.log
sleep 0.5
vm-screendump after-rot90

# --- 3: SIGTERM mid-run gives the screen back too ---------------------------------------------
bubble-kiosk run --display drm --attract --status > /tmp/run3.log 2>&1 &
pid=$!
on_screen /tmp/run3.log
vm-screendump before-term
kill -TERM $pid
wait $pid
say TEST "run3 rc=$?"
show RUN3 /tmp/run3.log
sleep 0.5
vm-screendump after-term

# --- 4: the fbdev fallback on the DRM driver's fbdev emulation -------------------------------
bubble-kiosk run --display fbdev --attract --status --input none > /tmp/run4.log 2>&1 &
pid=$!
on_screen /tmp/run4.log
sleep 0.3  # the emulation copies to the screen from a worker, shortly after the write
vm-screendump fbdev
kill -TERM $pid
wait $pid
say TEST "run4 rc=$?"
show RUN4 /tmp/run4.log
sleep 0.5
vm-screendump after-fbdev

# --- 5: a named connector and mode; a connector that is not there -------------------------
bubble-kiosk run --display drm --connector Virtual-1 --mode 1024x768@60 --attract --duration 10 --status \
    --input none > /tmp/run5.log 2>&1 &
pid=$!
on_screen /tmp/run5.log
vm-screendump mode-1024
wait $pid
say TEST "run5 rc=$?"
show RUN5 /tmp/run5.log
bubble-kiosk run --display drm --connector HDMI-A-1 --duration 1 --input none > /tmp/run6.log 2>&1
say TEST "run6 rc=$?"
show RUN6 /tmp/run6.log

# --- 6: an ordinary user outside the video group (devtmpfs nodes are root-only here) --------
add_kiosk_user
as_user /usr/local/bin/bubble-kiosk devices > /tmp/user-devices.log 2>&1
say TEST "user devices rc=$?"
show USERDEV /tmp/user-devices.log
as_user /usr/local/bin/bubble-kiosk run --display drm --duration 1 > /tmp/user-run.log 2>&1
say TEST "user run rc=$?"
show USERRUN /tmp/user-run.log

# --- 7: a render-only card as card0, as the Raspberry Pi's v3d may be: vgem (a DRM device with
# no display engine) takes card0 and bochs comes back as card1.
rmmod bochs && insmod /lib/modules/vgem.ko && insmod /lib/modules/bochs.ko
say TEST "render-only first rc=$?"
ls /dev/dri > /tmp/dri.log 2>&1
show DRI /tmp/dri.log
bubble-kiosk devices > /tmp/devices2.log 2>&1
show DEVICES2 /tmp/devices2.log
bubble-kiosk run --display drm --attract --status --input none > /tmp/run7.log 2>&1 &
pid=$!
on_screen /tmp/run7.log
vm-screendump render-only-first
kill -TERM $pid
wait $pid
say TEST "run7 rc=$?"
show RUN7 /tmp/run7.log
say TEST "done"
exit 0
EOF

vm_test_files "$work/rot90.conf"
"$VM_DIR/build-initramfs.sh" --out "$work/initrd.gz" --scenario "$work/scenario.sh" \
    --binary "$binary" --module vgem "${VM_FILES[@]}"
t_initrd=$(elapsed "$t0")

out=$work/out
vm_boot "$work/initrd.gz" "$out" 300 $verbose
t_vm=$(elapsed "$t0")

# --- assertions (vm_check and friends: lib.sh) ------------------------------------------------
# Colours the game draws (KioskCore's Scene.swift and SceneBuilder.swift): the HUD bar
# 0B1220 at 85 % over the background 141F33 gives about 0C1423.
hud=0C1423 background=141F33
# share_near FILE "COLOURS" TOL: share of pixels within TOL of any of the colours.
share_near() {
    python3 - "$out/$1.ppm" "$2" "$3" <<'PY'
import os, sys
sys.path.insert(0, os.environ["VM_DIR"])
import ppm
img = ppm.Image.load(sys.argv[1])
want = [ppm.rgb(c) for c in sys.argv[2].split()]
tol = int(sys.argv[3])
total = hits = 0
for p in img.pixels(step=2):
    total += 1
    hits += any(ppm.close(p, w, tol) for w in want)
print("%.4f" % (hits / total))
PY
}
at_least() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a >= b) }'; }
bubbles="0A84FF FF375F FF9F0A 30B84E BF5AF2 1FB5CF FF453A 5E5CE6"
VM_TAG=DISPLAY

vm_check "VM ran the scenario to VM-TEST-END rc=0" vm_ran_ok
vm_check "no wait in the guest timed out" vm_no_wait
vm_check "devices lists card0 with Virtual-1 connected, 320x200 mm" \
    vm_has '^DEVICES\|     Virtual-1: connected, 320x200 mm, 4.00 px/mm at 1280x800@75'
vm_check "devices marks the preferred mode" vm_has '^DEVICES\|       15 modes: 1280x800@75\* '
vm_check "devices names QEMU's monitor from its EDID, with its edid: name" \
    vm_has '^DEVICES\|       monitor: RHT "QEMU Monitor", 32x20 cm, made 2014 week 42; name it edid:QEMU_Monitor'
vm_check "devices lists /dev/fb0" vm_has '^DEVICES\|   /dev/fb0 \(bochs-drmdrmfb\): 1280x800, 32 bpp XRGB8888'
vm_check "run 1 exited 0" vm_has '^DISPLAY-TEST run1 rc=0'
vm_check "run 1 used the DRM display in the preferred mode" \
    vm_has '^RUN1\| bubble-kiosk: display drm:/dev/dri/card0:Virtual-1:1280x800@75,'
vm_check "run 1 drew frames" vm_has '^RUN1\| t=[0-9]+s frames=[1-9][0-9]* screen=demo'
vm_check "second instance refused with the DRM-master message" \
    vm_has '^SECOND\| bubble-kiosk: /dev/dri/card0: cannot become DRM master \(another program owns the display: stop it, or switch VT\)'
vm_check "second instance exited 5 (display busy)" vm_has '^DISPLAY-TEST second rc=5'
vm_check "console before: text console" vm_dump console-before --expect console
vm_check "game: not the text console" vm_dump game --expect graphics
vm_check "game: HUD band along the top" vm_dump game --region 0,0,100%,6=$hud@0.9
vm_check "game: background below the HUD" vm_dump game --region 0,60,100%,100%=$background@0.3
vm_check "game: bubble colours on screen" at_least "$(share_near game "$bubbles" 24)" 0.003
vm_check "game: the first instance kept the screen" vm_dump game-later --expect graphics --region 0,0,100%,6=$hud@0.9
vm_check "after exit: the console is back" vm_dump after-exit --expect console
vm_check "run 2 exited 0 with an 800x1280 game" vm_has '^RUN2\| bubble-kiosk: display drm:/dev/dri/card0:Virtual-1:1280x800@75:rot90,'
vm_check "rot90: not the text console" vm_dump rot90 --expect graphics
vm_check "rot90: HUD band down the right side" vm_dump rot90 --region 1274,0,1280,800=$hud@0.9
vm_check "rot90: no HUD band along the top" bash -c "! python3 '$VM_DIR/ppm.py' check '$out/rot90.ppm' --region 0,0,100%,6=$hud@0.9"
vm_check "rot90: bubble colours on screen" at_least "$(share_near rot90 "$bubbles" 24)" 0.003
vm_check "after rotation: the console is back" vm_dump after-rot90 --expect console
vm_check "run 3 was showing the game before SIGTERM" vm_dump before-term --expect graphics
vm_check "run 3 stopped on SIGTERM with exit 0" vm_has '^DISPLAY-TEST run3 rc=0'
vm_check "after SIGTERM: the console is back" vm_dump after-term --expect console
vm_check "run 4 (fbdev) exited 0" vm_has '^DISPLAY-TEST run4 rc=0'
vm_check "fbdev: the game is on screen" vm_dump fbdev --expect graphics --region 0,0,100%,6=$hud@0.9
vm_check "after fbdev: the console is back" vm_dump after-fbdev --expect console
vm_check "run 5 used the named connector and mode" \
    bash -c "grep -q '^DISPLAY-TEST run5 rc=0' '$VM_LOG' &&
             grep -q '^RUN5| bubble-kiosk: display drm:/dev/dri/card0:Virtual-1:1024x768@60,' '$VM_LOG'"
vm_check "mode-1024: the screen is 1024x768 with the HUD on top" \
    bash -c "python3 '$VM_DIR/ppm.py' info '$out/mode-1024.ppm' | grep -q 'size 1024x768' &&
             python3 '$VM_DIR/ppm.py' check '$out/mode-1024.ppm' --expect graphics --region 0,0,100%,6=$hud@0.9"
vm_check "a missing connector is a clear error with exit 4 (no display)" \
    bash -c "grep -q '^DISPLAY-TEST run6 rc=4' '$VM_LOG' &&
             grep -q '^RUN6| bubble-kiosk: no DRM card with connector HDMI-A-1 (/dev/dri/card0: Virtual-1 connected)' '$VM_LOG'"
vm_check "no run reported a failed restore of the saved CRTC" bash -c "! grep -q 'restoring the screen' '$VM_LOG'"
vm_check "ordinary user: devices exits 0" vm_has '^DISPLAY-TEST user devices rc=0'
vm_check "ordinary user: devices names the video group for the card" \
    vm_has '^USERDEV\|   /dev/dri/card0: permission denied: add the user to the video group'
vm_check "ordinary user: devices still shows connectors from sysfs" \
    vm_has '^USERDEV\|     Virtual-1: connected \(from sysfs\), modes: 1280x800 '
vm_check "ordinary user: devices names the monitor from the sysfs EDID" \
    vm_has '^USERDEV\|       monitor: RHT "QEMU Monitor", 32x20 cm, made 2014 week 42; name it edid:QEMU_Monitor'
vm_check "ordinary user: devices names the video group for fbdev" \
    vm_has '^USERDEV\|   /dev/fb0: permission denied: add the user to the video group'
vm_check "ordinary user: run fails with the permission hint and exit 4 (no display)" \
    bash -c "grep -q '^DISPLAY-TEST user run rc=4' '$VM_LOG' &&
             grep -q '^USERRUN| bubble-kiosk: /dev/dri/card0: permission denied: add the user to the video group' '$VM_LOG'"
vm_check "render-only card: vgem took card0, bochs card1" \
    bash -c "grep -q '^DISPLAY-TEST render-only first rc=0' '$VM_LOG' && grep -q '^DRI| card1' '$VM_LOG'"
vm_check "render-only card: devices lists card0 (vgem) with no display engine, card1 with Virtual-1" \
    bash -c "grep -qE '^DEVICES2\|   /dev/dri/card0 \(vgem\)' '$VM_LOG' && grep -q '^DEVICES2| .*no KMS display engine' '$VM_LOG' &&
             grep -qE '^DEVICES2\|   /dev/dri/card1 \(bochs-drm\)' '$VM_LOG'"
vm_check "render-only card: the kiosk passed over card0 and shows the game from card1" \
    bash -c "grep -q '^DISPLAY-TEST run7 rc=0' '$VM_LOG' &&
             grep -q '^RUN7| bubble-kiosk: display drm:/dev/dri/card1:Virtual-1:1280x800@75,' '$VM_LOG'"
vm_check "render-only card: the game is on screen" vm_dump render-only-first --expect graphics --region 0,0,100%,6=$hud@0.9

vm_png_copies
echo "--- from the guest"
grep -E '^DISPLAY-(TEST|WAIT)|^(RUN[0-9]|SECOND|USERRUN)\| (bubble-kiosk|t=[0-9]+s)' "$VM_LOG" | grep -vE '\| t=[2-7]s' || true
echo "--- timings: build ${t_build} s, initramfs ${t_initrd} s, total ${t_vm} s"
echo "--- artifacts: $out (serial.log, *.ppm, *.png)"
vm_summary display-test
