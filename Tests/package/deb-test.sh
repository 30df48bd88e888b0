#!/bin/bash
# Checks the Debian package `make deb` built from debian/: lintian (no errors, no warnings), the
# file list, the control fields (Depends computed from the binary: every linked library's
# package, the font, nothing like SDL), conffiles, the maintainer scripts debhelper wrote (run
# with stubs: what they ask of systemd on install, upgrade, remove), and the unit inside it
# (`systemd-analyze verify` clean, `systemd-analyze security` exposure at most 2.0).
# The arm64 package (`make deb-arm64`) gets the same checks: its binary runs under qemu-user
# and its libraries are looked up in the arm64 build environment; and Depends must carry
# Debian 13's names and glibc 2.38, which is what keeps it off bookworm-based systems.
#
# usage: Tests/package/deb-test.sh build/bubble-kiosk_VERSION_ARCH.deb
# Ends with "deb-test: N passed, M failed"; exit 0 only when nothing failed.
set -uo pipefail

repo=$(cd "$(dirname "$0")/../.." && pwd)
. "$(dirname "$0")/lib.sh"
LOG_TAG=deb-test
parse_args 'package' "$@"
[ -f "$package" ] || die "no package at $package"
deb=$(cd "$(dirname "$package")" && pwd)/$(basename "$package")
work=$(mktemp -d /tmp/deb-test.XXXXXX)
trap 'rm -rf "$work"' EXIT
max_exposure=2.0

field() { dpkg-deb -f "$deb" "$1"; }
version=$(cat "$repo/VERSION")
arch=$(dpkg --print-architecture)
# run_binary ARGS...: the package's binary, on this machine or under qemu-user.
run_binary() { "$work/root/usr/bin/bubble-kiosk" "$@"; }
# lib_file LIB: where the library the binary names is; lib_package FILE: its package.
lib_file() { ldconfig -p | awk -v l="$1" '$1 == l { print $NF; exit }'; }
# (dpkg knows a library by its real path: /lib is a link into /usr/lib on merged-/usr systems.)
lib_package() { dpkg -S "$(readlink -f "$1")" 2>/dev/null || dpkg -S "$1" 2>/dev/null; }
if [ "$(field Architecture)" = arm64 ] && [ "$arch" != arm64 ]; then
    arch=arm64
    eval "$("$repo/packaging/arm64/toolchain.sh")"
    need_host_packages qemu-user-static
    run_binary() { qemu-aarch64-static -L "$TOOLCHAIN" "$work/root/usr/bin/bubble-kiosk" "$@"; }
    lib_file() { local d; for d in /usr/lib/aarch64-linux-gnu /lib/aarch64-linux-gnu; do
        [ -e "$TOOLCHAIN$d/$1" ] && { echo "$d/$1"; return; }; done; }
    lib_package() { in_chroot "$TOOLCHAIN" /bin/sh -c 'dpkg -S "$(readlink -f "$1")" || dpkg -S "$1"' sh "$1" 2>/dev/null; }
fi
dpkg-deb -x "$deb" "$work/root"
dpkg-deb -e "$deb" "$work/DEBIAN"
dpkg-deb -c "$deb" | awk '{ print $6 }' | sed 's|^\./|/|; s|/$||' | grep -v '^$' | sort > "$work/files"

# --- lintian --------------------------------------------------------------------------------
lintian_clean() {
    lintian --no-tag-display-limit "$deb" 2>&1 | grep -v 'running with root privileges' > "$work/lintian.out"
    cat "$work/lintian.out"
    ! grep -qE '^[EW]: ' "$work/lintian.out"
}
check "lintian reports no errors and no warnings" lintian_clean

# --- name and control fields ---------------------------------------------------------------
check "file name is bubble-kiosk_VERSION-REV_ARCH.deb" \
    bash -c "[ '$(basename "$deb")' = \"bubble-kiosk_\$(dpkg-deb -f '$deb' Version)_$arch.deb\" ]"
check "Version comes from VERSION ($version) plus a Debian revision" \
    bash -c "dpkg-deb -f '$deb' Version | grep -qE '^${version//./\\.}-[0-9]+\$'"
