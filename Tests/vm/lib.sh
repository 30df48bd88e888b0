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

# --- host-side assertions on a VM run (used by e2e-test.sh) --------------------------------
# Set VM_LOG to the run's serial.log first. Each check prints "ok   WHAT" or "FAIL WHAT" and
# counts into VM_PASSED / VM_FAILED; vm_summary NAME prints "NAME: N passed, N failed".
VM_PASSED=0 VM_FAILED=0 VM_LOG=

# vm_check WHAT COMMAND...: passes when the command exits 0 (its output is discarded).
vm_check() {
    local _vm_what=$1; shift
    if "$@" > /dev/null 2>&1; then
        VM_PASSED=$((VM_PASSED + 1)); echo "ok   $_vm_what"
    else
        VM_FAILED=$((VM_FAILED + 1)); echo "FAIL $_vm_what"
    fi
}

# vm_check_show WHAT COMMAND...: like vm_check, but on failure (or with VM_VERBOSE=1) the
# command's output follows, indented.
# (Locals start with _vm_: bash scopes them dynamically, so the command would see them.)
vm_check_show() {
    local _vm_what=$1 _vm_out _vm_rc=0; shift
    _vm_out=$("$@" 2>&1) || _vm_rc=$?
    if [ $_vm_rc = 0 ]; then
        VM_PASSED=$((VM_PASSED + 1)); echo "ok   $_vm_what"
    else
        VM_FAILED=$((VM_FAILED + 1)); echo "FAIL $_vm_what"
    fi
    if [ $_vm_rc != 0 ] || [ "${VM_VERBOSE:-0}" = 1 ]; then printf '%s\n' "$_vm_out" | sed 's/^/       /'; fi
    return 0
}

# vm_has REGEX: a line of $VM_LOG matches (extended regex).
vm_has() { grep -qE -- "$1" "$VM_LOG"; }

# vm_lines PREFIX: the lines a guest printed as "PREFIX| ...", without the prefix.
vm_lines() { grep -E "^$1\| " "$VM_LOG" | sed "s/^$1| //"; }

# vm_in_order PREFIX REGEX...: lines of `vm_lines PREFIX` match the regexes in this order.
vm_in_order() {
    local _vm_prefix=$1 _vm_after=0 _vm_re _vm_line; shift
    for _vm_re in "$@"; do
        _vm_line=$(vm_lines "$_vm_prefix" | grep -nE -- "$_vm_re" | awk -F: -v a="$_vm_after" '$1 > a { print $1; exit }')
        [ -n "$_vm_line" ] || return 1
        _vm_after=$_vm_line
    done
}

vm_summary() { echo "$1: $VM_PASSED passed, $VM_FAILED failed"; }
