#!/bin/bash
# The Debian package on a real systemd: a small Debian root made with debootstrap (cached, see
# debian-root.sh), the .deb installed into a copy of it with dpkg -i (its maintainer scripts
# create the user and enable the unit), Debian's kernel modules added, then booted under QEMU
# (-vga std: bochs-drm) with systemd as PID 1 from the initramfs. A unit runs the
# guest's checks (systemd/check.sh): the unit active after boot with the game on screen and no
# getty on tty1, the user, groups and sandbox (DRM, input, tty1 and ALSA open, other devices
# refused), touch input and a reload that keeps process and round, SIGUSR1 screenshots in the
# state directory, kill -SEGV, kill -STOP (watchdog), crash loops (the start limit, then
# bubble-kiosk-retry.timer starting it again; a stop meanwhile stops the retry), a broken
# config line, MQTT fleet control from inside the sandbox (a mosquitto broker in the guest on
# 127.0.0.1:1883 and [mqtt] in kiosk.conf.d: no connection with the unit as shipped; with the
# package's /usr/share/bubble-kiosk/systemd/mqtt.conf drop-in online, the state, a command and
# a screenshot through the broker, systemd-analyze security at most 2.0 with it), and the state
# surviving all of it. The host checks the screendumps.
#
# With --arch arm64 the same on an emulated arm64 board: the arm64 package in a Debian 13
# (trixie) arm64 root, trixie's arm64 kernel, qemu-system-aarch64 -M virt with virtio-gpu-pci
# (and vgem, a render-only DRM device like the Pi's v3d, loaded too), the guest's checks cut to
# what matters on a board (boot, the process, a tap, a reload, the stop), since the emulated CPU
# is slow. The board's device tree gets a panel backlight (systemd/panel-backlight.dts, named
# 11-0045 as a Pi 5's Touch Display 2, max_brightness 31): the guest checks the udev rule gave it
# to video and that the kiosk under systemd writes its brightness and bl_power (brightness, dim,
# the display's sleep, a touch that wakes it, the level put back at the stop), also after the
# driver was loaded again while the kiosk ran. Both boots list every sysfs file the kiosk's user
# can write inside its sandbox: only backlight files may be there.
#
# With --suite trixie the amd64 package (built on Debian 12) goes into a Debian 13 amd64 root
# instead, with the same cut of checks: it installs and runs there unchanged.
#
# The Debian 12 amd64 and the arm64 boots also install bubble-kiosk-lockdown and plug in a
# keyboard (systemd/keyboard.sh): every key of the keys table (doc/installing.md) leaves the game on screen.
# With --keys the boot is one row set of that table without the lockdown package: only the
# keyboard section runs after the touch checks, typing the keys given, and the host says what
# each key did (nothing, a VT switch, a suspend, a reboot, a power-off: a key that ends the
# machine ends the boot), as "KEYS| KEY: WHAT" lines, which Tests/vm/keys-table.sh collects.
#
# With --upgrade the package is not installed on the host: the guest serves the apt repository
# (packaging/make-repo.sh, the test key) on 127.0.0.1:8080 with busybox httpd, installs version
# N from it, starts a round, publishes N+1 (the same package with only its version changed:
# N+upgradetest1) and runs unattended-upgrade, which installs it from the package's own
# unattended-upgrades drop-in: the round goes on in the same process, ends, and the kiosk
# restarts into N+1 at its start screen; scores and the edited kiosk.conf are kept; then
# apt-get install --allow-downgrades bubble-kiosk=N, and the kiosk restarts into N with the
# scores still read (systemd/upgrade.sh, the guest's side, prints each phase's time).
# unattended-upgrades and what it needs come from Debian once into
# $VM_CACHE/unattended-upgrades/ROOT and are installed into the copy of the root.
#
# usage: Tests/vm/systemd-test.sh [--deb FILE] [--arch arm64 | --suite trixie] [--workdir DIR] [--verbose]
#                                 [--dropin FILE]... [--lockdown FILE] [--keys "KEY..."] [--upgrade]
#   --deb FILE      the package to test (default: `make deb`, build/bubble-kiosk_*_ARCH.deb)
#   --lockdown FILE the lockdown package (default: build/bubble-kiosk-lockdown_*_all.deb)
#   --keys "KEY..." a keys-only boot, without the lockdown package unless --lockdown names it
#                   (keys as in keyboard.sh)
#   --workdir DIR   the root, initramfs, serial.log and screendumps (default: /tmp/vm-systemd.*)
#   --verbose       echo the guest's serial console while it runs, and every check's details
#   --dropin FILE   also install FILE as a drop-in for bubble-kiosk.service in the guest
#                   (for experiments with unit settings; the test proper uses none)
# Prints the time from kernel start to the game's first frame. Ends with
# "vm-test-systemd: N passed, M failed"; exit 0 only when nothing failed.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