check "Architecture is the build machine's, or arm64 for the cross-built one ($arch)" [ "$(field Architecture)" = "$arch" ]
check "Maintainer, Section, Priority and Description are set" \
    bash -c "for f in Maintainer Section Priority Description Installed-Size; do [ -n \"\$(dpkg-deb -f '$deb' \$f)\" ] || exit 1; done"
depends=$(field Depends)
echo "     Depends: $depends"
# depends_on PKG: Depends names PKG (with or without a version).
# (grep reads the list whole: under pipefail a `| grep -q` stopping at a match can fail on SIGPIPE.)
depends_on() { grep -qxF -- "$1" <<< "$(echo "$depends" | tr ',' '\n' | awk '{ print $1 }')"; }
for pkg in libc6 libdrm2 libevdev2 libcairo2 libpixman-1-0 libpango-1.0-0 libpangocairo-1.0-0 fonts-dejavu-core; do
    check "Depends names $pkg" depends_on "$pkg"
done
# Fleet control loads libmosquitto (and OpenSSL under it) when it first connects: not linked,
# so a kiosk without it never maps them; the package still brings them.
check "Depends names libmosquitto1, which fleet control loads at run time" depends_on libmosquitto1
check "the binary links neither libmosquitto nor OpenSSL" \
    bash -c "! readelf -d '$work/root/usr/bin/bubble-kiosk' | grep -E 'NEEDED.*(libmosquitto|libssl|libcrypto)'"
recommends=$(field Recommends)
for pkg in fonts-noto-core fonts-noto-cjk; do
    check "Recommends names $pkg" grep -qxF -- "$pkg" <<< "$(echo "$recommends" | tr ',' '\n' | awk '{ print $1 }')"
done
check "Depends names no SDL, X server, Wayland or Swift runtime package" \
    bash -c "! echo '$depends' | grep -qiE 'sdl|xserver|wayland|swift|libfoundation'"
# lld's packed relocations (DT_RELR) need glibc 2.36; the binary says so by a version need that
# no symbol carries, which dpkg-shlibdeps does not see: debian/rules adds it.
if grep -qF GLIBC_ABI_DT_RELR <<< "$(readelf -V "$work/root/usr/bin/bubble-kiosk")"; then
    check "Depends asks for glibc 2.36 or newer (the binary's packed relocations)" \
        grep -qE 'libc6 \(>= 2\.(3[6-9]|4[0-9])\)' <<< "$depends"
fi
if [ "$arch" = arm64 ]; then
    check "arm64: Depends asks for glibc 2.38 or newer (Debian 13; bookworm's 2.36 cannot run it)" \
        grep -qF 'libc6 (>= 2.38)' <<< "$depends"
    # ... because the binary really uses glibc 2.38 symbols (from Debian 13's Swift runtime).
    check "arm64: the binary needs GLIBC_2.38 symbols, which is why" \
        grep -qF GLIBC_2.38 <<< "$(readelf -V "$work/root/usr/bin/bubble-kiosk")"
    check "arm64: Depends uses Debian 13's library names (libasound2t64)" depends_on libasound2t64
    # Pi 5 kernels use 16 KiB pages: a segment aligned to less would not load there.
    load_aligned_64k() {
        local align n=0
        for align in $(readelf -lW "$work/root/usr/bin/bubble-kiosk" | awk '$1 == "LOAD" { print $NF }'); do
            echo "LOAD aligned to $align"; n=$((n + 1))
            [ $((align)) -ge 65536 ] || return 1
        done
        [ $n -gt 0 ]
    }
    check "arm64: every LOAD segment is aligned to 64 KiB (runs on 16K-page kernels)" load_aligned_64k
