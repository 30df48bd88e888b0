#!/bin/bash
# Runs a command inside the arm64 build environment (packaging/arm64/toolchain.sh, made on first
# use), in the current folder: the checkout is mounted at its own path inside, so what the
# command writes under it lands in the checkout. PKG_CONFIG_PATH points at the arm64 .pc files
# (SwiftPM ignores PKG_CONFIG_LIBDIR; without it the amd64 libraries would be linked).
#
# usage: packaging/arm64/in-toolchain.sh COMMAND [ARG...]
#   e.g. packaging/arm64/in-toolchain.sh swift --version
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
. "$here/../lib.sh"
# (Not parse_args: every argument, options too, belongs to COMMAND.)
[ $# -gt 0 ] || { script_help; exit 2; }
case "$PWD/" in
    "$repo"/*) ;;
    *) die "run it from inside the checkout ($repo), not $PWD" ;;
esac
eval "$("$here/toolchain.sh")"
in_chroot "$TOOLCHAIN" --bind "$repo" /usr/bin/env HOME=/tmp PKG_CONFIG_PATH=/usr/lib/aarch64-linux-gnu/pkgconfig \
    /bin/sh -c 'cd "$0" && exec "$@"' "$PWD" "$@"
