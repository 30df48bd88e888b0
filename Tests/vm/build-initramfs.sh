#!/bin/bash
# Builds a gzip'd newc cpio initramfs that boots straight into a test scenario.
#
# usage: Tests/vm/build-initramfs.sh --out FILE --scenario SCRIPT [--binary PATH[:DEST]]...
#            [--file SRC:DEST]... [--module NAME]... [--no-fonts] [--cjk-fonts] [--moddir DIR]
#   --out FILE        the initramfs to write (gzip'd cpio)
#   --scenario SCRIPT shell script (busybox sh) that /init runs as /scenario; its exit
#                     status is reported as "VM-TEST-END rc=N"
#   --binary PATH     a program under test, installed as /usr/local/bin/NAME (or DEST),
#                     together with every shared library ldd lists for it
#   --file SRC:DEST   any extra file or directory (recordings, device descriptions, configs)
#   --module NAME     an extra kernel module (dependencies are added and loaded first)
#   --no-fonts        leave out the fonts and /etc/fonts/fonts.conf
#   --cjk-fonts       add Noto Sans CJK (Chinese, Japanese, Korean: 40 MB, so only when asked)
#   --moddir DIR      kernel modules (default: the cached Debian kernel from kernel.sh)
#
# Always included: busybox (all applets), the modules drm drm_kms_helper ttm drm_ttm_helper
# drm_vram_helper bochs uinput evdev (loaded in that order with insmod), evemu-device,
# evemu-play, evemu-event, evemu-describe, the guest helpers vm-screendump and vm-head (both
# through vm-ask), and the scenarios' shared shell functions (guest-lib.sh) as
# /usr/lib/vm-guest.sh.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

out= scenario= moddir= fonts=1 cjk=0
binaries=() files=() modules=(drm drm_kms_helper ttm drm_ttm_helper drm_vram_helper bochs uinput evdev)
parse_args '--out=out --scenario=scenario --binary+=binaries --file+=files --module+=modules --no-fonts:fonts=0
    --cjk-fonts:cjk=1 --moddir=moddir' "$@"
[ -n "$out" ] || die "--out FILE is required"
[ -n "$scenario" ] && [ -f "$scenario" ] || die "--scenario SCRIPT is required (got '${scenario}')"

start=$(now)
pkgs=(busybox-static evemu-tools libc-bin gzip)
[ $fonts = 1 ] && pkgs+=(fonts-dejavu-core fonts-noto-core)
[ $fonts = 1 ] && [ $cjk = 1 ] && pkgs+=(fonts-noto-cjk)
need_host_packages "${pkgs[@]}"
if [ -z "$moddir" ]; then
    eval "$("$VM_DIR/kernel.sh")"
    moddir=$MODDIR
fi
[ -d "$moddir/kernel" ] || die "no kernel modules in $moddir"

root=$(mktemp -d /tmp/vm-initramfs.XXXXXX)
# mktemp makes the folder 0700; as the guest's / it must let every user in.
chmod 755 "$root"
trap 'rm -rf "$root"' EXIT
mkdir -p "$root"/{bin,sbin,etc,proc,sys,dev,tmp,run,root,usr/bin,usr/local/bin,lib/modules,var/cache}

# --- files and their shared libraries -------------------------------------------------

# put SRC DEST: copies a file (following symlinks) or a directory to DEST inside the image.
put() {
    local src=$1 dest=$2
    [ -e "$src" ] || die "missing: $src"
    mkdir -p "$root$(dirname "$dest")"
    if [ -d "$src" ]; then
        mkdir -p "$root$dest"
        cp -a "$src/." "$root$dest/"
    else
        cp -L "$src" "$root$dest"
    fi
}

# put_libs BINARY: every library ldd resolves (and the ELF interpreter), at the same path.
put_libs() {
    local lib
    file_is_dynamic "$1" || return 0
    for lib in $(ldd "$1" | awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }'); do
        [ -e "$root$lib" ] || put "$lib" "$lib"
    done
    # Read whole first: under pipefail `ldd | grep -q` can fail on SIGPIPE when grep matches.
    local missing
    missing=$(ldd "$1" | grep 'not found' || true)
    if [ -n "$missing" ]; then
        echo "$missing" >&2
        die "unresolved libraries for $1"
    fi
}
file_is_dynamic() {
    # ELF magic, then ask ldd; scripts and static binaries have nothing to add.
    [ "$(head -c 4 "$1" | od -An -c | tr -d ' ')" = '177ELF' ] && ldd "$1" >/dev/null 2>&1
}

put /bin/busybox /bin/busybox
for tool in evemu-device evemu-play evemu-event evemu-describe; do
    put "/usr/bin/$tool" "/usr/bin/$tool"
    put_libs "/usr/bin/$tool"