fi
# Every library the binary links must come from a package that Depends names.
needed_covered() {
    local lib file pkg ok=0
    for lib in $(readelf -d "$work/root/usr/bin/bubble-kiosk" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
        file=$(lib_file "$lib")
        [ -n "$file" ] || { echo "cannot find $lib for $arch"; ok=1; continue; }
        pkg=$(lib_package "$file" | head -n1 | cut -d: -f1)
        if depends_on "$pkg"; then
            echo "$lib: $pkg"
        else
            echo "$lib: $pkg is not in Depends"; ok=1
        fi
    done
    return $ok
}
check "every NEEDED library's package is in Depends (dpkg-shlibdeps ran)" needed_covered

# --- contents --------------------------------------------------------------------------------
# Units: /lib/systemd/system for Debian 12, /usr/lib/systemd/system for Debian 13 (arm64).
unitdir=/lib/systemd/system
udevdir=/lib/udev/rules.d
[ "$arch" = arm64 ] && unitdir=/usr/lib/systemd/system && udevdir=/usr/lib/udev/rules.d
sort > "$work/expected" <<EOF
/etc/apt/apt.conf.d/51bubble-kiosk-unattended-upgrades
/etc/bubble-kiosk/kiosk.conf
$unitdir/bubble-kiosk-retry.service
$unitdir/bubble-kiosk-retry.timer
$unitdir/bubble-kiosk.service
$udevdir/60-bubble-kiosk-backlight.rules
/usr/bin/bubble-kiosk
/usr/lib/sysusers.d/bubble-kiosk.conf
/usr/share/bubble-kiosk/sounds/high_score.wav
/usr/share/bubble-kiosk/sounds/pop.wav
/usr/share/bubble-kiosk/sounds/round_over.wav
/usr/share/bubble-kiosk/sounds/round_start.wav
/usr/share/bubble-kiosk/sounds/swipe.wav
/usr/share/bubble-kiosk/systemd/mqtt.conf
/usr/share/doc/bubble-kiosk/changelog.Debian.gz
/usr/share/doc/bubble-kiosk/copyright
/usr/share/man/man1/bubble-kiosk.1.gz
/usr/share/man/man5/bubble-kiosk.conf.5.gz
$(for po in "$repo"/po/*.po; do echo "/usr/share/locale/$(basename "$po" .po)/LC_MESSAGES/bubble-kiosk.mo"; done)
EOF
regular_files() { dpkg-deb -c "$deb" | awk '$1 ~ /^-/ { print $6 }' | sed 's|^\./|/|' | sort; }
check "it holds exactly the expected files" diff "$work/expected" <(regular_files)
check "everything is owned by root:root" bash -c "dpkg-deb -c '$deb' | awk '\$2 != \"root/root\"' | grep -q . && exit 1 || exit 0"
check "the binary is executable and runs" run_binary check-config --example
# The translations, compiled from po/ (msgunfmt reads them back): German's play-again button.
de_play_again() { grep -A1 -x 'msgid "Play again"' "$1" | tail -n 1; }
check "the German catalogue in the package says what po/de.po says" bash -c \
    "[ \"\$(msgunfmt '$work/root/usr/share/locale/de/LC_MESSAGES/bubble-kiosk.mo' | grep -A1 -x 'msgid \"Play again\"' | tail -n 1)\" = '$(de_play_again "$repo/po/de.po")' ]"
check "the config in the package is systemd/kiosk.conf.example" cmp "$repo/systemd/kiosk.conf.example" "$work/root/etc/bubble-kiosk/kiosk.conf"
for u in bubble-kiosk.service bubble-kiosk-retry.timer bubble-kiosk-retry.service; do
    check "the unit in the package is systemd/$u" cmp "$repo/systemd/$u" "$work/root$unitdir/$u"
done
check "the udev rule in the package is systemd/60-bubble-kiosk-backlight.rules" \
    cmp "$repo/systemd/60-bubble-kiosk-backlight.rules" "$work/root$udevdir/60-bubble-kiosk-backlight.rules"
check "postinst applies the backlight rule to a panel already there" \
    grep -q 'udevadm trigger --subsystem-match=backlight --action=add' "$work/DEBIAN/postinst"
check "the MQTT drop-in in the package is systemd/mqtt.conf (shipped, not active: nothing in /etc/systemd)" \
    bash -c "cmp '$repo/systemd/mqtt.conf' '$work/root/usr/share/bubble-kiosk/systemd/mqtt.conf' && [ ! -e '$work/root/etc/systemd' ]"
check "the sysusers file in the package is systemd/bubble-kiosk.sysusers" cmp "$repo/systemd/bubble-kiosk.sysusers" "$work/root/usr/lib/sysusers.d/bubble-kiosk.conf"
check "conffiles lists the config and unattended-upgrades' drop-in, nothing else" \
    bash -c "[ \"\$(cat '$work/DEBIAN/conffiles' | tr '\n' ' ')\" = '/etc/apt/apt.conf.d/51bubble-kiosk-unattended-upgrades /etc/bubble-kiosk/kiosk.conf ' ]"
check "md5sums covers every file but the conffiles" \
    bash -c "cd '$work/root' && md5sum --quiet -c '$work/DEBIAN/md5sums' && [ \$(wc -l < '$work/DEBIAN/md5sums') = \$(( \$(grep -c . '$work/expected') - 2 )) ]"
# The repository's Origin and Label (packaging/make-repo.sh) are what the drop-in allows.
uu_allows_repo() {
    local origin
    origin=$(sed -n 's/^ORIGIN=//p' "$repo/packaging/make-repo.sh")
    cmp "$repo/packaging/unattended-upgrades.conf" "$work/root/etc/apt/apt.conf.d/51bubble-kiosk-unattended-upgrades" &&
        grep -qx "        \"origin=$origin,label=$origin\";" "$work/root/etc/apt/apt.conf.d/51bubble-kiosk-unattended-upgrades" &&
        apt-config -c "$work/root/etc/apt/apt.conf.d/51bubble-kiosk-unattended-upgrades" dump Unattended-Upgrade::Origins-Pattern |
            grep -qF "\"origin=$origin,label=$origin\""
}
check "unattended-upgrades' drop-in is packaging/unattended-upgrades.conf and allows the repository's origin (apt-config reads it)" uu_allows_repo
for s in postinst prerm postrm; do
    check "$s is an executable sh script without syntax errors" \
        bash -c "[ -x '$work/DEBIAN/$s' ] && head -n1 '$work/DEBIAN/$s' | grep -qx '#!/bin/sh' && sh -n '$work/DEBIAN/$s'"
done
check "postinst creates the user with systemd-sysusers and enables the unit" \
    bash -c "grep -q 'systemd-sysusers .*bubble-kiosk.conf' '$work/DEBIAN/postinst' && grep -qE \"deb-systemd-helper enable '?bubble-kiosk.service\" '$work/DEBIAN/postinst'"
# An upgrade must not cut a round: a running kiosk restarts into the new binary itself. Only
# kiosks from before that (0.1.0-1 and older) are restarted by the package.
# script_actions SCRIPT ARG...: the maintainer script run as on a machine that systemd runs (its
# tests for it forced true, no udev), with stubs that only log what deb-systemd-invoke is asked;
# prints those requests, one a line, quotes dropped.
script_actions() {
    local stubs=$work/script-stubs script=$1 c
    shift
    mkdir -p "$stubs"
    for c in systemd-sysusers deb-systemd-helper udevadm systemctl; do printf '#!/bin/sh\nexit 0\n' > "$stubs/$c"; done
    printf '#!/bin/sh\necho "$*" >> "%s/invoked"\n' "$stubs" > "$stubs/deb-systemd-invoke"
    chmod +x "$stubs"/*
    sed 's|\[ -d /run/systemd/system \]|true|; s|\[ -d /run/udev \]|false|' "$work/DEBIAN/$script" > "$stubs/$script"
    : > "$stubs/invoked"
    PATH="$stubs:$PATH" sh "$stubs/$script" "$@" >&2 && tr -d "'" < "$stubs/invoked"
}
postinst_restarts_only_old_kiosks() {
    local case from want actions
    # FROM=ACTIONS: the version upgraded from (none: a first install) and what must be asked,
    # in order ("start" leaves a running kiosk alone).
    for case in =start 0.0.9-3=start,restart 0.1.0-1=start,restart 0.1.0-2=start 1.0-1=start; do
        from=${case%=*} want=${case#*=}
        actions=$(script_actions postinst configure $from | sed 's/ bubble-kiosk.service$//' | paste -sd,) || return 1
        echo "from '$from': $actions (want $want)"
        [ "$actions" = "$want" ] || return 1
    done
}
check "postinst starts a fresh install and leaves a running kiosk to restart itself; only one from 0.1.0-1 or older is restarted" \
    postinst_restarts_only_old_kiosks
check "postinst enables the unit and starts it on any configure (a no-op for a running kiosk)" \
    bash -c "grep -q 'deb-systemd-invoke start .*bubble-kiosk.service' '$work/DEBIAN/postinst' && ! grep -q 'deb-systemd-invoke.*retry' '$work/DEBIAN/postinst'"
# On remove the kiosk's stop stops a pending crash-loop retry too (PropagatesStopTo=); an
# upgrade leaves it running.
prerm_stops_only_on_remove() {
    local remove upgrade
    remove=$(script_actions prerm remove) && upgrade=$(script_actions prerm upgrade 0.3.0-1) || return 1
    echo "remove: $remove; upgrade: ${upgrade:-nothing}"
    [ "$remove" = "stop bubble-kiosk.service" ] && [ -z "$upgrade" ] &&
        grep -qx 'PropagatesStopTo=bubble-kiosk-retry.timer' "$work/root$unitdir/bubble-kiosk.service"
}
check "prerm stops the unit (and so a pending retry) on remove, not on upgrade" prerm_stops_only_on_remove
check "no preinst stops the unit before an upgrade" bash -c "[ ! -e '$work/DEBIAN/preinst' ] || ! grep -q 'deb-systemd-invoke stop' '$work/DEBIAN/preinst'"
check "postrm removes the state and the user on purge" \
    bash -c "grep -q 'rm -rf /var/lib/bubble-kiosk' '$work/DEBIAN/postrm' && grep -q 'userdel bubble-kiosk' '$work/DEBIAN/postrm'"

# --- the unit as shipped ------------------------------------------------------------------------
unit=$work/root$unitdir/bubble-kiosk.service
# verify checks that ExecStart= exists and the Documentation= man page resolves: point both
# at the unpacked package.
# The crash-loop retry units go beside it: the kiosk unit names the timer (OnFailure=).
mkdir -p "$work/verify"
sed "s|^ExecStart=/usr/bin/|ExecStart=$work/root/usr/bin/|" "$unit" > "$work/verify/bubble-kiosk.service"
cp "$work/root$unitdir/bubble-kiosk-retry."* "$work/verify/"
check "systemd-analyze verify is clean (the kiosk unit and the retry timer and service)" \
    bash -c "cd '$work/verify' && out=\$(MANPATH='$work/root/usr/share/man' systemd-analyze verify bubble-kiosk.service bubble-kiosk-retry.timer bubble-kiosk-retry.service 2>&1); echo \"\$out\"; [ -z \"\$out\" ]"
exposure=$(systemd-analyze security --offline=yes "$unit" 2>&1 | sed -n 's/.*Overall exposure level for bubble-kiosk.service: \([0-9.]*\).*/\1/p')
echo "     exposure: ${exposure:-?}"
check "systemd-analyze security: exposure ${exposure:-?} is at most $max_exposure" \
    awk -v e="${exposure:-99}" -v m="$max_exposure" 'BEGIN { exit !(e + 0 <= m + 0) }'
# With the MQTT drop-in in place (the network for the broker; the booted-systemd test measures
# it on a running system too): still at most 2.0.
mkdir -p "$work/verify/bubble-kiosk.service.d"
cp "$work/root/usr/share/bubble-kiosk/systemd/mqtt.conf" "$work/verify/bubble-kiosk.service.d/"
check "systemd-analyze verify is clean with the MQTT drop-in" \
    bash -c "cd '$work/verify' && out=\$(MANPATH='$work/root/usr/share/man' systemd-analyze verify bubble-kiosk.service 2>&1); echo \"\$out\"; [ -z \"\$out\" ]"
drop_in_in_effect() {
    local out
    out=$(systemd-analyze security --offline=yes "$work/verify/bubble-kiosk.service" 2>&1)
    grep -F "PrivateNetwork=" <<< "$out" | grep -q "access to the host's network" &&
        grep -F "AF_(INET|INET6)" <<< "$out" | grep -q "may allocate Internet sockets"
}
check "the drop-in is in effect there (PrivateNetwork=no, AF_INET)" drop_in_in_effect
exposure_mqtt=$(systemd-analyze security --offline=yes "$work/verify/bubble-kiosk.service" 2>&1 | sed -n 's/.*Overall exposure level for bubble-kiosk.service: \([0-9.]*\).*/\1/p')
echo "     exposure with the MQTT drop-in: ${exposure_mqtt:-?}"
check "systemd-analyze security with the MQTT drop-in: exposure ${exposure_mqtt:-?} is at most 2.0" \
    awk -v e="${exposure_mqtt:-99}" 'BEGIN { exit !(e + 0 <= 2.0) }'

summary deb-test
