#!/bin/bash
# Makes the environment that builds bubble-kiosk for arm64 boards, once, from Debian's archive:
# a Debian 13 (trixie) amd64 root with Debian's Swift 6.0.3 (`swiftlang`), the arm64 C libraries
# by multiarch, the arm64 Swift runtime (unpacked from `swiftlang:arm64` and `libswiftlang:arm64`)
# and a Swift SDK description that ties them together. It is kept in $ARM64_CACHE (default
# /var/cache/bubble-kiosk-arm64), outside any checkout; the folder's name carries a hash of its
# inputs (suite, mirror, package lists, this script), so changing one builds a new environment
# (the shared helpers in packaging/lib.sh are not an input). Environments no run has used for
# two weeks are removed then: checkouts at other commits may share the cache and still use theirs.
#
# usage: packaging/arm64/toolchain.sh [--rebuild]
# Prints TOOLCHAIN=/var/cache/bubble-kiosk-arm64/trixie-<hash> on stdout (progress on stderr), so
# callers can `eval "$(packaging/arm64/toolchain.sh)"`. Inside it:
#   /opt/swift-sdks           the SDK bundle: `swift build --swift-sdks-path /opt/swift-sdks
#                             --swift-sdk aarch64-debian13` (see in-toolchain.sh)
#   /opt/swift-arm64          the arm64 Swift runtime and modules
# Needs root (debootstrap, chroot) and about 4.5 GB of disk; about 750 MB are downloaded.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib.sh"

rebuild=0
parse_args '--rebuild:rebuild=1' "$@"
ARM64_CACHE=${ARM64_CACHE:-/var/cache/bubble-kiosk-arm64}

SUITE=trixie
SDK_NAME=aarch64-debian13
# The compiler and what the build steps run in the root: pkgconf finds the arm64 .pc files;
# `dpkg-buildpackage -a arm64` runs debian/rules with debhelper (dh_shlibdeps computes the arm64
# package's Depends with the cross objdump, which also strips); systemd-dev's systemd.pc says
# where Debian 13 keeps units; qemu-user runs the arm64 build to make the sounds
# (aarch64-linux-gnu-cross-exe-wrapper); gettext's msgfmt compiles the translations.
HOST_PACKAGES="swiftlang libc6-dev pkgconf dpkg-dev debhelper gettext systemd-dev binutils-aarch64-linux-gnu qemu-user"
# The arm64 side, by multiarch: the -dev packages of every system-library target the kiosk
# binary links (not SDL2: the desktop binary is never built for the board), and the C and C++
# runtime files the linker needs.
ARM64_PACKAGES="libc6-dev:arm64 libgcc-14-dev:arm64 libstdc++-14-dev:arm64 libcairo2-dev:arm64 \
libdrm-dev:arm64 libevdev-dev:arm64 libsystemd-dev:arm64 libsqlite3-dev:arm64 libasound2-dev:arm64 \
libsndfile1-dev:arm64 libudev-dev:arm64 libmosquitto-dev:arm64 libssl-dev:arm64 libpango1.0-dev:arm64 \
cross-exe-wrapper:arm64"
MIRROR=$(debian_mirror)

key=$(printf '%s\n' "$SUITE" "$MIRROR" "$HOST_PACKAGES" "$ARM64_PACKAGES" "$SDK_NAME" \
    "$(cat "$here/toolchain.sh")" | sha256sum | cut -c1-12)
root=$ARM64_CACHE/$SUITE-$key
mkdir -p "$ARM64_CACHE"
exec 9>"$ARM64_CACHE/.lock"
flock 9            # one build of the environment at a time when several runs share the cache

if [ $rebuild = 0 ] && [ -f "$root/.complete" ]; then
    touch "$root/.complete"     # used now: see the removal of unused ones below
    echo "TOOLCHAIN=$root"
    exit 0
fi

start=$(now)
log "debootstrap $SUITE (amd64) from $MIRROR"
debootstrap_partial "$root" "$ARM64_CACHE/debootstrap.log" "$SUITE" --variant=minbase
log "debootstrap done after $(elapsed "$start") s"

