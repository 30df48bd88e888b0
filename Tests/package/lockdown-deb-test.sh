#!/bin/bash
# Checks bubble-kiosk-lockdown, the package `make deb` builds beside the kiosk's: lintian (no
# errors, no warnings), the control fields, the exact file list and each drop-in (every key
# known to this machine's systemd), the maintainer scripts; then installs and purges it with
# dpkg in a copy of the boot test's Debian 12 root (Tests/vm/debian-root.sh), in a chroot:
#   - without bubble-kiosk installed, and without a running systemd (no /run/systemd/system):
#     the drop-ins land, ctrl-alt-del.target is masked (a link to /dev/null that systemctl
#     --root reads as masked), nothing is applied live; purge leaves the root as it was;
#   - over an administrator's own /etc/systemd/system/ctrl-alt-del.target: never replaced,
#     still there after the purge;
#   - "on a running systemd" (a /run/systemd/system folder in the copy, with systemctl, who
#     and systemd-sysctl replaced by stubs that only log what they are asked): what postinst
#     and postrm would do live, which login prompts they stop and which they leave.
# Nothing runs on this machine's own systemd, sysctl or /etc: the stubs answer inside the copy.
#
# usage: Tests/package/lockdown-deb-test.sh [--keep] LOCKDOWN.deb KIOSK.deb
#   LOCKDOWN.deb  build/bubble-kiosk-lockdown_VERSION_all.deb
#   KIOSK.deb     the kiosk's package for this machine: the root is the one made for its Depends
#                 (the boot test's, so both share one cached root: a root made for another list
#                 would replace it), and the two packages' versions must agree
#   --keep        leave the scratch folder (and the root's copy) in /tmp
# Ends with "lockdown-deb-test: N passed, M failed"; exit 0 only when nothing failed.
set -uo pipefail

repo=$(cd "$(dirname "$0")/../.." && pwd)
. "$(dirname "$0")/lib.sh"
LOG_TAG=lockdown-deb-test
keep=0
parse_args '--keep:keep=1 package kiosk_deb' "$@"
[ -f "$package" ] || die "no package at $package"
[ -f "$kiosk_deb" ] || die "no kiosk package at $kiosk_deb"
[ "$(id -u)" = 0 ] || die "run as root (dpkg -i in a chroot)"
deb=$(cd "$(dirname "$package")" && pwd)/$(basename "$package")
work=$(mktemp -d /tmp/lockdown-deb-test.XXXXXX)
[ $keep = 1 ] || trap 'remove_tree "$work"' EXIT
name=bubble-kiosk-lockdown
src=$repo/packaging/lockdown
sysctl_conf=/usr/lib/sysctl.d/50-$name.conf
logind_conf=/usr/lib/systemd/logind.conf.d/50-$name.conf
system_conf=/usr/lib/systemd/system.conf.d/50-$name.conf
mask=/etc/systemd/system/ctrl-alt-del.target
mask_record=/var/lib/systemd/deb-systemd-helper-masked/ctrl-alt-del.target

field() { dpkg-deb -f "$deb" "$1"; }
dpkg-deb -x "$deb" "$work/pkg"
dpkg-deb -e "$deb" "$work/DEBIAN"

