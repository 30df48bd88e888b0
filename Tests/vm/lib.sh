# The VM tests' helpers: their options, the files a guest gets, one VM run and the host-side
# checks on it. Source it, do not run it (it sources packaging/lib.sh: log, die, parse_args,
# wait_until, need_host_packages...).
#   . "$(dirname "$0")/lib.sh"

VM_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
export VM_DIR                   # (the checks' Python snippets import ppm from here)
VM_CACHE=${VM_CACHE:-/var/cache/bubble-kiosk-vm}
. "$VM_DIR/../../packaging/lib.sh"

# vm_workdir DIR NAME: DIR, or a new /tmp/vm-NAME.* folder when DIR is empty; made if missing.
# Prints the absolute path (generated files are handed to tools that run elsewhere).
vm_workdir() {
    local dir=$1
    [ -n "$dir" ] || dir=$(mktemp -d "/tmp/vm-$2.XXXXXX")
    mkdir -p "$dir" && (cd "$dir" && pwd)
}

# vm_test_args SPEC "$@": the options every kiosk test takes, and those in SPEC (parse_args's
# words, '' for none): sets work, verbose and binary.
#   --workdir DIR   generated files, initramfs, serial.log (default: a new /tmp/vm-NAME.* dir)
#   --verbose       echo the guest's serial console while it runs, and every check's details
#   --binary PATH   test this bubble-kiosk (default: `make release`)
vm_test_args() {
    work=${VM_WORK:-} verbose=--quiet binary=
    parse_args "--workdir=work --verbose:verbose= --binary=binary $1" "${@:2}"
    [ -n "$verbose" ] || export VM_VERBOSE=1
}

# vm_test_files FILE...: appends "--file FILE:/test/NAME" for each to the array VM_FILES, for
# build-initramfs.sh (recordings, device descriptions and configs all go in the guest's /test).
VM_FILES=()
vm_test_files() {
    local f
    for f in "$@"; do VM_FILES+=(--file "$f:/test/${f##*/}"); done
}

# --- one VM run and the host-side assertions on it ------------------------------------------

# vm_boot INITRD OUTDIR TIMEOUT [RUN-VM-ARGS...]: boots the initramfs with run-vm.sh into an
# emptied OUTDIR (extra arguments such as --quiet go to run-vm.sh). Sets VM_OUT (OUTDIR),
# VM_LOG (its serial.log) and VM_RC (run-vm.sh's exit status: 0 when the scenario ended with
# rc=0). It does not fail itself: a broken run is reported by the checks that follow.
VM_OUT= VM_LOG= VM_RC=
vm_boot() {
    local initrd=$1 timeout=$3
    VM_OUT=$2
    shift 3
    rm -rf "$VM_OUT"
    VM_RC=0
    "$VM_DIR/run-vm.sh" --initrd "$initrd" --outdir "$VM_OUT" --timeout "$timeout" "$@" || VM_RC=$?
    VM_LOG=$VM_OUT/serial.log
}

# Each check prints "ok   WHAT" or "FAIL WHAT" and counts into VM_PASSED / VM_FAILED;
# vm_summary NAME prints the total at the end.
VM_PASSED=0 VM_FAILED=0

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

# vm_ran_ok: the scenario ran to "VM-TEST-END rc=0" (run-vm.sh exited 0).
vm_ran_ok() { [ "$VM_RC" = 0 ]; }

# vm_modules_loaded: /init reported no VM-MODULE-FAIL.
vm_modules_loaded() { ! vm_has VM-MODULE-FAIL; }

# vm_has REGEX: a line of $VM_LOG matches (extended regex).
vm_has() { grep -qE -- "$1" "$VM_LOG"; }

# VM_TAG: the tag of the scenario's markers (its `say`, guest-lib.sh), for the three below.
VM_TAG=
# vm_status_is CHECKPOINT REGEX: the status line the guest said at CHECKPOINT ("$VM_TAG-STATUS
# CHECKPOINT LINE", the last one) matches.
vm_status_is() { grep -E "^$VM_TAG-STATUS $1 " "$VM_LOG" | tail -n1 | grep -qE -- "$2"; }
# vm_exited_ok RUN: the guest's finish said "$VM_TAG-EXIT RUN rc=0".
vm_exited_ok() { vm_has "^$VM_TAG-EXIT $1 rc=0"; }
# vm_no_wait: no wait in the guest gave up ("$VM_TAG-WAIT ...").
vm_no_wait() { ! vm_has "^$VM_TAG-WAIT"; }

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

# vm_no_crash PREFIX [REGEX]: none of the program's lines ("PREFIX| ...") shows a crash (or
# matches REGEX, for a test's own error messages).
VM_CRASH_RE='Fatal error|Segmentation|Illegal instruction|Trace/breakpoint|Aborted'
# (The lines are read whole first: under pipefail a `grep -q` that stops at a match would make
# the pipe fail on SIGPIPE, and the crash would go unseen.)
vm_no_crash() { ! grep -qE -- "$VM_CRASH_RE${2:+|$2}" <<< "$(vm_lines "$1")"; }

# vm_dump NAME ARGS...: `ppm.py check` on the screendump $VM_OUT/NAME.ppm.
vm_dump() { python3 "$VM_DIR/ppm.py" check "$VM_OUT/$1.ppm" "${@:2}"; }

