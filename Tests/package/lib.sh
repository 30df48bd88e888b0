# Shared by the package tests: `check WHAT COMMAND...` runs the command, prints "ok   WHAT" or
# "FAIL WHAT" with the first lines of its output, and counts; `summary NAME` prints the counts
# and fails when anything did. Needs $work (a scratch folder) set by the caller. Sources the
# build scripts' library (packaging/lib.sh: parse_args, need_host_packages, in_chroot...).
. "$(dirname "${BASH_SOURCE[0]}")/../../packaging/lib.sh"
passed=0 failed=0
check() {
    local what=$1; shift
    if "$@" > "$work/last.out" 2>&1; then
        passed=$((passed + 1)); echo "ok   $what"
    else
        failed=$((failed + 1)); echo "FAIL $what"; sed 's/^/       /' "$work/last.out" | head -n 30
    fi
}
summary() {
    echo "$1: $passed passed, $failed failed"
    [ $failed = 0 ]
}