done
for spec in ${binaries[@]+"${binaries[@]}"}; do
    src=${spec%%:*}
    dest=/usr/local/bin/$(basename "$src")
    [ "$spec" != "$src" ] && dest=${spec#*:}
    put "$src" "$dest"
    chmod +x "$root$dest"
    put_libs "$src"
done
for spec in ${files[@]+"${files[@]}"}; do
    [ "$spec" != "${spec%%:*}" ] || die "--file wants SRC:DEST, got $spec"
    put "${spec%%:*}" "${spec#*:}"
    [ -f "${spec%%:*}" ] && put_libs "${spec%%:*}"
done

# Fonts for Pango/fontconfig: Debian's DejaVu core set, Noto Sans for the scripts the kiosk's
# languages use beyond it (Arabic, Hebrew, Devanagari, Thai: 1 MB), Noto Sans CJK when asked,
# and a minimal fonts.conf.
if [ $fonts = 1 ]; then
    for f in $(dpkg -L fonts-dejavu-core | grep '\.ttf$'); do put "$f" "$f"; done
    for f in $(dpkg -L fonts-noto-core | grep -E '/NotoSans(Arabic|Hebrew|Devanagari|Thai)-(Regular|Bold)\.ttf$'); do
        put "$f" "$f"
    done
    if [ $cjk = 1 ]; then
        for f in $(dpkg -L fonts-noto-cjk | grep -E '/NotoSansCJK-(Regular|Bold)\.ttc$'); do put "$f" "$f"; done
    fi
    mkdir -p "$root/etc/fonts"
    cat > "$root/etc/fonts/fonts.conf" <<'CONF'
<?xml version="1.0"?>
<!DOCTYPE fontconfig SYSTEM "urn:fontconfig:fonts.dtd">
<!-- Minimal configuration for the test VM: DejaVu first, Noto for what it lacks. -->
<fontconfig>
  <dir>/usr/share/fonts</dir>
  <cachedir>/var/cache/fontconfig</cachedir>
  <alias><family>sans-serif</family><prefer><family>DejaVu Sans</family></prefer></alias>
  <alias><family>serif</family><prefer><family>DejaVu Serif</family></prefer></alias>
  <alias><family>monospace</family><prefer><family>DejaVu Sans Mono</family></prefer></alias>
</fontconfig>
CONF
fi

# A loader cache for whatever library folders were copied (the Swift runtime's, too).
find "$root" -name '*.so*' -type f -printf '%h\n' | sed "s|^$root||" | sort -u > "$root/etc/ld.so.conf"
ldconfig -r "$root" 2>/dev/null || log "ldconfig -r failed (libraries are still found by path)"

# --- kernel modules, dependencies first -------------------------------------------------

declare -A modpath=() loaded=()
while IFS= read -r f; do
    n=${f##*/}; n=${n%%.ko*}; modpath[${n//-/_}]=$f
done < <(find "$moddir/kernel" -name '*.ko*')

modinfo_field() { # FILE FIELD: reads a field of the module's .modinfo section
    local f=$1
    case "$f" in
        *.ko.xz) busybox unxz -c "$f" ;;
        *.ko.zst) zstd -dc "$f" ;;
        *.ko.gz) gzip -dc "$f" ;;
        *) cat "$f" ;;
    esac | tr '\0' '\n' | sed -n "s/^$2=//p" | head -n1
}
order=()
add_module() {
    local name=${1//-/_} dep f
    [ -n "${loaded[$name]:-}" ] && return 0
    f=${modpath[$name]:-}
    [ -n "$f" ] || die "kernel module $name not found under $moddir (built in?)"
    loaded[$name]=1
    for dep in $(modinfo_field "$f" depends | tr ',' ' '); do add_module "$dep"; done
    case "$f" in
        *.ko.xz) busybox unxz -c "$f" > "$root/lib/modules/$name.ko" ;;
        *.ko.zst) zstd -dc "$f" > "$root/lib/modules/$name.ko" ;;
        *.ko.gz) gzip -dc "$f" > "$root/lib/modules/$name.ko" ;;
        *) cp "$f" "$root/lib/modules/$name.ko" ;;
    esac
    order+=("$name")
}
for m in "${modules[@]}"; do add_module "$m"; done
printf '%s\n' "${order[@]}" > "$root/etc/vm-modules"

# --- the scenario, the guest helpers and /init ------------------------------------------

put "$scenario" /scenario
chmod +x "$root/scenario"
# Every scenario sources this (wait_for, new_device, finish...), so it goes in every image.
put "$VM_DIR/guest-lib.sh" /usr/lib/vm-guest.sh

