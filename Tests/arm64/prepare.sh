#!/bin/bash
# Makes the caches the arm64 tests need ahead of them: the arm64 build environment, trixie's
# arm64 kernel, and the Debian 13 roots of the two trixie boots. `make test` starts it in the
# background at its beginning, so this work (downloads, and dpkg under qemu-user on one core)
# overlaps the earlier tests, whose emulated machines leave the second core mostly idle. Every
# step takes its cache's lock and returns at once when the cache is there, so the tests that
# need a cache later simply wait for it (or, should this have failed, make it themselves).
#
# usage: Tests/arm64/prepare.sh     (progress and timings on stdout)
set -uo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
. "$repo/packaging/lib.sh"
step() {
    local t0 rc=0
    t0=$(now)
    "$@" > /dev/null || rc=$?
    echo "prepare: $* -> rc=$rc after $(elapsed "$t0") s"
}
step bash "$repo/packaging/arm64/toolchain.sh"
step bash "$repo/Tests/vm/kernel.sh" --arch arm64
step bash "$repo/Tests/vm/debian-root.sh" --arch arm64
step bash "$repo/Tests/vm/debian-root.sh" --suite trixie
