# Shared helpers for the arm64 build scripts (and the tests that use the same environment).
# Source it, do not run it.

ARM64_CACHE=${ARM64_CACHE:-/var/cache/bubble-kiosk-arm64}

# The tag before every message: the VM tests' lib.sh, which shares these helpers, sets "vm".
LOG_TAG=${LOG_TAG:-arm64}
arm64_log() { printf '[%s] %s\n' "$LOG_TAG" "$*" >&2; }
arm64_die() { printf '[%s] error: %s\n' "$LOG_TAG" "$*" >&2; exit 2; }
arm64_now() { date +%s.%N | cut -c1-14; }
arm64_elapsed() { awk -v a="$1" -v b="$(arm64_now)" 'BEGIN { printf "%.1f", b - a }'; }

# need_host_packages PKG...: installs the Debian packages this machine lacks (as root).
need_host_packages() {
    local missing=() p
    for p in "$@"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
    done
    [ ${#missing[@]} -eq 0 ] && return 0
    [ "$(id -u)" = 0 ] || arm64_die "missing packages (${missing[*]}): run as root, or: sudo apt-get install ${missing[*]}"
    arm64_log "apt-get install ${missing[*]}"
    apt-get update -qq >&2
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2 \
        || arm64_die "apt-get install ${missing[*]} failed"
}

# debian_mirror: the machine's own Debian mirror, as apt uses it (deb822 first, then the
# one-line format), so roots come from where this machine's packages come from.
debian_mirror() {
    local m=
    if [ -f /etc/apt/sources.list.d/debian.sources ]; then
        m=$(awk '/^URIs:/ { print $2; exit }' /etc/apt/sources.list.d/debian.sources)
    fi
    if [ -z "$m" ] && [ -f /etc/apt/sources.list ]; then
        m=$(awk '$1 == "deb" && $0 !~ /security/ { for (i = 2; i <= NF; i++) if ($i ~ /^https?:/) { print $i; exit } }' /etc/apt/sources.list)
    fi
    echo "${m:-http://deb.debian.org/debian}"
}

# in_chroot ROOT [--bind DIR] COMMAND...: runs COMMAND in ROOT with /proc, /sys and /dev, and
# DIR at the same path inside, mounted in a private mount namespace: the mounts end with the
# command, whatever happens to it.
in_chroot() {
    local root=$1 bind=
    shift
    if [ "${1:-}" = --bind ]; then bind=$2; shift 2; fi
    unshare --mount --propagation private -- /bin/sh -ec '
        root=$1 bind=$2; shift 2
        mount -t proc proc "$root/proc"
        mount --rbind /sys "$root/sys"
        mount --rbind /dev "$root/dev"
        if [ -n "$bind" ]; then mkdir -p "$root$bind"; mount --bind "$bind" "$root$bind"; fi
        exec chroot "$root" "$@"' in_chroot "$root" "$bind" "$@"
}

# remove_tree DIR: removes a root that a killed debootstrap may have left with /proc or /sys
# mounted inside: unmounts what is mounted below DIR first (deepest first), and never crosses
# into another file system.
remove_tree() {
    local dir=$1 m
    [ -e "$dir" ] || return 0
    dir=$(realpath "$dir")
    for m in $(awk -v d="$dir/" 'index($2, d) == 1 { print $2 }' /proc/mounts | sort -r); do
        umount -l "$m" || arm64_die "cannot unmount $m (left by an earlier run); remove $dir by hand"
    done
    rm -rf --one-file-system "$dir"
}
