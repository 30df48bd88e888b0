# Shared helpers for the Tests/vm scripts. Source it, do not run it.
#   . "$(dirname "$0")/lib.sh"

VM_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
VM_CACHE=${VM_CACHE:-/var/cache/bubble-kiosk-vm}

vm_log() { printf '[vm] %s\n' "$*" >&2; }
vm_die() { printf '[vm] error: %s\n' "$*" >&2; exit 2; }

# Runs `apt-get update` at most once per test run (the flag is exported so
# that the scripts a run starts share it).
vm_apt_update_once() {
    [ "${VM_APT_UPDATED:-}" = 1 ] && return 0
    vm_log "apt-get update"
    apt-get update -qq >&2 || vm_die "apt-get update failed"
    export VM_APT_UPDATED=1
}

# vm_need_pkgs PKG... : installs the Debian packages that are not installed yet.
vm_need_pkgs() {
    local missing=() p
    for p in "$@"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' \
            || missing+=("$p")
    done
    [ ${#missing[@]} -eq 0 ] && return 0
    [ "$(id -u)" = 0 ] || vm_die "missing packages (${missing[*]}) and not root to install them"
    vm_apt_update_once
    vm_log "apt-get install -y ${missing[*]}"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2 \
        || vm_die "apt-get install ${missing[*]} failed"
}

# Seconds since the epoch with milliseconds, for timing messages.
vm_now() { date +%s.%N | cut -c1-14; }
vm_elapsed() { awk -v a="$1" -v b="$(vm_now)" 'BEGIN { printf "%.1f", b - a }'; }
