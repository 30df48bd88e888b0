#!/bin/bash
# Builds a small Debian root with systemd (debootstrap --variant=minbase) once and keeps it in
# $VM_CACHE/debian-root/ (default /var/cache/bubble-kiosk-vm). The folder's name carries a hash
# of the suite, the mirror and the package list, so changing any of them builds a new root;
# older roots are removed then.
#
# usage: Tests/vm/debian-root.sh [--rebuild] [--with PKG,PKG...] [--arch arm64] [--suite trixie]
#   --with  more packages, such as the kiosk package's Depends (systemd-test.sh passes them), so
#           the root follows the package when its dependencies change
#   --arch arm64  a Debian 13 (trixie) arm64 root instead of Debian 12 amd64: its maintainer
#           scripts run under qemu-user (vm_binfmt_aarch64, for as long as this script runs)
#   --suite trixie  Debian 13 for amd64 too (the amd64 package built on Debian 12, installed there)
# Prints ROOT=/var/cache/bubble-kiosk-vm/debian-root/bookworm-<hash> on stdout (progress on
# stderr), so callers can `eval "$(Tests/vm/debian-root.sh)"`. Treat ROOT as read-only: copy
# it before installing anything into it.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

rebuild=0
with=
arch=amd64 suite=
parse_args '--rebuild:rebuild=1 --with=with --arch=arch(arm64) --suite=suite(trixie)' "$@"

SUITE=bookworm
[ $arch = amd64 ] || SUITE=trixie
[ -z "$suite" ] || SUITE=$suite
# What the boot test needs besides minbase: systemd as PID 1 with udev (it loads bochs-drm for
# the emulated card), the kiosk package's dependencies (so `dpkg -i` checks them for real, and
# libsystemd0 comes with systemd), evemu-tools to make a touchscreen through uinput, and dbus,
# without which logind does not run (and Debian's getty-static.service starts login prompts on
# tty2-tty6 instead): a kiosk's Power and Sleep keys and VT logins are logind's. Pango and its
# fonts: text in any script (the boots run with a non-English language too), Noto for what
# DejaVu lacks (the package Recommends it; debootstrap installs no Recommends).
PACKAGES=systemd,systemd-sysv,udev,kmod,procps,dbus,libdrm2,libevdev2,libcairo2,libmosquitto1,fonts-dejavu-core,evemu-tools
PACKAGES=$PACKAGES,libpango-1.0-0,libpangocairo-1.0-0,libharfbuzz0b,libfontconfig1,fonts-noto-core
# The Debian 12 amd64 boot test (the full one) also runs an MQTT broker in the guest and talks
# to the kiosk through it with mosquitto_pub and mosquitto_sub.
[ "$SUITE/$arch" = bookworm/amd64 ] && PACKAGES=$PACKAGES,mosquitto,mosquitto-clients
# The arm64 package's Depends as Debian 13 names them, so that a root made ahead of the package
# (Tests/arm64/prepare.sh, while other tests run) is the one the boot test asks for. Should the
# Depends change, the boot test's --with makes another root: slower, never wrong.
[ $arch = arm64 ] && PACKAGES=$PACKAGES,libasound2t64,libc6,libgcc-s1,libmosquitto1,libpixman-1-0,libsndfile1,libsqlite3-0,libssl3t64,libstdc++6,libsystemd0,libudev1,libglib2.0-0t64
PACKAGES=$(printf '%s\n' ${PACKAGES//,/ } ${with//,/ } | sort -u | paste -sd,)

MIRROR=$(debian_mirror)

base=$VM_CACHE/debian-root
key=$(printf '%s\n' "$SUITE" "$MIRROR" "$PACKAGES" "minbase" "trim-1" | sha256sum | cut -c1-12)
# bookworm-HASH (the boot test's Debian 12 root), trixie-amd64-HASH, trixie-arm64-HASH.
name=$SUITE
[ "$SUITE/$arch" = bookworm/amd64 ] || name=$SUITE-$arch
root=$base/$name-$key
mkdir -p "$base"
exec 9>"$base/.lock-$name"
flock 9            # one debootstrap of each kind at a time when several runs share the cache

if [ $rebuild = 0 ] && [ -f "$root/.complete" ]; then
    echo "ROOT=$root"
    exit 0
fi

[ $arch = amd64 ] || vm_binfmt_aarch64
start=$(now)
log "debootstrap $SUITE $arch from $MIRROR (packages: $PACKAGES)"
debootstrap_partial "$root" "$base/debootstrap-$name.log" "$SUITE" --arch="$arch" --variant=minbase --include="$PACKAGES"
# Smaller copies and initramfs images: no docs, manuals, translations or package caches.
rm -rf "$root.partial"/usr/share/{doc,man,info,locale}/* "$root.partial"/var/cache/apt/*.bin \
    "$root.partial"/var/cache/apt/archives/*.deb "$root.partial"/var/lib/apt/lists/*_Packages
touch "$root.partial/.complete"
mv "$root.partial" "$root"
# Roots for other package lists are never used again.
for old in "$base/$name"-*; do
    [ -d "$old" ] && [ "$old" != "$root" ] && remove_tree "$old"
done
log "debian root ready in $(elapsed "$start") s ($(du -sm "$root" | cut -f1) MB): $root"
echo "ROOT=$root"
