#!/bin/bash
# `make install` and `make uninstall` into scratch DESTDIRs: where each file goes for
# PREFIX=/usr/local and PREFIX=/usr, the unit's ExecStart= following the prefix, the
# sysusers file creating the user with exactly its four groups, an edited config surviving a
# second install and the uninstall, and nothing else left behind.
#
# usage: Tests/package/install-test.sh [--keep]     (--keep: leave the scratch folders)
# Ends with "install-test: N passed, M failed"; exit 0 only when nothing failed.
set -uo pipefail

repo=$(cd "$(dirname "$0")/../.." && pwd)
. "$(dirname "$0")/lib.sh"
keep=0
parse_args '--keep:keep=1' "$@"
work=$(mktemp -d /tmp/install-test.XXXXXX)
[ $keep = 1 ] || trap 'rm -rf "$work"' EXIT
mk() { make -s -C "$repo" --no-print-directory "$@"; }
has_line() { grep -qxF -- "$2" "$1"; }

# --- PREFIX=/usr/local ---------------------------------------------------------------------
d=$work/local
check "make install PREFIX=/usr/local DESTDIR=... succeeds" mk install PREFIX=/usr/local DESTDIR="$d"
check "the binary is in /usr/local/bin and runs" "$d/usr/local/bin/bubble-kiosk" check-config --help
check "the binary is stripped" bash -c "! readelf -S '$d/usr/local/bin/bubble-kiosk' | grep -q '\.symtab'"
unit=$d/usr/local/lib/systemd/system/bubble-kiosk.service
check "the unit is in /usr/local/lib/systemd/system" test -f "$unit"
check "its ExecStart= runs /usr/local/bin/bubble-kiosk" has_line "$unit" "ExecStart=/usr/local/bin/bubble-kiosk run"
check "the unit differs from systemd/bubble-kiosk.service only in ExecStart=" \
    bash -c "diff '$repo/systemd/bubble-kiosk.service' '$unit' | grep '^[<>]' | grep -v '^. ExecStart=' | wc -l | grep -qx 0"
check "the crash-loop retry timer and service are beside it, as in systemd/" \
    bash -c "cmp '$repo/systemd/bubble-kiosk-retry.timer' '$d/usr/local/lib/systemd/system/bubble-kiosk-retry.timer' &&
             cmp '$repo/systemd/bubble-kiosk-retry.service' '$d/usr/local/lib/systemd/system/bubble-kiosk-retry.service'"
check "the sysusers file is in /usr/local/lib/sysusers.d" \
    cmp "$repo/systemd/bubble-kiosk.sysusers" "$d/usr/local/lib/sysusers.d/bubble-kiosk.conf"
check "the backlight's udev rule is in /usr/local/lib/udev/rules.d" \
    cmp "$repo/systemd/60-bubble-kiosk-backlight.rules" "$d/usr/local/lib/udev/rules.d/60-bubble-kiosk-backlight.rules"
check "the man page is in /usr/local/share/man/man1" \
    bash -c "gzip -dc '$d/usr/local/share/man/man1/bubble-kiosk.1.gz' | grep -q '^\.TH BUBBLE-KIOSK 1 .*bubble-kiosk $(cat "$repo/VERSION")'"
check "the config file's man page is in /usr/local/share/man/man5, with the version" \
    bash -c "gzip -dc '$d/usr/local/share/man/man5/bubble-kiosk.conf.5.gz' | grep '^\.TH BUBBLE' | grep -qF 'kiosk $(cat "$repo/VERSION")\"'"
check "doc/bubble-kiosk.conf.5 is what check-config --reference man prints now" \
    bash -c "'$d/usr/local/bin/bubble-kiosk' check-config --reference man | cmp - '$repo/doc/bubble-kiosk.conf.5'"
conf=$d/etc/bubble-kiosk/kiosk.conf
check "the default config is /etc/bubble-kiosk/kiosk.conf, every line a comment or a section" \
    bash -c "cmp '$repo/systemd/kiosk.conf.example' '$conf' && ! grep -vE '^(#|\[|$)' '$conf'"
