#!/bin/bash
# Checks the source package `make deb-source` built: lintian (no errors, no warnings), its
# fields (both binary packages, Build-Depends on debhelper compat 13 and Debian 13's swiftlang,
# the version VERSION plus a Debian revision, format 3.0 (quilt)), and that it unpacks with
# dpkg-source into the checkout's files: no patches, nothing built, debian/ as in the checkout.
#
# usage: Tests/package/source-test.sh build/bubble-kiosk_VERSION-REV.dsc
# Ends with "source-test: N passed, M failed"; exit 0 only when nothing failed.
set -uo pipefail

repo=$(cd "$(dirname "$0")/../.." && pwd)
. "$(dirname "$0")/lib.sh"
LOG_TAG=source-test
parse_args 'dsc' "$@"
[ -f "$dsc" ] || die "no source package at $dsc"
dsc=$(cd "$(dirname "$dsc")" && pwd)/$(basename "$dsc")
work=$(mktemp -d /tmp/source-test.XXXXXX)
trap 'rm -rf "$work"' EXIT

# field NAME: the .dsc's field (its signature-less deb822 paragraph).
field() { awk -v f="$1:" '$1 == f { sub(/^[^:]*:[[:space:]]*/, ""); v = $0; on = 1; next }
    on && /^[[:space:]]/ { v = v "\n" $0; next } on { exit } END { print v }' "$dsc"; }
version=$(field Version)
upstream=$(cat "$repo/VERSION")

lintian_clean() {
    lintian --no-tag-display-limit "$dsc" 2>&1 | grep -v 'running with root privileges' > "$work/lintian.out"
    cat "$work/lintian.out"
    ! grep -qE '^[EW]: ' "$work/lintian.out"
}
check "lintian reports no errors and no warnings" lintian_clean
check "Source is bubble-kiosk, Format 3.0 (quilt)" [ "$(field Source)/$(field Format)" = "bubble-kiosk/3.0 (quilt)" ]
check "Binary: bubble-kiosk and bubble-kiosk-lockdown" [ "$(field Binary)" = "bubble-kiosk, bubble-kiosk-lockdown" ]
check "Architecture: any all" [ "$(field Architecture)" = "any all" ]
check "Version is VERSION ($upstream) plus a Debian revision, as the file name says" \
    bash -c "[[ '$version' =~ ^${upstream//./\\.}-[0-9]+\$ ]] && [ '$(basename "$dsc")' = 'bubble-kiosk_$version.dsc' ]"
build_depends=$(field Build-Depends | tr ',\n' '  ')
echo "     Build-Depends: $build_depends"
build_depends_on() { grep -qF -- " $1 " <<< " $build_depends "; }
check "Build-Depends: debhelper-compat (= 13)" build_depends_on "debhelper-compat (= 13)"
check "Build-Depends: swiftlang (Debian 13's Swift)" build_depends_on swiftlang
for pkg in libcairo2-dev libdrm-dev libevdev-dev libsystemd-dev libudev-dev libsqlite3-dev libasound2-dev libsndfile1-dev \
           libmosquitto-dev libssl-dev libpixman-1-dev libpango1.0-dev pkgconf systemd-dev; do
    check "Build-Depends: $pkg" build_depends_on "$pkg"
done
check "Build-Depends names no SDL (the desktop window is not packaged)" bash -c "! grep -qi sdl <<< '$build_depends'"

check "dpkg-source -x unpacks it" bash -c "cd '$work' && dpkg-source --no-check -x '$dsc' src"
check "no patches: the orig tarball is the tree as it is" bash -c "[ ! -e '$work/src/debian/patches/series' ] || [ ! -s '$work/src/debian/patches/series' ]"
check "debian/ is the checkout's" diff -r "$repo/debian" "$work/src/debian"
check "the sources are the checkout's (Package.swift, Sources/, the Makefile, systemd/)" \
    bash -c "for p in Package.swift Makefile VERSION Sources systemd packaging; do diff -r '$repo/'\$p '$work/src/'\$p || exit 1; done"
check "nothing built is in it (.build, build/)" bash -c "[ ! -e '$work/src/.build' ] && [ ! -e '$work/src/build' ]"

summary source-test
