#!/bin/bash
# Prints the size of a stripped kiosk binary in one line and fails when it is over the limit:
# `make deb` and `make deb-arm64` run it on the binary they packaged, after install-files
# stripped it. MB here is 2^20 bytes (what `ls -lh` calls M). README (development) says what
# makes the binary and how to measure it again.
#
# usage: packaging/check-size.sh [--limit MB] BINARY
#   --limit MB  the most it may be, a whole number (default 8)
#   BINARY      the stripped binary, e.g. build/deb/root/usr/bin/bubble-kiosk
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
LOG_TAG=check-size
. "$here/lib.sh"
limit=8
parse_args '--limit=limit binary' "$@"
[[ $limit =~ ^[0-9]+$ ]] || die "--limit wants a whole number of MB, not '$limit'"
[ -f "$binary" ] || die "no such file: $binary"
bytes=$(stat -c %s "$binary")
mb=$(awk -v b="$bytes" 'BEGIN { printf "%.1f", b / 1048576 }')
echo "bubble-kiosk: stripped binary $mb MB (limit $limit MB)"
if [ "$bytes" -gt $((limit * 1048576)) ]; then
    echo "bubble-kiosk: $binary is $bytes bytes, over the limit of $((limit * 1048576))" >&2
    exit 1
fi
