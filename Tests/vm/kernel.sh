#!/bin/bash
# Fetches Debian's current amd64 kernel image package once and unpacks it into
# a cache that outlives clones: $VM_CACHE (default /var/cache/bubble-kiosk-vm).
#
# usage: Tests/vm/kernel.sh [--refresh]
#   --refresh   ask apt which kernel is current now, download it if it is new
#
# Prints shell assignments on stdout (progress goes to stderr), e.g.
#   KVER=6.1.0-57-amd64
#   VMLINUZ=/var/cache/bubble-kiosk-vm/kernel/linux-image-6.1.0-57-amd64_6.1.192-3/boot/vmlinuz-6.1.0-57-amd64
#   MODDIR=/var/cache/bubble-kiosk-vm/kernel/linux-image-6.1.0-57-amd64_6.1.192-3/lib/modules/6.1.0-57-amd64
# so callers can `eval "$(Tests/vm/kernel.sh)"`.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

refresh=0
case "${1:-}" in
    --refresh) refresh=1 ;;
    "") ;;
    -h|--help) sed -n '2,12p' "$0"; exit 0 ;;
    *) vm_die "unknown argument: $1" ;;
esac

kdir=$VM_CACHE/kernel
mkdir -p "$kdir"
exec 9>"$kdir/.lock"
flock 9            # one download at a time when several runs share the cache

print_paths() {
    local root=$1 vmlinuz kver
    vmlinuz=$(ls "$root"/boot/vmlinuz-* 2>/dev/null | head -n1)
    [ -n "$vmlinuz" ] || return 1
    kver=${vmlinuz##*/vmlinuz-}
    [ -d "$root/lib/modules/$kver/kernel" ] || return 1
    printf 'KVER=%s\nVMLINUZ=%s\nMODDIR=%s\n' "$kver" "$vmlinuz" "$root/lib/modules/$kver"
}

if [ $refresh = 0 ] && [ -L "$kdir/current" ] && print_paths "$(readlink -f "$kdir/current")"; then
    exit 0
fi

start=$(vm_now)
vm_need_pkgs apt dpkg
vm_apt_update_once
tmp=$(mktemp -d "$kdir/download.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
apt_opts=(-q -o APT::Sandbox::User=root)

# The metapackage depends on the versioned image package, e.g. linux-image-6.1.0-57-amd64.
apt-get "${apt_opts[@]}" download linux-image-amd64 >&2
meta=$(ls linux-image-amd64_*.deb)
pkg=$(dpkg-deb -f "$meta" Depends | tr ',|' '\n\n' | sed -n 's/^ *\(linux-image-[0-9][^ ]*\).*/\1/p' | head -n1)
[ -n "$pkg" ] || vm_die "cannot tell the kernel package from $meta"
ver=$(apt-cache show --no-all-versions "$pkg" 2>/dev/null | sed -n 's/^Version: //p' | head -n1)
dest=$kdir/${pkg}_${ver:-unknown}

if ! print_paths "$dest" >/dev/null; then
    vm_log "downloading $pkg $ver"
    apt-get "${apt_opts[@]}" download "$pkg" >&2
    rm -rf "$dest.partial"
    dpkg -x "$(ls "${pkg}"_*.deb)" "$dest.partial"
    rm -rf "$dest"
    mv "$dest.partial" "$dest"
    vm_log "unpacked into $dest in $(vm_elapsed "$start") s"
fi
ln -sfn "$(basename "$dest")" "$kdir/current"
print_paths "$dest"