# apt inside the root runs as root (no _apt sandbox user: downloads go to folders root owns).
in_root() { in_chroot "$root.partial" "$@"; }
echo 'APT::Sandbox::User "root";' > "$root.partial/etc/apt/apt.conf.d/90bubble-kiosk"
in_root dpkg --add-architecture arm64
in_root apt-get update -qq >&2
log "apt-get install (amd64: $HOST_PACKAGES; arm64: the -dev libraries)"
# shellcheck disable=SC2086 # the package lists are word lists
in_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
    $HOST_PACKAGES $ARM64_PACKAGES > "$ARM64_CACHE/apt.log" 2>&1 \
    || { tail -n 30 "$ARM64_CACHE/apt.log" >&2; die "apt-get install failed (log: $ARM64_CACHE/apt.log)"; }
log "packages installed after $(elapsed "$start") s"

# The arm64 Swift runtime and modules: unpacked, not installed (the arm64 compiler cannot run here).
dl=$root.partial/tmp/swift-arm64
mkdir -p "$dl"
in_root sh -c 'cd /tmp/swift-arm64 && apt-get download -qq swiftlang:arm64 libswiftlang:arm64' >&2
mkdir -p "$dl/x"
for deb in "$dl"/*.deb; do dpkg-deb -x "$deb" "$dl/x"; done
swiftlib=usr/libexec/swift/lib
[ -d "$dl/x/$swiftlib/swift_static/linux" ] || die "no $swiftlib/swift_static/linux in swiftlang:arm64"
mkdir -p "$root.partial/opt/swift-arm64"
for part in swift swift_static clang; do
    [ -e "$dl/x/$swiftlib/$part" ] && mv "$dl/x/$swiftlib/$part" "$root.partial/opt/swift-arm64/"
done
rm -rf "$dl"

# The SDK bundle (schema of SwiftPM's `swift sdk` bundles): the target's libraries are where
# multiarch put them, under /, and the Swift runtime and its static archives come from above.
bundle=$root.partial/opt/swift-sdks/$SDK_NAME.artifactbundle
mkdir -p "$bundle/sdk"
cat > "$bundle/info.json" <<EOF
{
  "schemaVersion": "1.0",
  "artifacts": {
    "$SDK_NAME": {
      "type": "swiftSDK",
      "version": "6.0.3",
      "variants": [ { "path": "sdk", "supportedTriples": ["x86_64-unknown-linux-gnu", "x86_64-pc-linux-gnu"] } ]
    }
  }
}
EOF
cat > "$bundle/sdk/swift-sdk.json" <<EOF
{
  "schemaVersion": "4.0",
  "targetTriples": {
    "aarch64-unknown-linux-gnu": {
      "sdkRootPath": "/",
      "swiftResourcesPath": "/opt/swift-arm64/swift",
      "swiftStaticResourcesPath": "/opt/swift-arm64/swift_static",
      "toolsetPaths": ["toolset.json"]
    }
  }
}
EOF
cat > "$bundle/sdk/toolset.json" <<EOF
{
  "schemaVersion": "1.0",
  "rootPath": "/usr/libexec/swift/bin",
  "swiftCompiler": { "extraCLIOptions": ["-use-ld=lld", "-no-toolchain-stdlib-rpath"] }
}
EOF

# Smaller: no docs, manuals, translations or package caches.
rm -rf "$root.partial"/usr/share/{doc,man,info,locale}/* "$root.partial"/var/cache/apt/archives/*.deb
touch "$root.partial/.complete"
mv "$root.partial" "$root"
# Others (or half-made ones) not used for two weeks; .complete's time is the last use.
for old in "$ARM64_CACHE"/"$SUITE"-*; do
    [ -d "$old" ] && [ "$old" != "$root" ] || continue
    stamp=$old/.complete
    [ -e "$stamp" ] || stamp=$old
    [ -z "$(find "$stamp" -maxdepth 0 -mtime +14)" ] || remove_tree "$old"
done
log "arm64 build environment ready in $(elapsed "$start") s ($(du -sm "$root" | cut -f1) MB): $root"
echo "TOOLCHAIN=$root"