# --- lintian, name and control fields --------------------------------------------------------
lintian_clean() {
    lintian --no-tag-display-limit "$deb" 2>&1 | grep -v 'running with root privileges' > "$work/lintian.out"
    cat "$work/lintian.out"
    ! grep -qE '^[EW]: ' "$work/lintian.out"
}
check "lintian reports no errors and no warnings" lintian_clean
version=$(field Version)
check "file name is ${name}_VERSION-REV_all.deb" [ "$(basename "$deb")" = "${name}_${version}_all.deb" ]
upstream=$(cat "$repo/VERSION")
upstream_plus_revision() { [[ $version =~ ^${upstream//./\\.}-[0-9]+$ ]]; }
check "Version comes from VERSION ($upstream) plus a Debian revision" upstream_plus_revision
check "Version is the kiosk package's ($(dpkg-deb -f "$kiosk_deb" Version))" \
    [ "$version" = "$(dpkg-deb -f "$kiosk_deb" Version)" ]
check "Package is $name, from Source bubble-kiosk" [ "$(field Package)/$(field Source)" = "$name/bubble-kiosk" ]
check "Architecture is all" [ "$(field Architecture)" = all ]
check "Depends is systemd alone (it installs without bubble-kiosk)" [ "$(field Depends)" = systemd ]
check "Enhances bubble-kiosk, and no Pre-Depends, Recommends or Suggests" \
    bash -c "[ '$(field Enhances)' = bubble-kiosk ] && [ -z '$(field Pre-Depends)$(field Recommends)$(field Suggests)' ]"
check "Section is admin; Maintainer, Priority, Installed-Size and Description are set" \
    bash -c "[ '$(field Section)' = admin ] && for f in Maintainer Priority Installed-Size Description; do [ -n \"\$(dpkg-deb -f '$deb' \$f)\" ] || exit 1; done"

# --- contents --------------------------------------------------------------------------------
sort > "$work/expected" <<EOF
$logind_conf
$sysctl_conf
$system_conf
/usr/share/doc/$name/changelog.Debian.gz
/usr/share/doc/$name/copyright
EOF
regular_files() { dpkg-deb -c "$deb" | awk '$1 !~ /^d/ { print $6 }' | sed 's|^\./|/|' | sort; }
check "it holds exactly the expected files (no links, nothing in /etc)" diff "$work/expected" <(regular_files)
check "everything is owned by root:root" bash -c "! dpkg-deb -c '$deb' | awk '\$2 != \"root/root\"' | grep -q ."
check "the drop-ins in the package are packaging/lockdown's" \
    bash -c "cmp '$src/sysctl.conf' '$work/pkg$sysctl_conf' && cmp '$src/logind.conf' '$work/pkg$logind_conf' && cmp '$src/system.conf' '$work/pkg$system_conf'"
check "the copyright and changelog are the kiosk's" \
    bash -c "cmp '$repo/debian/copyright' '$work/pkg/usr/share/doc/$name/copyright' &&
             gzip -dc '$work/pkg/usr/share/doc/$name/changelog.Debian.gz' | cmp - '$repo/debian/changelog'"
# settings FILE: its settings, comments and blank lines left out, spaces around = removed.
settings() { grep -vE '^[[:space:]]*([#;]|$)' "$1" | sed 's/[[:space:]]*=[[:space:]]*/=/'; }
check "sysctl.d: kernel.sysrq = 16 (sync only) and nothing else" [ "$(settings "$work/pkg$sysctl_conf")" = kernel.sysrq=16 ]
logind_expected="[Login]
NAutoVTs=0
ReserveVT=0"
for key in PowerKey RebootKey SuspendKey HibernateKey; do
    logind_expected+=$'\n'"Handle$key=ignore"$'\n'"Handle${key}LongPress=ignore"
done
logind_expected+=$'\n'"HandleLidSwitch=ignore"$'\n'"HandleLidSwitchExternalPower=ignore"$'\n'"HandleLidSwitchDocked=ignore"
check "logind.conf.d: no autovt, no reserved VT, the four keys (pressed and held) and the lid ignored" \
    diff <(echo "$logind_expected") <(settings "$work/pkg$logind_conf")
# This machine's logind (Debian 12: systemd 252) knows every key: its parser's table names them.
logind_keys_known() {
    local key ok=0
    strings /lib/systemd/systemd-logind | grep -x 'Login\..*' > "$work/logind-keys"
    for key in $(settings "$work/pkg$logind_conf" | sed -n 's/=.*//p'); do
        grep -qxF "Login.$key" "$work/logind-keys" || { echo "unknown to systemd-logind: $key"; ok=1; }
    done
    return $ok
}
check "every logind key is known to this machine's systemd-logind ($(systemctl --version | head -n1 | cut -d' ' -f1,2))" logind_keys_known
check "system.conf.d: CtrlAltDelBurstAction=none alone" \
    [ "$(settings "$work/pkg$system_conf")" = "$(printf '[Manager]\nCtrlAltDelBurstAction=none')" ]
check "CtrlAltDelBurstAction is known to this machine's systemd" \
    bash -c "strings /lib/systemd/systemd | grep -qx CtrlAltDelBurstAction"
check "no conffiles (the drop-ins are in /usr/lib; an administrator's file in /etc wins)" [ ! -e "$work/DEBIAN/conffiles" ]
check "md5sums covers every file" \
    bash -c "cd '$work/pkg' && md5sum --quiet -c '$work/DEBIAN/md5sums' && [ \$(wc -l < '$work/DEBIAN/md5sums') = $(grep -c . "$work/expected") ]"
for s in postinst postrm; do
    check "$s is an executable sh script without syntax errors" \
        bash -c "[ -x '$work/DEBIAN/$s' ] && head -n1 '$work/DEBIAN/$s' | grep -qx '#!/bin/sh' && sh -n '$work/DEBIAN/$s'"
done
check "no preinst or prerm" bash -c "[ ! -e '$work/DEBIAN/preinst' ] && [ ! -e '$work/DEBIAN/prerm' ]"

# --- install and purge in a copy of the Debian 12 root ------------------------------------------
paths=$("$repo/Tests/vm/debian-root.sh" --with "$(deb_depends_names "$kiosk_deb"),$(deb_depends_names "$deb")") \
    || die "no Debian root"
eval "$paths"
root=$work/root
log "copying $ROOT"
cp -a "$ROOT" "$root"
root=$(realpath "$root")
rm -f "$root/.complete"
cp "$deb" "$root/tmp/$name.deb"
[ ! -e "$root/run/systemd/system" ] || die "the root's copy has /run/systemd/system"
# The stubs: what would have run on a live system goes to /tmp/live.log in the copy.
live_log=$root/tmp/live.log
: > "$live_log"
stub() {   # stub PATH-IN-ROOT SCRIPT-BODY
    local file
    file=$(realpath "$root$1")
    case $file in "$root"/*) ;; *) die "$1 resolves outside the root's copy: $file" ;; esac
    printf '#!/bin/sh\n# lockdown-deb-test stub\n%s\nexit 0\n' "$2" > "$file"
    chmod 755 "$file"
}
stub /bin/systemctl 'echo "systemctl $*" >> /tmp/live.log
case " $* " in
    *" list-units "*)
        for u in getty@tty1 getty@tty2 autovt@tty3 serial-getty@ttyS0 systemd-logind; do
            echo "$u.service loaded active running $u"
        done ;;
    *" is-enabled "*) echo static ;;
esac'
stub /lib/systemd/systemd-sysctl 'echo "systemd-sysctl $*" >> /tmp/live.log
for f; do grep -v "^#" "$f" | sed "s/^/    | /" >> /tmp/live.log; done'
# Someone is logged in on tty2.
stub /usr/bin/who 'echo "operator tty2         2026-12-02 08:00"'
in_root() { in_chroot "$root" "$@"; }
# snapshot: every path under /etc, /usr and /var/lib (but dpkg's database), with type and target.
snapshot() { (cd "$root" && find etc usr var/lib -path var/lib/dpkg -prune -o -printf '%p %y %l\n' | sort); }
snapshot > "$work/before"
dpkg_run() { in_root "$@" > "$work/dpkg.log" 2>&1; local rc=$?; sed 's/^/dpkg| /' "$work/dpkg.log"; return $rc; }
installed() { [ "$(chroot "$root" dpkg-query -W -f='${db:Status-Abbrev}' "$name" 2>/dev/null)" = "ii " ]; }
masked_by_us() { [ "$(readlink "$root$mask")" = /dev/null ] && [ -e "$root$mask_record" ]; }

# 1. in a chroot: files and the mask, nothing live.
check "chroot: dpkg -i installs it without bubble-kiosk (Depends met by the root's systemd)" \
    dpkg_run dpkg -i /tmp/$name.deb
# not_known PKG: dpkg in the root has no record of PKG, or one of a package not installed.
not_known() {
    local status
    status=$(chroot "$root" dpkg-query -W -f='${db:Status-Abbrev}' "$1" 2>/dev/null)
    [ -z "$status" ] || [ "${status:1:1}" = n ]
}
check "chroot: it is installed, bubble-kiosk is not" eval 'installed && not_known bubble-kiosk'
check "chroot: the three drop-ins are in place" \
    bash -c "cmp '$src/sysctl.conf' '$root$sysctl_conf' && cmp '$src/logind.conf' '$root$logind_conf' && cmp '$src/system.conf' '$root$system_conf'"
check "chroot: $mask -> /dev/null, recorded as the package's by deb-systemd-helper" masked_by_us
check "chroot: systemctl --root reads ctrl-alt-del.target as masked" \
    bash -c "[ \"\$(systemctl --root='$root' is-enabled ctrl-alt-del.target 2>&1)\" = masked ]"
check "chroot: systemd-analyze --root sees the drop-ins (logind.conf, system.conf, sysctl.d)" \
    bash -c "for c in systemd/logind.conf systemd/system.conf sysctl.d; do systemd-analyze --root='$root' cat-config \$c | grep -qF '50-$name.conf' || exit 1; done"
check "chroot: nothing was applied live (no systemctl, no systemd-sysctl)" bash -c "! grep . '$live_log'"
check "chroot: dpkg --purge" \
    dpkg_run dpkg --purge $name
check "chroot: purged: not known to dpkg any more" not_known "$name"
check "chroot: the drop-ins, the mask, its record and the package's state are gone" \
    bash -c "for f in '$sysctl_conf' '$logind_conf' '$system_conf' '$mask' '$mask_record' /var/lib/$name /usr/share/doc/$name; do [ ! -e '$root'\$f ] && [ ! -L '$root'\$f ] || { echo \"left: \$f\"; exit 1; }; done"
check "chroot: /etc, /usr and /var/lib are as before the install" diff "$work/before" <(snapshot)

# 2. an administrator's own ctrl-alt-del.target: left alone on install and on purge.
printf '[Unit]\nDescription=the administrator'"'"'s own\n' > "$root$mask"
snapshot > "$work/before-admin"
check "admin's unit: dpkg -i" \
    dpkg_run dpkg -i /tmp/$name.deb
check "admin's unit: not replaced by a mask, no record of a mask" \
    bash -c "[ -f '$root$mask' ] && [ ! -L '$root$mask' ] && grep -q 'the administrator' '$root$mask' && [ ! -e '$root$mask_record' ]"
check "admin's unit: dpkg --purge" \
    dpkg_run dpkg --purge $name
check "admin's unit: still there after the purge, and all else as before" diff "$work/before-admin" <(snapshot)
rm -f "$root$mask"

# 3. "on a running systemd": what the maintainer scripts ask of systemd, through the stubs.
mkdir -p "$root/run/systemd/system"
# The kernel.sysrq value postinst would have found (it keeps one recorded already).
mkdir -p "$root/var/lib/$name"
echo 438 > "$root/var/lib/$name/sysrq"
: > "$live_log"
check "live: dpkg -i" \
    dpkg_run dpkg -i /tmp/$name.deb
cp "$live_log" "$work/live-install.log"
sed 's/^/live| /' "$work/live-install.log"
has() { grep -qxF -- "$2" "$1"; }
check "live install: systemctl daemon-reload (system.conf.d and the mask)" has "$work/live-install.log" "systemctl --system daemon-reload"
check "live install: systemd-sysctl applies the package's sysctl.d file" has "$work/live-install.log" "systemd-sysctl $sysctl_conf"
check "live install: logind restarted if running (try-restart)" has "$work/live-install.log" "systemctl try-restart systemd-logind.service"
check "live install: the VT login prompts stopped (getty@tty1, autovt@tty3)" \
    bash -c "grep -qx 'systemctl stop getty@tty1.service' '$work/live-install.log' && grep -qx 'systemctl stop autovt@tty3.service' '$work/live-install.log'"
check "live install: tty2, where someone is logged in, keeps its session" bash -c "! grep -q 'stop getty@tty2' '$work/live-install.log'"
check "live install: the serial console and logind are never stopped" \
    bash -c "! grep -E 'stop .*(serial-getty|systemd-logind)' '$work/live-install.log'"
check "live install: the recorded kernel.sysrq value is kept for postrm" [ "$(cat "$root/var/lib/$name/sysrq")" = 438 ]
check "live install: masked as in a chroot" masked_by_us
: > "$live_log"
check "live: dpkg --remove" \
    dpkg_run dpkg --remove $name
cp "$live_log" "$work/live-remove.log"
sed 's/^/live| /' "$work/live-remove.log"
check "live remove: kernel.sysrq given back (438) through systemd-sysctl" \
    bash -c "grep -qE '^systemd-sysctl /run/' '$work/live-remove.log' && grep -qxF '    | kernel.sysrq = 438' '$work/live-remove.log'"
check "live remove: the system's sysctl.d files applied again, daemon-reload, logind restarted" \
    bash -c "for l in 'systemctl --system daemon-reload' 'systemctl --quiet --system restart systemd-sysctl.service' 'systemctl try-restart systemd-logind.service'; do grep -qxF \"\$l\" '$work/live-remove.log' || { echo \"missing: \$l\"; exit 1; }; done"
check "live remove: the mask, its record and the recorded value are gone" \
    bash -c "[ ! -L '$root$mask' ] && [ ! -e '$root$mask_record' ] && [ ! -e '$root/var/lib/$name' ] && [ ! -e '$root/run/bubble-kiosk-lockdown-sysrq.conf' ]"
check "live: dpkg --purge" \
    dpkg_run dpkg --purge $name
check "live: /etc, /usr and /var/lib are as before the first install" diff "$work/before" <(snapshot)

summary lockdown-deb-test
