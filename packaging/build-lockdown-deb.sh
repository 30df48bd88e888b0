#!/bin/bash
# Builds bubble-kiosk-lockdown, the second package of this source: drop-ins that keep a kiosk
# in a public place from being left or stopped from its keyboard (packaging/lockdown/: the
# files, the control template and the maintainer scripts; the README says what each does).
# It installs nothing of the kiosk's and runs on any architecture (Architecture: all), so
# `make deb` and `make deb-arm64` share one build of it.
#
# usage: packaging/build-lockdown-deb.sh STAGE OUTDIR
#   STAGE    an empty folder to stage the package in (removed first)
#   OUTDIR   where bubble-kiosk-lockdown_VERSION_all.deb goes; its path is printed on stdout
# Version, copyright and changelog are bubble-kiosk's (deb_version and deb_docs in lib.sh).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
LOG_TAG=build-lockdown-deb
. "$here/lib.sh"
parse_args 'stage outdir' "$@"
src=$here/lockdown
name=bubble-kiosk-lockdown
version=$(deb_version)

rm -rf "$stage"
install -D -m 644 "$src/sysctl.conf" "$stage/usr/lib/sysctl.d/50-$name.conf"
install -D -m 644 "$src/logind.conf" "$stage/usr/lib/systemd/logind.conf.d/50-$name.conf"
install -D -m 644 "$src/system.conf" "$stage/usr/lib/systemd/system.conf.d/50-$name.conf"
deb_docs "$stage" "$name" "$src/lintian-overrides"

# No conffiles: the drop-ins live under /usr/lib, and an administrator overrides them with a
# file of the same name in /etc (sysctl.d, logind.conf.d, system.conf.d).
deb_control "$stage" "$src/control.in"
for script in postinst postrm; do
    install -m 755 "$src/$script" "$stage/DEBIAN/$script"
done

deb_build "$stage" "$outdir/${name}_${version}_all.deb"