check "systemd/kiosk.conf.example is what check-config --example prints now" \
    bash -c "'$d/usr/local/bin/bubble-kiosk' check-config --example | cmp - '$repo/systemd/kiosk.conf.example'"
check "the default config is valid as installed" \
    env BUBBLE_KIOSK_CONFIG_DIR="$d/etc/bubble-kiosk" "$d/usr/local/bin/bubble-kiosk" check-config
check "the drop-in folder kiosk.conf.d exists" test -d "$d/etc/bubble-kiosk/kiosk.conf.d"
check "the MQTT unit drop-in is in /usr/local/share/bubble-kiosk/systemd, not active" \
    bash -c "cmp '$repo/systemd/mqtt.conf' '$d/usr/local/share/bubble-kiosk/systemd/mqtt.conf' && [ ! -e '$d/etc/systemd' ]"

# The sysusers file, applied to an empty root: the user and exactly its four groups.
r=$work/sysroot
mkdir -p "$r/etc"
check "systemd-sysusers creates the user from it" \
    systemd-sysusers --root="$r" "$d/usr/local/lib/sysusers.d/bubble-kiosk.conf"
check "the user is a system user with no login shell" \
    bash -c "awk -F: '\$1 == \"bubble-kiosk\" && \$3 < 1000 && \$7 == \"/usr/sbin/nologin\"' '$r/etc/passwd' | grep -q ."
check "its groups: its own, video, input, render, audio; nothing else" \
    bash -c "[ \"\$(awk -F: '\$4 ~ /(^|,)bubble-kiosk(,|\$)/ { print \$1 }' '$r/etc/group' | sort | tr '\n' ' ')\" = 'audio input render video ' ] &&
             awk -F: '\$1 == \"bubble-kiosk\"' '$r/etc/group' | grep -q ."

# An edited config survives a second install and the uninstall.
echo '# edited by the operator' >> "$conf"
check "a second install keeps the edited config" \
    bash -c "make -s -C '$repo' --no-print-directory install PREFIX=/usr/local DESTDIR='$d' | grep -q 'keeping' && tail -n1 '$conf' | grep -q 'edited by the operator'"
check "make uninstall succeeds" mk uninstall PREFIX=/usr/local DESTDIR="$d"
check "uninstall left the edited config" grep -q 'edited by the operator' "$conf"
check "uninstall removed everything else" \
    bash -c "[ -z \"\$(find '$d' -type f ! -path '$conf')\" ]"
rm -f "$conf"
mk install PREFIX=/usr/local DESTDIR="$d" > /dev/null 2>&1
mk uninstall PREFIX=/usr/local DESTDIR="$d" > /dev/null 2>&1
check "install then uninstall with an unchanged config leaves no file and no /etc/bubble-kiosk" \
    bash -c "[ -z \"\$(find '$d' -type f)\" ] && [ ! -e '$d/etc/bubble-kiosk' ]"

# --- PREFIX=/usr: the layout the Debian package uses ----------------------------------------
u=$work/usr
check "make install PREFIX=/usr DESTDIR=... succeeds" mk install PREFIX=/usr DESTDIR="$u"
check "PREFIX=/usr: the unit is in /lib/systemd/system, ExecStart= in /usr/bin" \
    has_line "$u/lib/systemd/system/bubble-kiosk.service" "ExecStart=/usr/bin/bubble-kiosk run"
check "PREFIX=/usr: the sysusers file is in /usr/lib/sysusers.d" test -f "$u/usr/lib/sysusers.d/bubble-kiosk.conf"
check "PREFIX=/usr: the udev rule is in /lib/udev/rules.d" test -f "$u/lib/udev/rules.d/60-bubble-kiosk-backlight.rules"
check "PREFIX=/usr: the binary is in /usr/bin" test -x "$u/usr/bin/bubble-kiosk"
check "PREFIX=/usr: the MQTT unit drop-in is in /usr/share/bubble-kiosk/systemd" test -f "$u/usr/share/bubble-kiosk/systemd/mqtt.conf"
check "unattended-upgrades' drop-in is in /etc/apt/apt.conf.d" test -f "$u/etc/apt/apt.conf.d/51bubble-kiosk-unattended-upgrades"

summary install-test