# vm_shown NAME STATE ROTATION POPPED-IDS: the screendump NAME shows the round in STATE
# (mapped for ROTATION) without the bubbles POPPED-IDS (bubbles.py check).
vm_shown() { vm_bubbles check "$VM_OUT/$1.ppm" "$2" "$3" --popped "$4"; }

# vm_png_copies: a PNG next to each screendump, to look at (best effort).
vm_png_copies() {
    local f
    for f in "$VM_OUT"/*.ppm; do
        if [ -e "$f" ]; then python3 "$VM_DIR/ppm.py" png "$f" > /dev/null || true; fi
    done
}

# vm_summary NAME [LINES]: after a failure, the last LINES (default 40) of the serial log;
# then "NAME: N passed, N failed". Returns 1 when a check failed, so it can end the script.
vm_summary() {
    if [ "$VM_FAILED" -gt 0 ]; then
        echo "--- last lines of $VM_LOG"
        tail -n "${2:-40}" "$VM_LOG" || true
    fi
    echo "$1: $VM_PASSED passed, $VM_FAILED failed"
    [ "$VM_FAILED" = 0 ]
}

# --- what the guest plays and what the host expects, made by the binary under test ------------

# vm_test_dir [SEED]: gen=$work/test, new and empty, for what the guest gets in /test
# (vm_test_files "$gen"/*): with SEED, /test/params says SEED=SEED for the scenario to source.
# Removes an earlier $work/expected.sh too (vm_expect appends to it).
vm_test_dir() {
    gen=$work/test
    rm -rf "$gen"
    mkdir -p "$gen"
    [ $# = 0 ] || printf 'SEED=%s\n' "$1" > "$gen/params"
    rm -f "$work/expected.sh"
}

# vm_bubbles ARGS...: Tests/vm/e2e/bubbles.py (expect, check, goal, pick-drag, drag).
vm_bubbles() { python3 "$VM_DIR/e2e/bubbles.py" "$@"; }
vm_events() { grep '^E:' "$1"; }           # a recording's part for evemu-play
vm_header() { sed '/^E:/,$d' "$1"; }       # its part for evemu-device

# vm_recording NAME ARGS...: `$binary round-recording ARGS` into $work/NAME.evemu, its events
# into $gen/NAME.events for the guest.
vm_recording() {
    "$binary" round-recording "${@:2}" > "$work/$1.evemu"
    vm_events "$work/$1.evemu" > "$gen/$1.events"
}

# vm_expect PREFIX STATE N: the score and bubbles left once the first N bubbles of the round in
# STATE (`state` output) are popped, as PREFIX_SCORE=..., PREFIX_REMAINING=..., PREFIX_TOTAL=...
# lines appended to $work/expected.sh (the script sources it once all are there).
vm_expect() { vm_bubbles expect "$2" "$3" | sed "s/^/$1_/" >> "$work/expected.sh"; }

# vm_first_ids N: "0,1,...,N-1", the ids of the first N bubbles.
vm_first_ids() { seq -s, 0 $(($1 - 1)); }

# vm_kiosk_binary [PATH]: the bubble-kiosk to test, as an absolute path. Without PATH it runs
# `make release` (the one release configuration: static Swift runtime), so every test uses the
# same build and none rebuilds with other flags.
vm_kiosk_binary() {
    local binary=${1:-}
    if [ -z "$binary" ]; then
        local repo
        repo=$(cd "$VM_DIR/../.." && pwd)
        log "make release"
        make -C "$repo" release >&2
        binary=$repo/.build/release/bubble-kiosk
    fi
    [ -x "$binary" ] || die "no binary at $binary"
    echo "$(cd "$(dirname "$binary")" && pwd)/$(basename "$binary")"
}

# vm_binfmt_aarch64: lets this machine run arm64 programs, in a chroot too (dpkg's maintainer
# scripts in an arm64 root), through qemu-user-static and binfmt_misc, as Debian's
# qemu-user-binfmt package would. The handler is registered with the F flag (the kernel opens the
# interpreter now, so chroots need no copy of it) and stays until reboot: scripts that run at
# the same time share it, and none can pull it away from under another.
VM_BINFMT=/proc/sys/fs/binfmt_misc
vm_binfmt_aarch64() {
    local f
    need_host_packages qemu-user-static
    [ -e "$VM_BINFMT/register" ] || mount -t binfmt_misc binfmt_misc "$VM_BINFMT" \
        || die "cannot mount binfmt_misc: arm64 maintainer scripts cannot run here"
    for f in "$VM_BINFMT"/qemu-aarch64 "$VM_BINFMT"/bubble-kiosk-aarch64; do
        [ -f "$f" ] && grep -qx enabled "$f" && return 0
    done
    # ELF, 64-bit, little-endian, executable or shared object, machine 183 (AArch64).
    printf '%s' ':bubble-kiosk-aarch64:M::\x7fELF\x02\x01\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x02\x00\xb7\x00:\xff\xff\xff\xff\xff\xff\xff\x00\xff\xff\xff\xff\xff\xff\xff\xff\xfe\xff\xff\xff:/usr/bin/qemu-aarch64-static:F' \
        > "$VM_BINFMT/register" || die "cannot register qemu-aarch64-static with binfmt_misc"
}
