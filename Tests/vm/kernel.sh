#!/bin/bash
# Fetches Debian's current amd64 kernel image package once and unpacks it into
# a cache that outlives clones: $VM_CACHE (default /var/cache/bubble-kiosk-vm).
#
# usage: Tests/vm/kernel.sh [--refresh] [--arch arm64]
#   --refresh     ask apt which kernel is current now, download it if it is new
#   --arch arm64  Debian 13's arm64 kernel instead (for qemu-system-aarch64 -M virt), asked of
#                 apt in the arm64 build environment (packaging/arm64/toolchain.sh), which has
#                 trixie's package lists with arm64 in them
#
# Prints shell assignments on stdout (progress goes to stderr), e.g.
#   KVER=6.1.0-57-amd64
#   VMLINUZ=/var/cache/bubble-kiosk-vm/kernel/linux-image-6.1.0-57-amd64_6.1.192-3/boot/vmlinuz-6.1.0-57-amd64
#   MODDIR=/var/cache/bubble-kiosk-vm/kernel/linux-image-6.1.0-57-amd64_6.1.192-3/lib/modules/6.1.0-57-amd64
# so callers can `eval "$(Tests/vm/kernel.sh)"`.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

refresh=0 arch=amd64
parse_args '--refresh:refresh=1 --arch=arch(arm64)' "$@"

kdir=$VM_CACHE/kernel
[ $arch = amd64 ] || kdir=$VM_CACHE/kernel-$arch
mkdir -p "$kdir"
exec 9>"$kdir/.lock"
flock 9            # one download at a time when several runs share the cache

print_paths() {
    local root=$1 vmlinuz kver moddir
    vmlinuz=$(ls "$root"/boot/vmlinuz-* 2>/dev/null | head -n1)
    [ -n "$vmlinuz" ] || return 1
    kver=${vmlinuz##*/vmlinuz-}
    # Debian 13 keeps the modules under /usr/lib (merged /usr), Debian 12 under /lib.
    for moddir in "$root/lib/modules/$kver" "$root/usr/lib/modules/$kver" ""; do
        [ -d "$moddir/kernel" ] && break
    done
    [ -n "$moddir" ] || return 1
    printf 'KVER=%s\nVMLINUZ=%s\nMODDIR=%s\n' "$kver" "$vmlinuz" "$moddir"
}

if [ $refresh = 0 ] && [ -L "$kdir/current" ] && print_paths "$(readlink -f "$kdir/current")"; then
    exit 0
fi

start=$(now)
need_host_packages apt dpkg
tmp=$(mktemp -d "$kdir/download.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
apt_opts=(-q -o APT::Sandbox::User=root)
if [ $arch = amd64 ]; then
    apt_update_once
    apt_get() { apt-get "${apt_opts[@]}" "$@"; }
    apt_cache() { apt-cache "$@"; }
else
    eval "$("$VM_DIR/../../packaging/arm64/toolchain.sh")"
    # The environment's apt downloads into its /tmp; the files are moved here.
    dl=$TOOLCHAIN/tmp/kernel-download
    rm -rf "$dl" && mkdir -p "$dl"
    in_chroot "$TOOLCHAIN" apt-get update -qq >&2
    apt_get() { in_chroot "$TOOLCHAIN" /bin/sh -c 'cd /tmp/kernel-download && exec apt-get "$@"' apt-get \
        "${apt_opts[@]}" "$@" && mv "$dl"/*.deb "$tmp/"; }
    apt_cache() { in_chroot "$TOOLCHAIN" apt-cache "$@"; }
fi

# The metapackage depends on the versioned image package, e.g. linux-image-6.1.0-57-amd64.
apt_get download "linux-image-$arch:$arch" >&2
meta=$(ls linux-image-"$arch"_*.deb)
pkg=$(dpkg-deb -f "$meta" Depends | tr ',|' '\n\n' | sed -n 's/^ *\(linux-image-[0-9][^ ]*\).*/\1/p' | head -n1)
[ -n "$pkg" ] || die "cannot tell the kernel package from $meta"
ver=$(apt_cache show --no-all-versions "$pkg:$arch" 2>/dev/null | sed -n 's/^Version: //p' | head -n1)
dest=$kdir/${pkg}_${ver:-unknown}

if ! print_paths "$dest" >/dev/null; then
    log "downloading $pkg $ver"
    apt_get download "$pkg:$arch" >&2
    rm -rf "$dest.partial"
    dpkg -x "$(ls "${pkg}"_*.deb)" "$dest.partial"
    rm -rf "$dest"
    mv "$dest.partial" "$dest"
    log "unpacked into $dest in $(elapsed "$start") s"
fi
ln -sfn "$(basename "$dest")" "$kdir/current"
print_paths "$dest"