work=${VM_WORK:-} deb= verbose=--quiet dropins=() arch=amd64 suite= lockdown= keys= upgrade=0
parse_args '--deb=deb --arch=arch(arm64) --suite=suite(trixie) --workdir=work --verbose:verbose= --dropin+=dropins
    --lockdown=lockdown --keys=keys --upgrade:upgrade=1' "$@"
[ -n "$verbose" ] || export VM_VERBOSE=1
suite_args=()
[ -z "$suite" ] || suite_args=(--suite "$suite")
work=$(vm_workdir "$work" systemd-$arch)
# debian13: the arm64 boot or the trixie amd64 one; they run the cut of checks and pop a bubble.
name=vm-test-systemd debian13=0
[ $arch = amd64 ] || name=vm-test-$arch debian13=1
[ ${#suite_args[@]} = 0 ] || name=vm-test-trixie-amd64 debian13=1
if [ $upgrade = 1 ]; then
    [ $arch = amd64 ] && [ -z "$suite$keys" ] || die "--upgrade is a Debian 12 amd64 boot of its own"
    name=vm-test-upgrade
fi
repo=$(cd "$VM_DIR/../.." && pwd)
t0=$(now)

need_host_packages python3 busybox-static gzip kmod
if [ -z "$deb" ]; then
    target=deb
    [ $arch = amd64 ] || target=deb-$arch
    log "make $target"
    make -C "$repo" $target >&2
    deb=$(ls "$repo"/build/bubble-kiosk_*_$arch.deb | head -n1)
fi
[ -f "$deb" ] || die "no package at '$deb'"
# The lockdown package goes in with the kiosk's on the Debian 12 amd64 and arm64 boots.
with_lockdown=0
if [ -n "$lockdown" ] || { [ -z "$keys" ] && [ -z "$suite" ] && [ $upgrade = 0 ]; }; then
    with_lockdown=1
    [ -n "$lockdown" ] || lockdown=$(ls "$repo"/build/bubble-kiosk-lockdown_*_all.deb 2>/dev/null | head -n1)
    [ -f "$lockdown" ] || die "no lockdown package at '${lockdown:-build/bubble-kiosk-lockdown_*_all.deb}' (make deb)"
fi

kernel_args=() machine=()
if [ $arch = arm64 ]; then
    vm_binfmt_aarch64     # dpkg's maintainer scripts in the arm64 root run under qemu-user
    kernel_args=(--arch arm64)
fi
paths=$("$VM_DIR/kernel.sh" "${kernel_args[@]}") || die "no kernel"
eval "$paths"
t_kernel=$(elapsed "$t0")
# The package's own Depends go into the root (first of each alternative, versions dropped), so
# dpkg -i checks them for real and a new dependency never meets a root cached without it.
depends=$(deb_depends_names "$deb")
# The Debian 12 package in a Debian 13 root: its bookworm names (libasound2) are only provided
# there (by libasound2t64), which debootstrap cannot resolve but apt can: apt installs it below.
[ ${#suite_args[@]} = 0 ] || depends=fonts-dejavu-core
paths=$("$VM_DIR/debian-root.sh" --with "$depends" "${kernel_args[@]}" "${suite_args[@]}") || die "no Debian root"
eval "$paths"
t_debootstrap=$(elapsed "$t0")

# upgrade_root: what --upgrade puts into the root's copy instead of the installed package: N+1,
# the repository in both states under /srv/www with its source and key, busybox for httpd,
# unattended-upgrades. Sets version_n and version_n1.
upgrade_root() {
    local deb_n1 uu_cache
    version_n=$(dpkg-deb -f "$deb" Version)
    version_n1=$version_n+upgradetest1
    # Kiosks up to 0.1.0-1 do not watch their binary: the postinst restarts them on upgrade.
    dpkg --compare-versions "$version_n" gt 0.1.0-1 \
        || die "--upgrade needs a package newer than 0.1.0-1 ($version_n: its upgrade restarts the kiosk, by design)"
    rm -rf "$work/pkg-n" "$work/pkg-n1" "$work/apt"
    dpkg-deb -x "$deb" "$work/pkg-n"
    dpkg-deb -R "$deb" "$work/pkg-n1"
    sed -i "s/^Version: .*/Version: $version_n1/" "$work/pkg-n1/DEBIAN/control"
    deb_n1=$work/bubble-kiosk_${version_n1}_amd64.deb
    dpkg-deb --build --root-owner-group -Zxz "$work/pkg-n1" "$deb_n1" > /dev/null
    rm -rf "$work/pkg-n1"
    mkdir -p "$root/srv/www"
    # The same repository twice: with N, then with N+1 added (N stays listed, for the downgrade).
    bash "$repo/packaging/make-repo.sh" --url http://127.0.0.1:8080/bubble-kiosk "$work/apt" "$deb" > "$work/make-repo.log" 2>&1 \
        || { tail -n 20 "$work/make-repo.log" >&2; die "make-repo.sh failed"; }
    cp -a "$work/apt" "$root/srv/www/repo-N"
    bash "$repo/packaging/make-repo.sh" --url http://127.0.0.1:8080/bubble-kiosk "$work/apt" "$deb_n1" >> "$work/make-repo.log" 2>&1 \
        || { tail -n 20 "$work/make-repo.log" >&2; die "make-repo.sh failed"; }
    cp -a "$work/apt" "$root/srv/www/repo-N1"
    ln -s repo-N "$root/srv/www/bubble-kiosk"
    install -D -m 644 "$work/apt/bubble-kiosk-archive-keyring.pgp" "$root/usr/share/keyrings/bubble-kiosk-archive-keyring.pgp"
    install -m 644 "$work/apt/bubble-kiosk.sources" "$root/etc/apt/sources.list.d/bubble-kiosk.sources"
    install -D -m 755 /bin/busybox "$root/usr/local/bin/busybox"
    # unattended-upgrades: fetched from Debian once for this root, installed offline each run
    # (apt orders the files: Python's pre-dependencies).
    uu_cache=$VM_CACHE/unattended-upgrades/$(basename "$ROOT")
    if [ ! -f "$uu_cache/.complete" ]; then
        log "unattended-upgrades and what it needs, from Debian into $uu_cache (once)"
        rm -rf "$VM_CACHE/unattended-upgrades"
        mkdir -p "$uu_cache/partial"
        cp /etc/resolv.conf "$root/etc/resolv.conf"
        in_chroot "$root" --bind "$uu_cache" sh -c "apt-get update -qq && apt-get install -y -q --download-only \
            --no-install-recommends -o Dir::Cache::Archives=$uu_cache unattended-upgrades" > "$work/uu-download.log" 2>&1 \
            || { tail -n 20 "$work/uu-download.log" >&2; die "cannot download unattended-upgrades"; }
        rm -rf "$uu_cache/partial" "$uu_cache/lock"
        touch "$uu_cache/.complete"
    fi
    in_chroot "$root" --bind "$uu_cache" sh -c "DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $uu_cache/*.deb" > "$work/dpkg.log" 2>&1 \
        || { tail -n 20 "$work/dpkg.log" >&2; die "unattended-upgrades did not install in the root"; }
    find "$root/var/lib/apt/lists" -maxdepth 1 -type f ! -name lock -delete
    rm -rf "$root"/var/cache/apt/*.bin "$root"/usr/share/{doc,man,locale}/*
    # Nothing else may take apt's lock meanwhile.
    ln -sf /dev/null "$root/etc/systemd/system/apt-daily.timer"
    ln -sf /dev/null "$root/etc/systemd/system/apt-daily-upgrade.timer"
    log "the repository (N $version_n, N+1 $version_n1) and unattended-upgrades $(dpkg-query --admindir="$root/var/lib/dpkg" -W -f='${Version}' unattended-upgrades) in the root"
}

# --- the guest's root: a copy of the cached one, with the package installed -----------------
root=$work/root
rm -rf "$root"
cp -a "$ROOT" "$root"
rm -f "$root/.complete"
t_copy=$(elapsed "$t0")
cp "$deb" "$root/tmp/bubble-kiosk.deb"
dpkg_rc=0
# round-recording below: the package's own binary, in the root, or beside it when the guest
# installs the package itself.
recorder=(in_chroot "$root" bubble-kiosk)
if [ $upgrade = 1 ]; then
    upgrade_root
    recorder=("$work/pkg-n/usr/bin/bubble-kiosk")
elif [ ${#suite_args[@]} = 0 ]; then
    in_chroot "$root" dpkg -i /tmp/bubble-kiosk.deb > "$work/dpkg.log" 2>&1 || dpkg_rc=$?
    if [ $with_lockdown = 1 ]; then
        cp "$lockdown" "$root/tmp/bubble-kiosk-lockdown.deb"
        in_chroot "$root" dpkg -i /tmp/bubble-kiosk-lockdown.deb >> "$work/dpkg.log" 2>&1 || dpkg_rc=$?
        rm -f "$root/tmp/bubble-kiosk-lockdown.deb"
    fi
else
    # As a user would: apt fetches what Depends names, through the root's own sources.
    cp /etc/resolv.conf "$root/etc/resolv.conf"
    { in_chroot "$root" apt-get update -qq && DEBIAN_FRONTEND=noninteractive in_chroot "$root" \
        apt-get install -y -q --no-install-recommends /tmp/bubble-kiosk.deb; } > "$work/dpkg.log" 2>&1 || dpkg_rc=$?
    rm -rf "$root"/var/cache/apt/archives/*.deb "$root"/var/lib/apt/lists/*_Packages
fi
rm -f "$root/tmp/bubble-kiosk.deb"
sed 's/^/dpkg| /' "$work/dpkg.log" >&2
t_prepared=$(elapsed "$t0")

# Kernel modules, each with what it depends on; udev loads bochs (virtio-gpu on arm64) for the
# card, evdev for input devices and virtio_console by their aliases, modprobe@drm.service loads
# drm, modules-load.d the rest. vgem makes a second DRM card that has no display engine, as the
# Pi's v3d is: which of the two is card0 is up to the order they load in, as on the Pi.
# cec (the CEC core, which modprobe@cec.service loads for the unit's char-cec rule) and vivid
# (emulated HDMI with CEC adapters, which cec.sh loads mid-run) for the CEC checks.
if [ $arch = amd64 ]; then
    modules=(bochs evdev uinput snd-aloop cec vivid) autoload=(uinput snd-aloop)
    console=ttyS0
else
    # evdev too: -M virt has no keyboard whose arrival would load it before the touchscreen's
    # (udev loads it then, but too late for evemu-device, which looks for the event node at once).
    # leds-gpio and led_bl: the device tree's panel backlight (udev loads them by its nodes).
    modules=(virtio-gpu evdev uinput virtio_console vgem leds-gpio led_bl) autoload=(uinput vgem evdev)
    console=ttyAMA0
fi
kmods=$root/lib/modules/$KVER
mkdir -p "$kmods"
declare -A mod_file=() mod_done=()
while IFS= read -r f; do
    n=${f##*/}; n=${n%%.ko*}; mod_file[${n//-/_}]=$f
done < <(find "$MODDIR/kernel" -name '*.ko*')
add_module() {
    local name=${1//-/_} f dep
    [ -n "${mod_done[$name]:-}" ] && return 0
    mod_done[$name]=1
    f=${mod_file[$name]:-}
    if [ -z "$f" ]; then
        grep -q "/${1//[-_]/[-_]}\.ko" "$MODDIR/modules.builtin" && return 0
        die "kernel module $name not found under $MODDIR"
    fi
    for dep in $(modinfo -F depends "$f" | tr ',' ' '); do add_module "$dep"; done
    mkdir -p "$kmods/$(dirname "${f#"$MODDIR"/}")"
    cp "$f" "$kmods/${f#"$MODDIR"/}"
}
for m in drm "${modules[@]}"; do add_module "$m"; done
cp "$MODDIR"/modules.{order,builtin,builtin.modinfo} "$kmods/"
chroot "$root" /sbin/depmod "$KVER"
printf '%s\n' "${autoload[@]}" > "$root/etc/modules-load.d/vm-test.conf"

# The checks: a unit wanted by multi-user.target, the touch device and a tap on Start.
install -D -m 755 "$VM_DIR/systemd/check.sh" "$root/usr/local/lib/vm-systemd/check.sh"
install -m 644 "$VM_DIR/systemd/keyboard.sh" "$root/usr/local/lib/vm-systemd/keyboard.sh"
install -m 644 "$VM_DIR/systemd/cec.sh" "$root/usr/local/lib/vm-systemd/cec.sh"
install -m 644 "$VM_DIR/systemd/upgrade.sh" "$root/usr/local/lib/vm-systemd/upgrade.sh"
# A USB keyboard as the kernel's console takes it: every key code from 1 to 255.
{ printf 'N: vm-keyboard\nI: 0003 0001 0001 0001\nP: 00 00 00 00 00 00 00 00\nB: 00 03 00 00 00 00 00 00 00\n'
  printf 'B: 01 fe ff ff ff ff ff ff ff\n'
  for i in 1 2 3; do printf 'B: 01 ff ff ff ff ff ff ff ff\n'; done
  for i in $(seq 8); do printf 'B: 01 00 00 00 00 00 00 00 00\n'; done
  for t in 02 03 04 05 11 12 14 15; do printf 'B: %s 00 00 00 00 00 00 00 00\n' $t; done
} > "$root/usr/local/lib/vm-systemd/keyboard.desc"
install -m 644 "$VM_DIR/systemd/vm-systemd-check.service" "$root/etc/systemd/system/"
ln -sf ../vm-systemd-check.service "$root/etc/systemd/system/multi-user.target.wants/vm-systemd-check.service"
# (Made by the package's own binary, in the root: on arm64 it runs under qemu-user. It needs
# /proc: the Swift runtime reads its arguments from /proc/self/cmdline.)
# No demo: with the three modes the start screen offers, a tap on the demo only stops it (the
# mode buttons come back), so whether the tap starts a round would depend on how long the
# emulated boot took. The Debian 13 boots (arm64, trixie amd64) also pop a bubble: the kiosk
# runs with --seed 1 and 4 px/mm, so the recording made for that round here pops one of its
# bubbles there.
# Not in English: German on Debian 12, Arabic (right to left, Pango's shaping and the Noto
# fonts) on the Debian 13 boots; the kiosk names the catalogue it reads in the journal.
pops=0
mkdir -p "$root/etc/bubble-kiosk/kiosk.conf.d"
printf '[attract]\ndemo = false\n\n[kiosk]\nlanguage = de\n' > "$root/etc/bubble-kiosk/kiosk.conf.d/vm-test.conf"
if [ $debian13 = 1 ]; then
    pops=1
    mkdir -p "$root/etc/systemd/system/bubble-kiosk.service.d"
    printf '[Service]\nExecStart=\nExecStart=/usr/bin/bubble-kiosk run --seed 1\n' \
        > "$root/etc/systemd/system/bubble-kiosk.service.d/vm-seed.conf"
    printf '[display]\npx_per_mm = 4\n\n[attract]\ndemo = false\n\n[kiosk]\nlanguage = ar\n' > "$root/etc/bubble-kiosk/kiosk.conf.d/vm-test.conf"
    echo $pops > "$root/usr/local/lib/vm-systemd/tap-pops"
fi
"${recorder[@]}" round-recording --seed 1 --size 1280x800 --pop $pops > "$work/start-tap.evemu"
sed '/^E:/,$d' "$work/start-tap.evemu" > "$root/usr/local/lib/vm-systemd/touch.desc"
grep '^E:' "$work/start-tap.evemu" > "$root/usr/local/lib/vm-systemd/tap.events"
# The operator reset's four corners, the same device (RecordingBuilder's, 1280x800).
grep '^E:' "$VM_DIR/../KioskCoreTests/Fixtures/operator-four-corners.evemu" > "$root/usr/local/lib/vm-systemd/four-corners.events"
# The serial console carries the test's lines: no login prompt on it.
ln -sf /dev/null "$root/etc/systemd/system/serial-getty@$console.service"
# The other roots run the checks that tell the package works there (boot, the process, a tap,
# a reload, the stop); the full set runs on the Debian 12 amd64 root.
# The arm64 boot types the keyboard's keys too.
if [ $upgrade = 1 ]; then
    printf 'VM_CHECKS=upgrade\nVM_VERSION_N=%s\nVM_VERSION_N1=%s\n' "$version_n" "$version_n1" > "$root/usr/local/lib/vm-systemd/vm.env"
elif [ -n "$keys" ]; then
    printf 'VM_CHECKS=keyboard\nVM_KEYS="%s"\nVM_LOCKED=%s\n' "$keys" $with_lockdown > "$root/usr/local/lib/vm-systemd/vm.env"
elif [ $arch = arm64 ]; then
    printf 'VM_CHECKS="keyboard sysfs backlight"\nVM_BACKLIGHT=11-0045\n' > "$root/usr/local/lib/vm-systemd/vm.env"
elif [ $debian13 = 1 ]; then
    echo 'VM_CHECKS=none' > "$root/usr/local/lib/vm-systemd/vm.env"
fi
# The full run boots with the screen off (the kernel's video=CONNECTOR:d forces the connector
# disconnected, as a TV still off when the machine boots): the unit must become active and stay
# so while the kiosk waits, and show the game once check.sh switches the screen on.
boot_args=()
if [ $debian13 = 0 ] && [ -z "$keys" ] && [ $upgrade = 0 ]; then
    echo 'VM_SCREEN_OFF_AT_BOOT=Virtual-1' >> "$root/usr/local/lib/vm-systemd/vm.env"
    boot_args=(--append "video=Virtual-1:d")
fi
if [ $arch = arm64 ]; then
    # One serial port on -M virt: screendump answers come on a virtio console (hvc0), where
    # systemd's getty generator would start a login prompt that eats them.
    ln -sf /dev/null "$root/etc/systemd/system/serial-getty@hvc0.service"
    printf 'VM_CONSOLE=/dev/%s\nVM_ACK=/dev/hvc0\n' "$console" >> "$root/usr/local/lib/vm-systemd/vm.env"
    mkdir -p "$root/etc/systemd/system/vm-systemd-check.service.d"
    printf '[Service]\nTTYPath=/dev/%s\n' "$console" > "$root/etc/systemd/system/vm-systemd-check.service.d/console.conf"
    machine=(--arch aarch64 --mem 2048 --kernel "$VMLINUZ" --dt-add "$VM_DIR/systemd/panel-backlight.dts")
fi
echo bubble-kiosk-vm > "$root/etc/hostname"
if [ ${#dropins[@]} -gt 0 ]; then
    mkdir -p "$root/etc/systemd/system/bubble-kiosk.service.d"
    for f in "${dropins[@]}"; do
        log "drop-in for the experiment: $f"
        cp "$f" "$root/etc/systemd/system/bubble-kiosk.service.d/$(basename "$f" .conf).conf"
    done
fi
ln -sf /lib/systemd/systemd "$root/init"

# systemd runs from the initramfs as the real root (there is no /etc/initrd-release).
(cd "$root" && find . -mindepth 1 | busybox cpio -o -H newc 2>/dev/null | gzip -1) > "$work/initrd.gz"
t_initrd=$(elapsed "$t0")
log "initramfs $(du -m "$work/initrd.gz" | cut -f1) MB"

out=$work/out
mem=1024
[ $upgrade = 0 ] || mem=1536          # the root holds Python and unattended-upgrades too
vm_boot "$work/initrd.gz" "$out" 900 $verbose --mem $mem "${machine[@]}" "${boot_args[@]}" -- -smp 2
t_vm=$(elapsed "$t0")

# --- what the host checks ----------------------------------------------------------------------
# guest_checks: the guest's own checks (SYSD-CHECK lines), counted and shown, and that it got
# to the end of them.
guest_checks() {
    local guest_ok guest_fail
    guest_ok=$(grep -c '^SYSD-CHECK ok' "$VM_LOG" || true)
    guest_fail=$(grep -c '^SYSD-CHECK FAIL' "$VM_LOG" || true)
    VM_PASSED=$((VM_PASSED + guest_ok))
    VM_FAILED=$((VM_FAILED + guest_fail))
    grep -E '^SYSD-CHECK|^       ' "$VM_LOG" | sed 's/^SYSD-CHECK //' | sed 's/^ok   /ok   guest: /; s/^FAIL /FAIL guest: /' || true
    vm_check "the guest ran all its checks (SYSD-DONE)" vm_has '^SYSD-DONE checks=[0-9]+'
}
# Screendumps: the start screen's colours (background 141F33, white title, and the three mode
# buttons at 4 px/mm: blue Classic, orange Timed, green Joystick, each about 80% its colour
# around its title); the playing screen's HUD band along the top (0B1220 at 85% over the
# background). The band is looked for from its 7th row: a boot this long outlasts the burn-in
# shift's first step ([display] pixel_shift), which moves the picture a few pixels and leaves
# background above it (the emulated arm64 boot's after-tap screen: its top 2 rows).
background=141F33 hud=0C1423
start_screen() {
    vm_dump "$1" --expect graphics --region 0,0,100%,100%=$background@0.8 --region 0,0,100%,100%=FFFFFF@0.004 &&
        vm_dump "$1" --tol 40 --region 20%,52%,36%,60%=1288FF@0.5 --region 42%,52%,58%,60%=FF6B0A@0.5 \
            --region 64%,52%,80%,60%=28A745@0.5 &&
        ! vm_dump "$1" --region 0,6,100%,12=$hud@0.9
}
# same_picture A B SHARE: at least SHARE of the pixels of A and B agree (within 8 per channel).
# Exit 0 when they agree, 1 when they do not, 2 when they cannot be compared (a screendump
# missing, or of another size), so differ_picture never passes on a broken run.
same_picture() {
    python3 - "$VM_OUT/$1.ppm" "$VM_OUT/$2.ppm" "$3" <<'PY'
import os, sys
sys.path.insert(0, os.environ["VM_DIR"])
import ppm
try:
    a, b = ppm.Image.load(sys.argv[1]), ppm.Image.load(sys.argv[2])
except OSError as e:
    print(e)
    sys.exit(2)
if (a.width, a.height) != (b.width, b.height):
    print("sizes differ")
    sys.exit(2)
pa, pb = list(a.pixels(step=2)), list(b.pixels(step=2))
share = sum(ppm.close(x, y, 8) for x, y in zip(pa, pb)) / len(pa)
print("%.4f of the pixels agree" % share)
sys.exit(0 if share >= float(sys.argv[3]) else 1)
PY
}
differ_picture() { local rc=0; same_picture "$@" || rc=$?; [ $rc = 1 ]; }

# key_outcomes: "KEY: WHAT" for each key the guest typed, from its SYSD-KEY lines, or, for the
# key after which the machine went away, from what the kernel said last.
key_outcomes() {
    python3 - "$VM_LOG" <<'PY'
import re, sys
text = open(sys.argv[1], errors="replace").read()
typed = list(re.finditer(r"^SYSD-KEYTYPED (\S+)", text, re.M))
for n, m in enumerate(typed):
    end = typed[n + 1].start() if n + 1 < len(typed) else len(text)
    part = text[m.end():end]
    r = re.search(r"^SYSD-KEY \S+ fg=(\S+) pid=(\S+) logins=(.*) suspended=(\d+)", part, re.M)
    if r:
        fg, pid, logins, slept = r.groups()
        what = []
        if fg != "tty1": what.append("switches to " + fg)
        if logins.strip() != "none": what.append("a login prompt")
        if slept != "0": what.append("suspends the machine")
        if pid != "same": what.append("the kiosk restarted")
        print("%s: %s" % (m.group(1), ", ".join(what) or "nothing: the game stays"))
    elif "sysrq: Resetting" in part:
        print("%s: reboots the machine at once" % m.group(1))
    elif "sysrq: Power Off" in part:
        print("%s: powers the machine off at once" % m.group(1))
    elif re.search(r"reboot: Power down|Powering off", part):
        print("%s: powers the machine off" % m.group(1))
    elif re.search(r"reboot: Restarting system|Rebooting", part):
        print("%s: reboots the machine" % m.group(1))
    else:
        print("%s: the boot ended, no word why" % m.group(1))
PY
}
if [ -n "$keys" ]; then
    vm_check "the package installed in the Debian root" [ "$dpkg_rc" = 0 ]
    vm_check "the kiosk showed the game before the keyboard" vm_dump boot --expect graphics
    key_outcomes | sed 's/^/KEYS| /'
    vm_check "every key was typed" bash -c "[ \$(grep -c '^SYSD-KEYTYPED' '$VM_LOG') = $(wc -w <<< "$keys") ]"
    rm -rf "$root" "$work/initrd.gz"
    vm_summary $name-keys 30
    exit
fi
if [ $upgrade = 1 ]; then
    vm_check "the VM ran the checks to VM-TEST-END rc=0" vm_ran_ok
    guest_checks
    vm_check_show "in the round: the playing screen (HUD band along the top)" vm_dump in-round --expect graphics --region 0,6,100%,12=$hud@0.9
    vm_check_show "after unattended-upgrade: still the same round on screen" same_picture in-round round-after-upgrade 0.9
    vm_check_show "restarted into N+1: the start screen" start_screen after-upgrade
    vm_check_show "restarted into N after the downgrade: the start screen" start_screen after-downgrade
    vm_png_copies
    echo "--- from the guest"
    grep -E '^SYSD-INFO' "$VM_LOG" | grep -v '^SYSD-INFO phase' | sed 's/^SYSD-INFO /  /' || true
    echo "--- times: kernel ${t_kernel} s, debian root ${t_debootstrap} s, copy ${t_copy} s, the repository and unattended-upgrades in it ${t_prepared} s, initramfs ${t_initrd} s, total ${t_vm} s"
    echo "--- the guest's phases:"
    sed -n 's/^SYSD-INFO phase /  /p' "$VM_LOG" | tr -d '\r'
    [ "$VM_FAILED" = 0 ] && rm -rf "$root" "$work/initrd.gz"
    echo "--- artifacts: $out (serial.log, *.ppm, *.png)"
    vm_summary $name 60
    exit
fi
vm_check "the package installed in the Debian root (dpkg -i, or apt on trixie; dependencies met)" [ "$dpkg_rc" = 0 ]
vm_check "postinst created the system user bubble-kiosk" grep -q '^bubble-kiosk:x:[0-9]*:' "$root/etc/passwd"
vm_check "postinst enabled the unit" test -L "$root/etc/systemd/system/multi-user.target.wants/bubble-kiosk.service"
if [ $with_lockdown = 1 ]; then
    vm_check "the lockdown package masked ctrl-alt-del.target" \
        bash -c "[ \"\$(readlink '$root/etc/systemd/system/ctrl-alt-del.target')\" = /dev/null ]"
fi
vm_check "the VM ran the checks to VM-TEST-END rc=0" vm_ran_ok

guest_checks

if [ $debian13 = 0 ]; then
    vm_check "screen off at boot: no start screen while the kiosk waits" bash -c "[ -f '$VM_OUT/no-screen.ppm' ] && ! python3 '$VM_DIR/ppm.py' check '$VM_OUT/no-screen.ppm' --region 0,0,100%,100%=$background@0.8"
fi
vm_check "boot: the game is on screen, not the text console" vm_dump boot --expect graphics
vm_check_show "boot: the start screen (its background, white title, the three mode buttons, no HUD)" start_screen boot
vm_check "after the tap on Start: the playing screen (HUD band along the top)" \
    vm_dump after-tap --expect graphics --region 0,6,100%,12=$hud@0.9
vm_check_show "the tap changed the screen (touch input reached the kiosk)" differ_picture boot after-tap 0.97
vm_check "after the reload: still the playing screen" vm_dump after-reload --expect graphics --region 0,6,100%,12=$hud@0.9
vm_check_show "after the reload: the same round (the picture barely changed)" same_picture after-tap after-reload 0.97
[ $debian13 = 1 ] || vm_check "after kill -SEGV: the game is back on screen" vm_dump after-segv --expect graphics
if [ $debian13 = 1 ]; then
    vm_check "after systemctl stop: the text console is back (fbcon draws on tty1 again)" vm_dump after-stop --expect console
else
    # Booted with the connector forced off, fbcon never had that screen, and the sysfs switch-on
    # sends the kernel's own clients no hotplug (a real plug would): the screen is given back
    # dark rather than to the console. The game must be gone from it either way.
    vm_check "after systemctl stop: the game is gone from the screen (console or dark)" \
        bash -c "python3 '$VM_DIR/ppm.py' info '$VM_OUT/after-stop.ppm' | grep -qE '^verdict (console|blank)'"
fi
if [ -z "$suite" ]; then
    typed=$(grep -c '^SYSD-KEYTYPED' "$VM_LOG" || true)
    echo "--- a visitor's keyboard, with bubble-kiosk-lockdown installed"
    key_outcomes | sed 's/^/  /'
    vm_check "the keyboard typed all 11 keys" [ "$typed" = 11 ]
    vm_check "a keyboard plugged in changes nothing on screen" vm_dump key-plugged --expect graphics
    for k in $(sed -n 's/^SYSD-KEYTYPED //p' "$VM_LOG" | tr -d '\r'); do
        vm_check "after $k: the game is on screen" vm_dump "key-$k" --expect graphics
    done
    if [ $debian13 = 0 ]; then
        vm_check "chvt 1 after chvt 2: the game is back on screen" vm_dump key-chvt-back --expect graphics
        vm_check "allow_vt_switch = true, Ctrl-Alt-F2 then Ctrl-Alt-F1: the game is back" vm_dump key-allowed-back --expect graphics
    fi
fi
vm_png_copies

# Removing and purging, in the host's copy of the root (the VM ran on its own copy in RAM).
# The test's own config and unit drop-ins are an administrator's files, which a purge keeps.
rm -rf "$root/etc/bubble-kiosk/kiosk.conf.d/vm-test.conf" "$root/etc/systemd/system/bubble-kiosk.service.d/vm-seed.conf"
mkdir -p "$root/var/lib/bubble-kiosk"
echo "a score" > "$root/var/lib/bubble-kiosk/scores"
echo "# edited" >> "$root/etc/bubble-kiosk/kiosk.conf"
vm_check "dpkg -r removes the package" in_chroot "$root" dpkg -r bubble-kiosk
vm_check "after remove: program and unit are gone, the edited config and the state stay" \
    bash -c "[ ! -e '$root/usr/bin/bubble-kiosk' ] && [ ! -e '$root/lib/systemd/system/bubble-kiosk.service' ] &&
             grep -q '# edited' '$root/etc/bubble-kiosk/kiosk.conf' && [ -f '$root/var/lib/bubble-kiosk/scores' ]"
vm_check "dpkg --purge purges it" in_chroot "$root" dpkg --purge bubble-kiosk
vm_check "after purge: no config, no state, no user, no enable link" \
    bash -c "[ ! -e '$root/etc/bubble-kiosk' ] && [ ! -e '$root/var/lib/bubble-kiosk' ] &&
             ! grep -q '^bubble-kiosk:' '$root/etc/passwd' && ! grep -q '^bubble-kiosk:' '$root/etc/group' &&
             [ ! -e '$root/etc/systemd/system/multi-user.target.wants/bubble-kiosk.service' ] &&
             [ ! -L '$root/etc/systemd/system/multi-user.target.wants/bubble-kiosk.service' ]"

echo "--- from the guest"
grep -E '^SYSD-INFO' "$VM_LOG" | sed 's/^SYSD-INFO /  /' || true
first=$(sed -n 's/^SYSD-INFO first frame (READY=1, the unit became active) \([0-9.]*\) s after kernel start.*/\1/p' "$VM_LOG" | head -n1)
echo "--- kernel start to the game's first frame: ${first:-unknown} s"
echo "--- timings: kernel ${t_kernel} s, debian root ${t_debootstrap} s, copy ${t_copy} s, initramfs ${t_initrd} s, total ${t_vm} s"
# The root copy, the unpacked package and the initramfs are 250 MB: kept only after a failure.
if [ "$VM_FAILED" = 0 ]; then
    rm -rf "$root" "$work/initrd.gz"
    echo "--- artifacts: $out (serial.log, *.ppm, *.png)"
else
    echo "--- artifacts: $out (serial.log, *.ppm, *.png), root $root"
fi
vm_summary $name 60
