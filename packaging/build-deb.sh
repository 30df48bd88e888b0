#!/bin/bash
# Builds the Debian package from a staged install: `make deb` runs
#   make install DESTDIR=build/deb/root PREFIX=/usr
# and then this script, which adds what dpkg needs and runs dpkg-deb.
#
# usage: packaging/build-deb.sh [--arch arm64] STAGE OUTDIR
#   --arch arm64  the staged binary is the arm64 build (`make deb-arm64`): Depends is computed
#                 in the arm64 build environment (packaging/arm64/), against Debian 13's arm64
#                 libraries; without it the package is for this machine's architecture and
#                 release
#   STAGE    the DESTDIR of that install (its DEBIAN/ and doc files are written here)
#   OUTDIR   where bubble-kiosk_VERSION_ARCH.deb goes; its path is printed on stdout
# The version is the VERSION file's plus the Debian revision of packaging/debian/changelog
# (deb_version in lib.sh: packaging/build-lockdown-deb.sh builds this source's other package,
# bubble-kiosk-lockdown, with the same version and docs); Depends comes from dpkg-shlibdeps
# (the libraries the binary links) plus the font.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(dirname "$here")
LOG_TAG=build-deb
. "$here/lib.sh"
target=
parse_args '--arch=target(arm64) stage outdir' "$@"
arch=$(dpkg --print-architecture)
shlibdeps=(dpkg-shlibdeps)
if [ -n "$target" ] && [ "$arch" != "$target" ]; then
    arch=$target shlibdeps=("$here/arm64/in-toolchain.sh" dpkg-shlibdeps)
fi

[ -x "$stage/usr/bin/bubble-kiosk" ] || die "no $stage/usr/bin/bubble-kiosk (run make install DESTDIR=$stage PREFIX=/usr first)"
version=$(deb_version)

# --- documentation that Debian policy asks for ---------------------------------------------
deb_docs "$stage" bubble-kiosk "$here/debian/lintian-overrides"

# --- Depends: computed from the binary's NEEDED libraries ---------------------------------
# dpkg-shlibdeps wants a source tree with debian/control; a throwaway one under build/ (inside
# the checkout, which the arm64 environment sees at the same path). Versions come from the
# symbols the binary uses: the arm64 build's glibc 2.38 symbols give `libc6 (>= 2.38)`.
shl=$(mktemp -d "$repo/build/shlibdeps.XXXXXX")
trap 'rm -rf "$shl"' EXIT
mkdir -p "$shl/debian"
printf 'Source: bubble-kiosk\n\nPackage: bubble-kiosk\nArchitecture: any\n' > "$shl/debian/control"
shlibs=$(cd "$shl" && "${shlibdeps[@]}" -O -e"$stage/usr/bin/bubble-kiosk" 2> "$shl/warnings") \
    || { cat "$shl/warnings" >&2; die "dpkg-shlibdeps failed"; }
depends=${shlibs#shlibs:Depends=}
[ -n "$depends" ] && [ "$depends" != "$shlibs" ] || die "dpkg-shlibdeps printed no Depends: $shlibs"
# Text is drawn with DejaVu Sans (cairo finds it through fontconfig at run time).
depends="$depends, fonts-dejavu-core"

# --- DEBIAN/: control, conffiles, maintainer scripts ----------------------------------------
deb_control "$stage" "$here/debian/control.in" "s|@ARCH@|$arch|" "s|@DEPENDS@|$depends|"
# The config is the administrator's: dpkg keeps an edited one on upgrade and asks.
( cd "$stage" && find etc -type f | sed 's|^|/|' | sort ) > "$stage/DEBIAN/conffiles"
grep -qx /etc/bubble-kiosk/kiosk.conf "$stage/DEBIAN/conffiles" || die "no /etc/bubble-kiosk/kiosk.conf in $stage"
chmod 644 "$stage/DEBIAN/conffiles"
for script in postinst prerm postrm; do
    install -m 755 "$here/debian/$script" "$stage/DEBIAN/$script"
done

deb_build "$stage" "$outdir/bubble-kiosk_${version}_$arch.deb"