# The host answers both helpers' requests on ttyS1 ("VM-ACK KEY ok|fail"): vm-ask waits for it.
cat > "$root/usr/bin/vm-ask" <<'SH'
#!/bin/sh
# vm-ask KEY SECONDS REQUEST TIMEOUT-LINE: writes the REQUEST line to the console for the host
# and waits (SECONDS) for its answer "VM-ACK KEY ok|fail" on ttyS1, which is open before the
# request goes out, so no answer is missed. Exit 0 on ok, 1 on fail or, after writing
# TIMEOUT-LINE, when no answer came.
key=$1 wait=$2
exec 3<>/dev/ttyS1
stty -F /dev/ttyS1 raw -echo 2>/dev/null
echo "$3" > /dev/console
end=$(( $(cut -d. -f1 /proc/uptime) + wait ))
while [ "$(cut -d. -f1 /proc/uptime)" -lt "$end" ]; do
    read -t 1 -r word what status <&3 || continue
    [ "$word $what" = "VM-ACK $key" ] || continue
    exec 3<&-
    [ "$status" = ok ]
    exit
done
echo "$4" > /dev/console
exit 1
SH
chmod +x "$root/usr/bin/vm-ask"

cat > "$root/usr/bin/vm-screendump" <<'SH'
#!/bin/sh
# vm-screendump [--head N] NAME [TIMEOUT]: asks the host for a QMP screendump (saved as NAME.ppm)
# and waits until the host answers on ttyS1 that it is taken. Exit 0 when it was.
# --head N: output N (0, 1, ...) of a card with several (run-vm.sh --gpu virtio:N); without it
# QEMU's first console, which is head 0.
head=
if [ "$1" = --head ]; then head=$2; shift 2; fi
name=$1 wait=${2:-20}
case "$name" in ''|*[!A-Za-z0-9_.-]*) echo "vm-screendump: bad name '$name'" >&2; exit 2 ;; esac
case "$head" in *[!0-9]*) echo "vm-screendump: bad head '$head'" >&2; exit 2 ;; esac
exec vm-ask "$name" "$wait" "VM-SCREENDUMP $name${head:+ $head}" "VM-SCREENDUMP-TIMEOUT $name"
SH
chmod +x "$root/usr/bin/vm-screendump"

cat > "$root/usr/bin/vm-head" <<'SH'
#!/bin/sh
# vm-head HEAD WxH|off [TIMEOUT]: plugs a WxH monitor into output HEAD of the virtio-gpu card
# (run-vm.sh --gpu virtio:N), or unplugs it, from QEMU's side: the guest gets a display-change
# event (connector status, modes and a HOTPLUG=1 uevent). Waits for the host's answer on ttyS1;
# exit 0 when QEMU took it.
head=$1 size=$2 wait=${3:-20}
case "$head" in ''|*[!0-9]*) echo "vm-head: bad head '$head'" >&2; exit 2 ;; esac
case "$size" in off|[1-9]*x[1-9]*) ;; *) echo "vm-head: bad size '$size' (WxH or off)" >&2; exit 2 ;; esac
exec vm-ask "head-$head" "$wait" "VM-HEAD $head $size" "VM-HEAD-TIMEOUT $head"
SH
chmod +x "$root/usr/bin/vm-head"

cat > "$root/init" <<'SH'
#!/bin/busybox sh
# PID 1 of the test VM: mount, load modules, run /scenario, report, power off.
/bin/busybox mkdir -p /proc /sys /dev /tmp
/bin/busybox mount -t devtmpfs devtmpfs /dev
exec </dev/console >/dev/console 2>&1
/bin/busybox --install -s /bin
export PATH=/usr/local/bin:/usr/bin:/bin:/sbin HOME=/root TERM=linux
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mkdir -p /dev/pts /dev/shm && mount -t devpts devpts /dev/pts
echo "VM-TEST-BEGIN kernel=$(uname -r)"
for m in $(cat /etc/vm-modules); do
    insmod "/lib/modules/$m.ko" || echo "VM-MODULE-FAIL $m"
done
echo "VM-READY uptime=$(cut -d' ' -f1 /proc/uptime)"
cd /
sh /scenario
rc=$?
echo "VM-TEST-END rc=$rc uptime=$(cut -d' ' -f1 /proc/uptime)"
sync
poweroff -f
echo o > /proc/sysrq-trigger
sleep 5
SH
chmod +x "$root/init"

# --- pack -------------------------------------------------------------------------------

mkdir -p "$(dirname "$out")"
( cd "$root" && find . | busybox cpio -o -H newc 2>/dev/null ) | gzip -6 > "$out.tmp"
mv "$out.tmp" "$out"
log "initramfs $out: $(du -h "$out" | cut -f1), modules: ${order[*]} ($(elapsed "$start") s)"
