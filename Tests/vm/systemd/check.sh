#!/bin/bash
# Guest side of Tests/vm/systemd-test.sh: runs on the booted Debian system (systemd as PID 1)
# from vm-systemd-check.service, after the bubble-kiosk package was installed with dpkg -i.
# Everything goes to the serial console (ttyS0), which the host reads:
#   SYSD-CHECK ok|FAIL WHAT     one check (the host counts them)
#   SYSD-INFO TEXT              a measurement or a detail worth reading
#   SYSD-DONE checks=N          the script got to its end
#   JOURNAL| ...                the unit's journal at the end
#   VM-SCREENDUMP NAME          asks the host for a QMP screendump (answered on ttyS1)
#   VM-TEST-END rc=0            then the machine powers off
# Files from the host are in /usr/local/lib/vm-systemd/ (touch.desc, tap.events, four-corners.events,
# tap-pops where tap.events pops bubbles too),
# and optionally vm.env, which the arm64 boot sets (its console is ttyAMA0, its screendump
# answers come on a virtio console, and it runs the sections that matter on a board):
#   VM_CONSOLE=/dev/ttyS0 VM_ACK=/dev/ttyS1 VM_CHECKS="all" (or some of: sandbox sysfs backlight
#   keyboard restarts mqtt cec), or VM_CHECKS=upgrade alone (upgrade.sh: no package at boot)
#   VM_SCREEN_OFF_AT_BOOT=CONNECTOR: the machine booted with that connector forced off (the
#   kernel's video=CONNECTOR:d); the boot section checks the kiosk waits, then switches it on.
#   VM_BACKLIGHT=NAME: the machine has that backlight in /sys/class/backlight (the arm64 boot's
#   device tree adds one, driven by led_bl with max_brightness 31); the backlight section checks
#   the kiosk drives it. Without it the section only says there is none.
set -u
VM_CONSOLE=/dev/ttyS0 VM_ACK=/dev/ttyS1 VM_CHECKS=all VM_SCREEN_OFF_AT_BOOT="" VM_BACKLIGHT=""
[ -f /usr/local/lib/vm-systemd/vm.env ] && . /usr/local/lib/vm-systemd/vm.env
exec > "$VM_CONSOLE" 2>&1
echo "VM-READY uptime=$(cut -d' ' -f1 /proc/uptime)"
# However the script ends, the host gets its end marker (the unit then powers the VM off).
trap 'echo "VM-TEST-END rc=$?"' EXIT

unit=bubble-kiosk.service
conf=/etc/bubble-kiosk/kiosk.conf
state=/var/lib/bubble-kiosk
files=/usr/local/lib/vm-systemd
checks=0

# wants SECTION: the optional sections (boot, process, input and the stop always run).
wants() { [ "$VM_CHECKS" = all ] || case " $VM_CHECKS " in *" $1 "*) true ;; *) false ;; esac; }
pass() { checks=$((checks + 1)); echo "SYSD-CHECK ok   $*"; }
fail() { checks=$((checks + 1)); echo "SYSD-CHECK FAIL $*"; }
info() { echo "SYSD-INFO $*"; }
# check WHAT COMMAND...: ok when the command exits 0; its output follows a failure, indented.
# The command runs in this shell (not a subshell), so what it sets, such as pid, stays set.
check() {
    local what=$1 rc=0; shift
    "$@" > /run/vm-check.out 2>&1 || rc=$?
    if [ $rc = 0 ]; then pass "$what"; else fail "$what"; head -n 15 /run/vm-check.out | sed 's/^/       /'; fi
    return $rc
}
uptime_s() { cut -d' ' -f1 /proc/uptime; }
prop() { systemctl show -P "$1" "$unit"; }
main_pid() { prop MainPID; }

# wait_active SECONDS [OLD_PID]: until the unit is active with a main process other than
# OLD_PID. Sets waited (seconds it took) and pid.
wait_active() {
    local limit=$1 old=${2:-0} t0 now
    t0=$(uptime_s)
    while :; do
        pid=$(main_pid)
        if [ "$(systemctl is-active "$unit")" = active ] && [ "$pid" != 0 ] && [ "$pid" != "$old" ]; then
            waited=$(awk -v a="$t0" -v b="$(uptime_s)" 'BEGIN { printf "%.1f", b - a }')
            return 0
        fi
        now=$(uptime_s)
        if awk -v a="$t0" -v b="$now" -v l="$limit" 'BEGIN { exit !(b - a > l) }'; then
            info "still not active after $limit s: $(systemctl is-active "$unit"), MainPID $pid, $(prop StatusText)"
            return 1
        fi
        sleep 0.2
    done
}

# wait_new_pid SECONDS OLD_PID: until there is a main process other than OLD_PID (active or
# still starting). Sets pid.
wait_new_pid() {
    local i
    for i in $(seq $(($1 * 10))); do
        pid=$(main_pid)
        [ "$pid" != 0 ] && [ "$pid" != "$2" ] && return 0
        sleep 0.1
    done
    return 1
}

# screendump NAME: the host saves what the emulated card shows as NAME.ppm; returns once taken.
screendump() {
    local word what status
    exec 3<>"$VM_ACK"
    stty -F "$VM_ACK" raw -echo 2>/dev/null
    echo "VM-SCREENDUMP $1"
    while read -t 20 -r word what status <&3; do
        [ "$word $what" = "VM-ACK $1" ] || continue
        exec 3<&-
        [ "$status" = ok ]
        return
    done
    exec 3<&-
    echo "VM-SCREENDUMP-TIMEOUT $1"
    return 1
}

# mark NAME, then since NAME: the unit's journal lines logged after the mark.
journal_lines() { journalctl -u "$unit" --no-pager -q -o cat; }
mark() { journal_lines | wc -l > "/run/vm-mark.$1"; }
since() { journal_lines | tail -n +$(( $(cat "/run/vm-mark.$1") + 1 )); }
journal_has() { since "$1" | grep -qF -- "$2"; }
# wait_journal MARK TEXT SECONDS
wait_journal() {
    local i
    for i in $(seq $(($3 * 5))); do journal_has "$1" "$2" && return 0; sleep 0.2; done
    echo "no '$2' in the journal since mark $1:"; since "$1" | tail -n 5
    return 1
}

# KDGETMODE / VT_GETMODE on tty1 (perl-base is in every Debian): 0 KD_TEXT, 1 KD_GRAPHICS;
# VT mode 0 VT_AUTO, 1 VT_PROCESS.
kd_mode() { perl -e 'open(my $t, "<", "/dev/tty1") or die "tty1: $!"; my $m = pack("i", -1);
    ioctl($t, 0x4B3B, $m) or die "KDGETMODE: $!"; print unpack("i", $m), "\n"'; }
# KDGKBMODE: 3 K_UNICODE, 4 K_OFF.
kb_mode() { perl -e 'open(my $t, "<", "/dev/tty1") or die "tty1: $!"; my $m = pack("i", -1);
    ioctl($t, 0x4B44, $m) or die "KDGKBMODE: $!"; print unpack("i", $m), "\n"'; }
vt_mode() { perl -e 'open(my $t, "<", "/dev/tty1") or die "tty1: $!"; my $m = "\0" x 8;
    ioctl($t, 0x5601, $m) or die "VT_GETMODE: $!"; print unpack("c", $m), "\n"'; }

# in_sandbox COMMAND...: runs COMMAND as the kiosk runs: in its cgroup (the device allow list
# is a BPF program on it), its mount and network namespaces, as its user with its groups and
# no capabilities.
in_sandbox() {
    local p cg
    p=$(main_pid)
    cg=$(prop ControlGroup)
    bash -c 'echo $$ > "/sys/fs/cgroup$1/cgroup.procs" && shift && exec "$@"' _ "$cg" \
        nsenter -t "$p" -m -n setpriv --reuid=bubble-kiosk --regid=bubble-kiosk --init-groups \
        --inh-caps=-all --bounding-set=-all --no-new-privs -- "$@"
}
opens_rw() { exec 3<>"$1"; }
opens_r() { exec 3<"$1"; }
# The checks run some of these in `bash -c`.
export unit state
export -f prop main_pid kd_mode kb_mode vt_mode in_sandbox opens_rw opens_r

step() { info "step $* at $(uptime_s) s"; }

# plug DESC OUT: a uinput device made by evemu-device from DESC, left running in the background
# (its output in OUT). Sets dev_pid and node (/dev/input/eventN, empty when none came).
plug() {
    local i
    evemu-device "$1" > "$2" 2>&1 &
    dev_pid=$!
    for i in $(seq 50); do grep -q '/dev/input/event' "$2" && break; sleep 0.1; done
    node=$(grep -oE '/dev/input/event[0-9]+' "$2" | head -n1)
}

# The upgrade test (systemd-test.sh --upgrade) boots without the package: its section installs
# it from the repository, upgrades and downgrades it, and is all that runs.
[ "$VM_CHECKS" = upgrade ] && . "$files/upgrade.sh"

# --- 1: after boot ----------------------------------------------------------------------------
step boot
if check "the unit is active after boot" wait_active 90; then
    boot_pid=$pid
else
    boot_pid=$(main_pid)
    systemctl status --no-pager "$unit" | sed 's/^/       /' | head -n 20
fi
info "tty1's keyboard mode once the unit is active: $(kb_mode 2>&1)"
ready_us=$(prop ActiveEnterTimestampMonotonic)
if [ "${ready_us:-0}" != 0 ]; then
    info "first frame (READY=1, the unit became active) $(awk -v u="$ready_us" 'BEGIN { printf "%.2f", u / 1e6 }') s after kernel start"
else
    info "first frame: the unit never became active (no READY=1)"
fi
info "systemd started $(systemctl show -P UserspaceTimestampMonotonic | awk '{ printf "%.2f", $1 / 1e6 }') s after kernel start"
# The kiosk's share of the boot: from the unit's start (its process exec'd) to READY=1, which
# it sends with its first frame on screen (or at once when no screen is connected).
start_us=$(prop ExecMainStartTimestampMonotonic)
if [ "${ready_us:-0}" != 0 ] && [ "${start_us:-0}" != 0 ]; then
    info "the kiosk's share: unit start to $([ -n "$VM_SCREEN_OFF_AT_BOOT" ] && echo "READY=1 (no screen yet)" || echo "first frame") $(awk -v a="$start_us" -v b="$ready_us" 'BEGIN { printf "%.2f", (b - a) / 1e6 }') s (the unit started $(awk -v u="$start_us" 'BEGIN { printf "%.2f", u / 1e6 }') s after kernel start)"
fi
for i in $(seq 50); do [ "$(systemctl is-system-running)" != starting ] && break; sleep 0.2; done
systemd-analyze critical-chain --no-pager "$unit" 2>&1 | sed 's/^/SYSD-INFO critical-chain| /'
first_line=$(journalctl -u "$unit" -o short-monotonic --no-pager -q | grep -m1 'bubble-kiosk: display' || true)
info "the kiosk's first display line: ${first_line:-none}"
if [ -n "$VM_SCREEN_OFF_AT_BOOT" ]; then
    # The screen is off at boot: the kiosk waits for it, active all along, and shows the game
    # when it is switched on (the issue's sequence: status forced back to detect, then a change
    # event for the card, since the status write sends none).
    connector=/sys/class/drm/card0-$VM_SCREEN_OFF_AT_BOOT
    info "at boot $connector/status is $(cat $connector/status)"
    check "with the screen off at boot the unit is active, waiting for a display" \
        bash -c '[ "$(cat '$connector'/status)" = disconnected ] && [ "$(systemctl show -P StatusText '$unit')" = "waiting for a display" ]' \
        || info "StatusText: $(prop StatusText)"
    screendump no-screen || fail "screendump no-screen"
    sleep 3
    mark screen-on
    echo detect > $connector/status
    echo change > /sys/class/drm/card0/uevent
    check "the screen switched on: the game is shown within 15 s" wait_journal screen-on "first frame on screen" 15
    check "the same process throughout, never restarted" \
        bash -c '[ "$(systemctl show -P MainPID '$unit')" = '$boot_pid' ] && [ "$(systemctl show -P NRestarts '$unit')" = 0 ]'
    check "the unit never left active" \
        bash -c '[ "$(systemctl is-active '$unit')" = active ] && [ "$(systemctl show -P ActiveExitTimestampMonotonic '$unit')" = 0 ]'
    # (No touchscreen yet: the start screen's status says it waits for one.)
    check "STATUS= follows: no longer waiting for a display" \
        bash -c 's=$(systemctl show -P StatusText '$unit'); [ -n "$s" ] && [ "$s" != "waiting for a display" ]' \
        || info "StatusText: $(prop StatusText)"
fi
sleep 1
screendump boot || fail "screendump boot"
# The language the test configured (vm-test.conf), from the package's catalogue.
language=$(sed -n 's/^language = //p' /etc/bubble-kiosk/kiosk.conf.d/vm-test.conf 2>/dev/null)
if [ -n "$language" ]; then
    check "the kiosk shows language $language from the package's catalogue" \
        bash -c "journal_lines() { journalctl -u $unit --no-pager -q -o cat; }; journal_lines | grep -qE 'language $language: [0-9]+ messages from /usr/share/locale/$language/LC_MESSAGES/bubble-kiosk.mo'" \
        || journal_lines | grep -iE 'language|font' | sed 's/^/       /'
    check "no glyph is missing from the installed fonts" bash -c "! journalctl -u $unit --no-pager -q -o cat | grep -qF 'no installed font has'"
fi

check "Type=notify, NotifyAccess=main, WatchdogSec=10s, Restart=always" \
    bash -c '[ "$(systemctl show -P Type '$unit')/$(systemctl show -P NotifyAccess '$unit')/$(systemctl show -P WatchdogUSec '$unit')/$(systemctl show -P Restart '$unit')" = notify/main/10s/always ]' \
    || systemctl show -p Type -p NotifyAccess -p WatchdogUSec -p Restart "$unit" | sed 's/^/       /'
check "the unit comes from the package and was enabled by its postinst" \
    bash -c 'systemctl show -P FragmentPath '$unit' | grep -qxE "(/usr)?/lib/systemd/system/bubble-kiosk.service" && [ "$(systemctl is-enabled '$unit')" = enabled ]'
check "systemd-analyze verify is clean on the installed system" \
    bash -c 'out=$(systemd-analyze verify --man=no '$unit' 2>&1); echo "$out"; [ -z "$out" ]'
exposure=$(systemd-analyze security "$unit" 2>/dev/null | sed -n 's/.*Overall exposure level for .*: \([0-9.]*\).*/\1/p')
info "systemd-analyze security (running system): exposure ${exposure:-?}"
check "exposure on the running system is at most 2.0" awk -v e="${exposure:-99}" 'BEGIN { exit !(e <= 2.0) }'

step process
check "the kiosk runs as bubble-kiosk" bash -c "[ \"\$(ps -o user= -p $boot_pid)\" = bubble-kiosk ]"
check "its groups are exactly audio input render video (besides its own)" \
    bash -c "g=\$(for g in \$(awk '/^Groups:/ { \$1 = \"\"; print }' /proc/$boot_pid/status); do getent group \$g | cut -d: -f1; done | grep -vx bubble-kiosk | sort | tr '\n' ' '); echo \"\$g\"; [ \"\$g\" = 'audio input render video ' ]"
check "the user has no other group memberships" \
    bash -c '[ "$(id -Gn bubble-kiosk | tr " " "\n" | sort | tr "\n" " ")" = "audio bubble-kiosk input render video " ]'
check "its standard input is /dev/tty1" bash -c "[ \"\$(readlink /proc/$boot_pid/fd/0)\" = /dev/tty1 ]"
check "it has no capabilities" bash -c "grep -E '^Cap(Prm|Eff|Bnd|Amb):' /proc/$boot_pid/status | awk '\$2 != \"0000000000000000\" { exit 1 }'"
check "no getty on tty1" bash -c '! systemctl -q is-active getty@tty1.service && [ -z "$(ps -t tty1 -o comm= | grep -v bubble-kiosk)" ]'
check "the state directory is /var/lib/bubble-kiosk, the user's" \
    bash -c "[ \"\$(stat -c %U $state)\" = bubble-kiosk ] && tr '\0' '\n' < /proc/$boot_pid/environ | grep -qx STATE_DIRECTORY=$state"
# The program's side (sd_notify, KDSETMODE): these need libsystemd and the VT code in the binary.
check "tty1 is in KD_GRAPHICS mode while the kiosk runs" bash -c '[ "$(kd_mode)" = 1 ]' || info "KDGETMODE: $(kd_mode 2>&1)"
check "tty1 is in VT_PROCESS mode (the kiosk handles VT switches)" bash -c '[ "$(vt_mode)" = 1 ]' || info "VT_GETMODE: $(vt_mode 2>&1)"
status_text=$(prop StatusText)
info "StatusText: ${status_text:-none}"
check "STATUS= says what the kiosk does" bash -c '[ -n "$(systemctl show -P StatusText '$unit')" ]'
w1=$(prop WatchdogTimestampMonotonic); sleep 6; w2=$(prop WatchdogTimestampMonotonic)
check "WATCHDOG=1 pings arrive (the watchdog timestamp moves)" bash -c "[ '${w1:-0}' != 0 ] && [ '${w2:-0}' -gt '${w1:-0}' ]"

if wants sandbox; then
    # --- 2: devices inside the sandbox ---------------------------------------------------------------
    step sandbox
    check "in the kiosk's sandbox /dev/dri/card0 opens read-write" in_sandbox bash -c 'opens_rw /dev/dri/card0'
    check "in the kiosk's sandbox /dev/input/event0 opens" in_sandbox bash -c 'opens_r /dev/input/event0'
    check "in the kiosk's sandbox /dev/tty1 opens read-write" in_sandbox bash -c 'opens_rw /dev/tty1'
    check "in the kiosk's sandbox ALSA (/dev/snd/controlC0) opens read-write" in_sandbox bash -c 'opens_rw /dev/snd/controlC0'
    # A framebuffer node anyone may open (char 29:0, /dev/fb0's numbers), so file permissions say
    # yes and only the unit's device policy (no char-fb) can say no: with EPERM, "Operation not
    # permitted" (permissions refuse with EACCES). Outside the sandbox the same open gets past it.
    mknod -m 666 /dev/vm-test-fb c 29 0
    check "in the kiosk's sandbox other devices are refused by the device policy (a framebuffer: EPERM)" \
        bash -c 'out=$(in_sandbox bash -c "opens_rw /dev/vm-test-fb" 2>&1); echo "$out"; echo "$out" | grep -q "Operation not permitted"'
    check "outside it the same user gets past the device policy (so the sandbox refused it)" \
        bash -c 'out=$(setpriv --reuid=bubble-kiosk --regid=bubble-kiosk --init-groups -- bash -c "opens_rw /dev/vm-test-fb" 2>&1); echo "$out"; ! echo "$out" | grep -q "Operation not permitted"'
    rm -f /dev/vm-test-fb
    check "in the kiosk's mount namespace /usr is read-only, even for root" \
        bash -c '! nsenter -t "$(main_pid)" -m bash -c ": > /usr/vm-test-write" 2>/dev/null'
    check "in the kiosk's sandbox the state directory is writable" in_sandbox bash -c ": > $state/.vm-test-write && rm $state/.vm-test-write"
fi

if wants sysfs; then
    # --- 2b: what the kiosk can write in /sys -------------------------------------------------------
    # ProtectKernelTunables= mounts /sys read-only; the unit's ReadWritePaths=-/sys/devices makes
    # the devices' files writable again, for backlights of any name. Without capabilities the
    # kiosk's user writes there only what file permissions let it: in the list of every sysfs
    # file it can write inside its sandbox (find -writable: access(2), which also says no for a
    # read-only mount), what is under /sys/devices must be backlights' brightness and bl_power.
    # Elsewhere the sandbox leaves writable what it did before /sys/devices was opened: on
    # systemd 257 (the arm64 boot) the unit's own cgroup's memory.pressure, which systemd mounts
    # read-write for MemoryPressureWatch= (a PSI trigger may be written there), and on both
    # AppArmor's .null, a character device (device nodes stay writable on a read-only mount;
    # the unit's device policy decides whether they open).
    step sysfs
    # sys_mounts: "/sys's options|/sys/devices's options" in the kiosk's mount namespace (the last
    # mount on each is the one in effect).
    sys_mounts() {
        awk '$5 == "/sys" || $5 == "/sys/devices" { o[$5] = $6 } END { print o["/sys"] "|" o["/sys/devices"] }' "/proc/$(main_pid)/mountinfo"
    }
    sys_mounts_ok() { local m; m=$(sys_mounts); echo "$m"; case "$m" in ro,*"|"rw,*) ;; *) return 1 ;; esac; }
    check "in the kiosk's mount namespace /sys is read-only and /sys/devices read-write" sys_mounts_ok
    awk '$5 ~ "^/sys(/|$)" { for (i = 7; i < NF; i++) if ($i == "-") { print $5, $6, $(i + 1); break } }' \
        "/proc/$(main_pid)/mountinfo" | sed 's/^/SYSD-INFO sandbox mount| /'
    t0=$(uptime_s)
    in_sandbox find /sys -writable 2>/dev/null | sort > /run/vm-sysfs-writable
    info "sysfs files the kiosk's user can write in its sandbox: $(wc -l < /run/vm-sysfs-writable) (find took $(awk -v a="$t0" -v b="$(uptime_s)" 'BEGIN { printf "%.1f", b - a }') s)"
    sed 's/^/SYSD-INFO sysfs writable| /' /run/vm-sysfs-writable
    grep '^/sys/devices/' /run/vm-sysfs-writable > /run/vm-sysfs-writable-devices
    only_backlights() { ! grep -vE '^/sys/devices/.+/backlight/[^/]+/(brightness|bl_power)$' /run/vm-sysfs-writable-devices; }
    check "under /sys/devices (what the unit opens) the kiosk can write backlights' brightness and bl_power, nothing else" only_backlights
    if [ -n "$VM_BACKLIGHT" ]; then
        just_the_backlight() {
            local d
            d=$(readlink -f "/sys/class/backlight/$VM_BACKLIGHT")
            [ "$(cat /run/vm-sysfs-writable-devices)" = "$(printf '%s\n' "$d/brightness" "$d/bl_power" | sort)" ]
        }
        check "those are exactly $VM_BACKLIGHT's two files" just_the_backlight
    else
        check "with no backlight on this machine, none at all under /sys/devices" test ! -s /run/vm-sysfs-writable-devices
    fi
    elsewhere_as_before() {
        local f own
        own=/sys/fs/cgroup$(prop ControlGroup)/memory.pressure
        while read -r f; do
            case "$f" in /sys/devices/*|"$own") continue ;; esac
            [ -c "$f" ] && continue
            echo "writable: $f"
            return 1
        done < /run/vm-sysfs-writable
    }
    check "elsewhere in /sys nothing but the unit's own memory.pressure and character devices" elsewhere_as_before
    # The documented command for looking on a board (doc/hardware.md, The backlight) (the running kiosk's mount namespace, as its
    # user) finds the same. (A transient unit with ProtectKernelTunables= is no stand-in: on
    # systemd 257 its /sys/kernel/security stayed writable, the kiosk's is not.)
    readme_list() {
        nsenter -t "$(systemctl show -P MainPID bubble-kiosk)" -m \
            setpriv --reuid=bubble-kiosk --regid=bubble-kiosk --init-groups find /sys -writable 2>/dev/null | sort
    }
    same_as_readme() { local a; a=$(readme_list); echo "$a"; [ "$a" = "$(cat /run/vm-sysfs-writable)" ]; }
    check "the documented command (doc/hardware.md) lists the same files" same_as_readme
    # Two controls, with a file given to video by hand as a udev rule would: under /sys/devices
    # the sandbox lets the kiosk write it (permissions decide there: what the widened path
    # exposes is what udev gives the kiosk's groups, and the list above would show it); outside
    # /sys/devices the mount stays read-only, though the same user may write it outside.
    grant() { chgrp video "$1" && chmod g+w "$1"; }
    ungrant() { chmod g-w "$1"; chgrp root "$1"; }
    as_user() { setpriv --reuid=bubble-kiosk --regid=bubble-kiosk --init-groups -- "$@"; }
    granted_inside=$(readlink -f /sys/class/tty/tty1)/uevent
    granted_outside=/sys/module/printk/parameters/time
    grant "$granted_inside"; grant "$granted_outside"
    check "a file under /sys/devices given to video ($granted_inside) is writable in the sandbox too" in_sandbox test -w "$granted_inside"
    outside_refused() { ! in_sandbox test -w "$granted_outside" && as_user test -w "$granted_outside"; }
    check "one elsewhere in /sys ($granted_outside) is not, though the same user may write it outside the sandbox" outside_refused
    ungrant "$granted_inside"; ungrant "$granted_outside"
fi

if wants backlight; then
    # --- 2c: the panel's backlight, driven by the kiosk under systemd --------------------------------
    if [ -z "$VM_BACKLIGHT" ]; then
        info "no backlight on this machine (the backlight checks are the arm64 boot's)"
    else
        step backlight
        bl=/sys/class/backlight/$VM_BACKLIGHT
        bl_conf=/etc/bubble-kiosk/kiosk.conf.d/vm-backlight.conf
        bl_value() { cat "$bl/$1" 2>/dev/null; }
        bl_state() { echo "brightness $(bl_value brightness) bl_power $(bl_value bl_power)"; }
        # wait_value FILE VALUE SECONDS: until $bl/FILE holds VALUE.
        wait_value() {
            local i
            for i in $(seq $(($3 * 5))); do [ "$(bl_value "$1")" = "$2" ] && return 0; sleep 0.2; done
            echo "$bl/$1 is '$(bl_value "$1")', not $2"
            return 1
        }
        # bl_reload LINE...: kiosk.conf.d/vm-backlight.conf holds [display] and these lines, then a reload.
        bl_reload() {
            { echo '[display]'; printf '%s\n' "$@"; } > "$bl_conf"
            mark bl-reload
            systemctl reload "$unit"
            wait_journal bl-reload "reloaded the configuration" 15 > /dev/null
        }
        bl_granted() {
            local f
            for f in brightness bl_power; do
                stat -c '%n %U:%G %A' "$bl/$f"
                [ "$(stat -c %G "$bl/$f")" = video ] && stat -c %A "$bl/$f" | grep -q '^.....w' || return 1
            done
        }
        # bl_found: the level the kiosk's latest start found (its "backlight DIR: ... found at N" line).
        bl_found() { journal_lines | grep -F "backlight $bl: max_brightness" | tail -n 1 | sed -n 's/.* found at \([0-9]*\).*/\1/p'; }

        info "$bl -> $(readlink -f "$bl"): max_brightness $(bl_value max_brightness), $(bl_state)"
        check "the kernel made the backlight $VM_BACKLIGHT from the device tree (max_brightness 31)" \
            bash -c "[ \"\$(cat $bl/max_brightness)\" = 31 ]"
        check "the udev rule gave its brightness and bl_power to the group video, group-writable" bl_granted
        info "the kiosk at start: $(journal_lines | grep -F "backlight $bl:" | tail -n 1)"
        bl_boot_found=$(bl_found)
        check "the kiosk took $VM_BACKLIGHT at start (backlight = auto, the only one)" [ -n "$bl_boot_found" ]
        # led_bl registers it with bl_power 4: the kiosk switches it on, the display being on.
        check "the display on: bl_power is 0" wait_value bl_power 0 10

        bl_reload "brightness = 80"
        check "[display] brightness = 80 and a reload: the kiosk wrote brightness 25 (80% of 31)" wait_value brightness 25 10
        bl_reload "brightness = 80" "dim_after_idle_min = 0.5" "dim_brightness = 20"
        check "dim_after_idle_min = 0.5 with nobody touching: the kiosk dimmed it to 6 (20% of 31)" wait_value brightness 6 45
        check "the journal says so" wait_journal bl-reload "backlight dimmed to 6 of 31" 5
        bl_reload "brightness = 80" "dim_after_idle_min = 0.5" "dim_brightness = 20" "sleep_after_idle_min = 0.5"
        bl_asleep() { wait_value bl_power 4 45 && [ "$(bl_value brightness)" = 6 ]; }
        check "the display's sleep (sleep_after_idle_min): the kiosk wrote bl_power 4, the level stayed 6" bl_asleep
        info "asleep: $(bl_state); STATUS=$(prop StatusText)"
        # One touch (the recording's first tap) wakes the display and brings the level back.
        awk '{ print } $4 == "0039" && $5 == "-001" { up = 1 } up && $3 == "0000" && $4 == "0000" { exit }' \
            "$files/tap.events" > /run/wake.events
        mark bl-touch
        plug "$files/touch.desc" /run/touch-backlight.dev
        if wait_journal bl-touch "input: using $node" 10 > /dev/null; then
            evemu-play "$node" < /run/wake.events
            bl_awake() { wait_value bl_power 0 15 && wait_value brightness 25 5; }
            check "a touch wakes the display: bl_power 0 and brightness 25 again" bl_awake
        else
            fail "a touch wakes the display: the kiosk did not take the touchscreen ($node)"
        fi
        kill "$dev_pid" 2>/dev/null; wait "$dev_pid" 2>/dev/null
        # No dimming or sleep from here on.
        bl_reload "brightness = 80"

        # A backlight that comes after the kiosk started (its driver loaded late): removed and
        # loaded again while the kiosk runs, it is writable in the running sandbox, no restart.
        step backlight-driver
        modprobe -r led_bl
        check "modprobe -r led_bl: $VM_BACKLIGHT is gone" test ! -e "$bl"
        modprobe led_bl
        bl_back() { local i; for i in $(seq 75); do [ "$(stat -c %G "$bl/brightness" 2>/dev/null)" = video ] && bl_granted && return 0; sleep 0.2; done; bl_granted; }
        check "modprobe led_bl with the kiosk running: $VM_BACKLIGHT is back, and udev gave it to video" bl_back
        info "the driver loaded again: $(bl_state)"
        check "the running kiosk's sandbox (the same mount namespace) lets its user write the new device" \
            in_sandbox bash -c "test -w $bl/brightness && test -w $bl/bl_power"
        bl_reload "brightness = 40"
        check "the running kiosk writes it: brightness = 40 and a reload gave it 12 (40% of 31)" wait_value brightness 12 10
        # The kiosk picks its backlight at start: a restart takes the new device (led_bl starts it
        # with bl_power 4 again, which the kiosk does not know of until then).
        pid=$(main_pid)
        systemctl restart "$unit"
        check "after a restart the kiosk is active again" wait_active 90 "$pid"
        bl_restarted() { wait_value bl_power 0 15 && wait_value brightness 12 5; }
        check "the restarted kiosk took the new device: bl_power 0, brightness 12" bl_restarted
        check "no warning or error about the backlight in the journal" \
            bash -c "! journalctl -u $unit -p warning --no-pager -q -o cat | grep -F backlight"
        # vm-backlight.conf stays: the stop at the end puts back the level found at start.
    fi
fi

# --- 3: touch input, and a reload that keeps the round -------------------------------------------
step input
mark input
plug "$files/touch.desc" /run/touch.dev
info "touchscreen ${node:-missing}"
if [ -z "$node" ]; then
    info "evemu-device: $(tr '\n' ' ' < /run/touch.dev); $(ls -l /dev/uinput 2>&1); modules: $(lsmod | awk 'NR > 1 { print $1 }' | tr '\n' ' ')"
    journalctl -b -u systemd-modules-load --no-pager -q | sed 's/^/SYSD-INFO modules-load: /'
fi
check "the kiosk uses the new touchscreen (hotplug)" wait_journal input "input: using $node" 10
evemu-play "$node" < "$files/tap.events"
# The tap presses Start (the test turns the demo off): under emulation the new round's first frame
# may take a few seconds to draw, and STATUS= changes only once it is on screen.
for i in $(seq 100); do systemctl show -P StatusText "$unit" | grep -q playing && break; sleep 0.2; done
sleep 0.5
screendump after-tap || fail "screendump after-tap"
info "StatusText after the tap: $(prop StatusText)"
check "STATUS= says playing after the tap on Start" bash -c 'systemctl show -P StatusText '$unit' | grep -q playing'
# tap-pops: the recording also pops that many bubbles of the round the kiosk plays (--seed 1).
if [ -f "$files/tap-pops" ]; then
    for i in $(seq 100); do prop StatusText | grep -qE 'score [1-9]' && break; sleep 0.2; done
    check "the tap on a bubble popped it (STATUS= shows a score above 0)" \
        bash -c 'systemctl show -P StatusText '$unit' | grep -qE "score [1-9]"'
fi
pid=$(main_pid)
mark reload
check "systemctl reload succeeds" systemctl reload "$unit"
check "the journal shows the reload line" wait_journal reload "reloaded the configuration" 10
check "the reload kept the process" bash -c "[ \"\$(systemctl show -P MainPID $unit)\" = $pid ]"
check "the unit is active after the reload" bash -c '[ "$(systemctl is-active '$unit')" = active ]'
sleep 1
# systemd's TTYReset= for the reload command turns tty1's keyboard on; the kiosk turns it off again.
check "after the reload tty1's keyboard is off again (K_OFF)" bash -c 'm=$(kb_mode); echo "KDGKBMODE: $m"; [ "$m" = 4 ]'
screendump after-reload || fail "screendump after-reload"
info "StatusText after the reload: $(prop StatusText)"
check "STATUS= still says playing after the reload" bash -c 'systemctl show -P StatusText '$unit' | grep -q playing'
kill "$dev_pid" 2>/dev/null; wait "$dev_pid" 2>/dev/null

# --- 3b: a visitor's keyboard (keyboard.sh) ------------------------------------------------------
wants keyboard && . "$files/keyboard.sh"

if wants restarts; then
    # --- 4: the state directory ---------------------------------------------------------------------
    step state
    token="written by the boot test at $(uptime_s)"
    echo "$token" > "$state/vm-test-marker"
    mark usr1
    systemctl kill -s USR1 "$unit"
    check "SIGUSR1 writes $state/screenshot.png" \
        bash -c "for i in \$(seq 50); do head -c 8 $state/screenshot.png 2>/dev/null | od -An -tx1 | grep -q '89 50 4e 47' && exit 0; sleep 0.2; done; exit 1"
    check "the journal says where the screenshot went" wait_journal usr1 "screenshot written to $state/screenshot.png" 5
    shot_sum=$(md5sum < "$state/screenshot.png" 2>/dev/null)

    # --- 4b: the operator reset: the four-corner gesture on a touchscreen -----------------------------
    step reset
    # Under emulation evemu-play may run late; a roomier window keeps the check about the gesture.
    mkdir -p /etc/bubble-kiosk/kiosk.conf.d
    printf '[operator]\nreset_within_s = 30\n' > /etc/bubble-kiosk/kiosk.conf.d/vm-reset.conf
    mark reset-reload
    systemctl reload "$unit"
    wait_journal reset-reload "reloaded the configuration" 10 > /dev/null || true
    pid=$(main_pid)
    restarts0=$(prop NRestarts)
    mark reset
    plug "$files/touch.desc" /run/touch-reset.dev
    if check "the kiosk uses the touchscreen for the reset" wait_journal reset "input: using $node" 10; then
        evemu-play "$node" < "$files/four-corners.events"
        check "the four-corner gesture logs the reset line" wait_journal reset "operator reset: four-corners gesture on device" 20
        since reset | grep -F "operator reset:" | head -n 1 | sed 's/^/SYSD-INFO journal: /'
        if check "after the reset it is back (a new PID, active) within 15 s" wait_active 15 "$pid"; then
            info "back $waited s after the reset (pid $pid)"
        fi
        check "systemd restarted it (NRestarts grew)" bash -c "[ \$(systemctl show -P NRestarts $unit) -gt ${restarts0:-0} ]"
    fi
    kill "$dev_pid" 2>/dev/null; wait "$dev_pid" 2>/dev/null
    rm -f /etc/bubble-kiosk/kiosk.conf.d/vm-reset.conf
    systemctl reload "$unit"

    # --- 5: crashes, a hang, a crash loop ------------------------------------------------------------
    step segv
    pid=$(main_pid)
    kill -SEGV "$pid"
    if check "after kill -SEGV it is back (a new PID, active) within 10 s" wait_active 10 "$pid"; then
        info "back $waited s after SIGSEGV (pid $pid)"
    fi
    sleep 1
    screendump after-segv || fail "screendump after-segv"

    step stop
    pid=$(main_pid)
    mark stop
    kill -STOP "$pid"
    if check "after kill -STOP the watchdog restarts it within 30 s" wait_active 30 "$pid"; then
        info "restarted $waited s after SIGSTOP (pid $pid)"
    else
        # No watchdog: end the stopped process so the remaining checks still run.
        kill -KILL "$pid"
        wait_active 20 "$pid"
    fi
    check "the journal names the watchdog" bash -c "journalctl -u $unit --no-pager -q | grep -q 'Watchdog timeout'"

    # crash_until_limit: kills each new main process as soon as it exists, before it is even up,
    # until systemd's start limit refuses the next start (the journal says so). Sets crashed; 1
    # when 12 crashes did not reach the limit, or no new process came within 30 s.
    limit_count() { journalctl --no-pager -q -u "$unit" | grep -c 'Start request repeated too quickly'; }
    crash_until_limit() {
        local limits i n p
        limits=$(limit_count)
        pid=$(main_pid)
        crashed=0
        for i in $(seq 12); do
            kill -SEGV "$pid" 2>/dev/null && crashed=$((crashed + 1))
            # Then a new process to kill, or the start limit.
            for n in $(seq 300); do
                [ "$(limit_count)" -gt "$limits" ] && return 0
                p=$(main_pid)
                if [ "$p" != 0 ] && [ "$p" != "$pid" ]; then pid=$p; break; fi
                sleep 0.1
            done
            [ "$n" = 300 ] && return 1
        done
        return 1
    }

    # follow_retry SECONDS [stop]: follows the kiosk unit (ActiveState/Result) and the retry timer,
    # saying each change as SYSD-INFO and collecting them in seen, until the kiosk is active again
    # after the timer was armed; with "stop", it instead stops the kiosk as soon as the timer is
    # armed and returns. 1 on timeout.
    follow_retry() {
        local limit=$1 mode=${2:-} t0 state last="" armed=0
        t0=$(uptime_s)
        seen=""
        while awk -v a="$t0" -v b="$(uptime_s)" -v l="$limit" 'BEGIN { exit !(b - a <= l) }'; do
            state="$(systemctl show -P ActiveState "$unit")/$(systemctl show -P Result "$unit") timer=$(systemctl show -P ActiveState bubble-kiosk-retry.timer)"
            if [ "$state" != "$last" ]; then
                info "+$(awk -v a="$t0" -v b="$(uptime_s)" 'BEGIN { printf "%.1f", b - a }') s: kiosk $state"
                seen="$seen|$state"
                last=$state
            fi
            case "$state" in *timer=active*) armed=1 ;; esac
            if [ $armed = 1 ] && [ "$mode" = stop ]; then systemctl stop "$unit"; return 0; fi
            if [ $armed = 1 ] && [ "${state%%/*}" = active ]; then return 0; fi
            sleep 0.3
        done
        return 1
    }

    step crash-loop
    # The retry timer waits 20 s here instead of the shipped minute.
    retry_dropin=/etc/systemd/system/bubble-kiosk-retry.timer.d
    mkdir -p "$retry_dropin"
    printf '[Timer]\nOnActiveSec=\nOnActiveSec=20s\n' > "$retry_dropin/vm-test.conf"
    systemctl daemon-reload
    # The steps before restarted it too: a fresh start-limit count (5 starts in 60 s).
    systemctl reset-failed "$unit"
    restarts0=$(prop NRestarts)
    check "crashes in a row reach the start limit" crash_until_limit
    info "crashed it $crashed times in a row; NRestarts $restarts0 -> $(prop NRestarts)"
    check "5 restarts were allowed, the 6th start refused (StartLimitBurst=5): 6 crashes" [ "$crashed" = 6 ]
    if check "the retry started it again after the start limit (within 120 s)" follow_retry 120; then
        info "the kiosk: $seen"
    fi
    # (Result= keeps the last crash's, signal: only the journal names the start limit.)
    check "the start limit left it failed meanwhile" grep -q '|failed/' <<< "$seen"
    check "the failure armed bubble-kiosk-retry.timer (OnFailure=)" grep -q 'timer=active' <<< "$seen"
    check "the journal says the start limit gave up" \
        bash -c "journalctl --no-pager -q -u $unit | grep -q 'Start request repeated too quickly'"
    check "bubble-kiosk-retry.service ran" \
        bash -c "journalctl --no-pager -q -u bubble-kiosk-retry.service | grep -qE 'Finished|Deactivated successfully'"
    journalctl --no-pager -q -o short-monotonic -u "$unit" -u bubble-kiosk-retry.timer -u bubble-kiosk-retry.service \
        | grep -E 'repeated|start-limit|retry|Scheduled restart' | tail -n 12 | sed 's/^/SYSD-INFO journal: /'
    check "the timer is inactive again afterwards, ready for the next burst (RemainAfterElapse=no)" \
        bash -c "[ \"\$(systemctl show -P ActiveState bubble-kiosk-retry.timer)\" = inactive ]"

    step crash-loop-stop
    # An operator stopping the kiosk during the pause stops the pending retry too.
    wait_active 30 > /dev/null
    check "a second crash loop reaches the start limit" crash_until_limit
    info "crashed it $crashed times in a row"
    if check "the second limit armed the timer, and the kiosk was stopped then" follow_retry 60 stop; then
        check "systemctl stop during the pause stopped the retry timer too (PropagatesStopTo=)" \
            bash -c "[ \"\$(systemctl show -P ActiveState bubble-kiosk-retry.timer)\" = inactive ]"
        info "the kiosk: $seen"
        sleep 25
        check "and nothing started the kiosk again (25 s, past the retry's 20)" bash -c "[ \"\$(systemctl is-active $unit)\" != active ]"
    fi
    rm -rf "$retry_dropin"
    systemctl daemon-reload
    systemctl reset-failed "$unit"
    systemctl start "$unit"
    check "after reset-failed a start works again" wait_active 30
    journalctl --no-pager -q -o short-monotonic -u "$unit" -u bubble-kiosk-retry.timer -u bubble-kiosk-retry.service \
        | grep -E 'repeated|start-limit|retry|Scheduled restart|Stopped|Started' | tail -n 14 | sed 's/^/SYSD-INFO journal: /'

    # --- 6: a broken config line ----------------------------------------------------------------------
    step config
    cp "$conf" /run/kiosk.conf.orig
    printf '\n[game]\nbubbles = lots\n' >> "$conf"
    line=$(grep -n '^bubbles = lots$' "$conf" | cut -d: -f1)
    mark config
    systemctl restart "$unit"
    check "with a broken config line the kiosk still runs (on defaults)" wait_active 30
    sleep 1
    check "the journal names the file and line ($conf:$line:)" wait_journal config "$conf:$line:" 10
    since config | grep -F "$conf:" | head -n 3 | sed 's/^/SYSD-INFO journal: /'
    cp /run/kiosk.conf.orig "$conf"
fi

if wants mqtt; then
    # --- 6b: MQTT from inside the sandbox: a broker in the guest, the package's drop-in -----------------
    # The broker (Debian's mosquitto, in the root for the full run) on 127.0.0.1:1883 as a
    # transient unit logging to the journal; the kiosk configured for it through kiosk.conf.d.
    # Without the drop-in the unit has no network (its own empty namespace, AF_UNIX and AF_NETLINK
    # only), so it must not connect; with /usr/share/bubble-kiosk/systemd/mqtt.conf copied into
    # bubble-kiosk.service.d it must, and stay at most 2.0 in systemd-analyze security.
    step mqtt
    node=vmkiosk prefix=bubble-kiosk/vmkiosk
    mq_sub() { timeout 20 mosquitto_sub -h 127.0.0.1 -p 1883 "$@"; }
    mq_retained() { mq_sub -t "$1" --retained-only -C 1 -W 2 -F '%p' 2> /dev/null; }
    # mq_wait_retained TOPIC PAYLOAD SECONDS
    mq_wait_retained() {
        local end=$(( $(cut -d. -f1 /proc/uptime) + $3 )) got=
        while [ "$(cut -d. -f1 /proc/uptime)" -lt $end ]; do
            got=$(mq_retained "$1")
            [ "$got" = "$2" ] && return 0
            sleep 0.5
        done
        echo "retained on $1: '${got:-nothing}', wanted '$2'"
        return 1
    }
    # mq_state_has TEXT: the retained state shows TEXT within 10 s.
    mq_state_has() {
        local i
        for i in $(seq 20); do mq_retained "$prefix/state" | grep -qF -- "$1" && return 0; sleep 0.5; done
        mq_retained "$prefix/state"; return 1
    }
    # The state: the contract's keys in its order (the guest has no JSON tools: one pattern).
    mq_state_ok() {
        local s
        s=$(mq_retained "$prefix/state")
        echo "$s"
        echo "$s" | grep -qE '^\{"screen":"[a-z_]+","mode":"[a-z]+","score":[0-9]+,"display":"(on|off)","brightness":(null|[0-9]+),"volume":[0-9]+,"rounds_today":[0-9]+,"high_score":[0-9]+,"last_touch":(null|"[0-9T:.Z+-]+"),"touchscreens":[0-9]+,"version":"[^"]+","uptime_s":[0-9]+,"tv":(null|"(on|standby|unknown)")\}$'
    }
    mq_asleep() { mq_state_has '"display":"off"' && prop StatusText | grep -q 'display asleep'; }
    mq_png() {
        local i
        for i in $(seq 20); do
            mq_sub -t "$prefix/screenshot" --retained-only -C 1 -W 2 -N -F '%p' 2> /dev/null | head -c 8 | od -An -tx1 \
                | grep -q '89 50 4e 47 0d 0a 1a 0a' && return 0
            sleep 0.5
        done
        return 1
    }
    mq_not_online() { local got; got=$(mq_retained "$prefix/availability"); echo "retained: ${got:-nothing}"; [ "$got" != online ]; }
    if check "mosquitto and its clients are installed in the guest" command -v mosquitto mosquitto_sub mosquitto_pub; then
        # (Debian's own mosquitto.service, enabled by the package, would hold the port.)
        systemctl stop mosquitto.service 2> /dev/null
        systemctl reset-failed "$unit"
        printf 'listener 1883 127.0.0.1\nallow_anonymous true\npersistence false\nlog_dest stderr\nlog_type all\n' > /run/vm-mosquitto.conf
        systemd-run -q --unit=vm-mosquitto /usr/sbin/mosquitto -c /run/vm-mosquitto.conf
        for i in $(seq 50); do journalctl -u vm-mosquitto -q -o cat | grep -q 'mosquitto version .* running' && break; sleep 0.2; done
        check "a broker runs in the guest on 127.0.0.1:1883" bash -c "journalctl -u vm-mosquitto -q -o cat | grep -q 'mosquitto version .* running'"
        check "the package ships the MQTT drop-in, not active" \
            bash -c "[ -f /usr/share/bubble-kiosk/systemd/mqtt.conf ] && ! systemctl show -P DropInPaths $unit | grep -q mqtt.conf"
        printf '[mqtt]\nbroker = mqtt://127.0.0.1:1883\nnode_id = %s\nkeepalive_s = 5\n' "$node" > /etc/bubble-kiosk/kiosk.conf.d/vm-mqtt.conf
        mark mqtt-off
        systemctl restart "$unit"
        check "[mqtt] set, no drop-in: the kiosk runs" wait_active 30
        sleep 5
        check "[mqtt] set, no drop-in: no connection from the kiosk's own empty network" mq_not_online
        since mqtt-off | grep -F 'mqtt:' | head -n 2 | sed 's/^/SYSD-INFO journal: /'

        mkdir -p /etc/systemd/system/bubble-kiosk.service.d
        cp /usr/share/bubble-kiosk/systemd/mqtt.conf /etc/systemd/system/bubble-kiosk.service.d/mqtt.conf
        systemctl daemon-reload
        mark mqtt-on
        systemctl restart "$unit"
        check "with the drop-in the unit restarts and runs" wait_active 30
        check "the drop-in is in effect (PrivateNetwork=no, AF_INET, IPAddressAllow=localhost, IPAddressDeny=any)" \
            bash -c "[ \"\$(systemctl show -P PrivateNetwork $unit)\" = no ] && systemctl show -P RestrictAddressFamilies $unit | grep -qw AF_INET &&
                     systemctl show -P IPAddressAllow $unit | grep -q '127.0.0.0/8' && systemctl show -P IPAddressDeny $unit | grep -qE '0.0.0.0/0|::/0'"
        systemctl show -p PrivateNetwork -p RestrictAddressFamilies -p IPAddressAllow -p IPAddressDeny "$unit" | sed 's/^/SYSD-INFO /'
        if check "the kiosk connects from inside its sandbox: availability 'online' (retained)" mq_wait_retained "$prefix/availability" online 30; then
            info "online $(since mqtt-on | grep -m1 -F 'mqtt:' || echo '(no mqtt: line)')"
        fi
        since mqtt-on | grep -F 'mqtt:' | head -n 3 | sed 's/^/SYSD-INFO journal: /'
        check "its state arrives (retained JSON, the contract's keys in order)" mq_state_ok
        timeout 10 mosquitto_pub -h 127.0.0.1 -t "$prefix/display/set" -m OFF
        check "a command reaches it: display/set OFF puts the display to sleep (state display off, STATUS= asleep)" mq_asleep \
            || info "StatusText: $(prop StatusText)"
        timeout 10 mosquitto_pub -h 127.0.0.1 -t "$prefix/display/set" -m ON
        check "display/set ON wakes it" mq_state_has '"display":"on"'
        timeout 10 mosquitto_pub -h 127.0.0.1 -t "$prefix/screenshot/set" -m PRESS
        check "screenshot/set: a PNG on $prefix/screenshot" mq_png
        exposure_mqtt=$(systemd-analyze security "$unit" 2>/dev/null | sed -n 's/.*Overall exposure level for .*: \([0-9.]*\).*/\1/p')
        info "systemd-analyze security with the MQTT drop-in (running system): exposure ${exposure_mqtt:-?}"
        check "exposure with the MQTT drop-in is at most 2.0" awk -v e="${exposure_mqtt:-99}" 'BEGIN { exit !(e <= 2.0) }'
        systemctl stop "$unit"
        check "systemctl stop: availability 'offline' (retained)" mq_wait_retained "$prefix/availability" offline 15
        # The kiosk's client at the broker: the one whose will is on its availability topic.
        mq_client=$(journalctl -u vm-mosquitto -q -o cat | awk -v topic="$prefix/availability" '
            / New client connected from .* as / { id = $0; sub(/.* as /, "", id); sub(/ \(.*/, "", id) }
            / Will message specified/ { getline; sub(/^[^\t]*\t/, ""); if ($0 == topic) found = id }
            END { print found }')
        info "the kiosk's client at the broker: ${mq_client:-not found}"
        journalctl -u vm-mosquitto -q -o cat | grep -A2 -F "as ${mq_client:-?} (" | head -n 3 | sed 's/^/SYSD-INFO broker: /'
        mq_clean_bye() { [ -n "$mq_client" ] && journalctl -u vm-mosquitto -q -o cat | grep -qF "Received DISCONNECT from $mq_client"; }
        check "systemctl stop: the kiosk said goodbye itself (DISCONNECT: no last will needed)" mq_clean_bye
        # Back to the unit as shipped for what follows.
        rm -f /etc/systemd/system/bubble-kiosk.service.d/mqtt.conf /etc/bubble-kiosk/kiosk.conf.d/vm-mqtt.conf
        systemctl daemon-reload
        systemctl start "$unit"
        wait_active 30 > /dev/null
        systemctl stop vm-mosquitto
    fi
fi

# --- 6b: HDMI-CEC from inside the sandbox (cec.sh) -------------------------------------------------
wants cec && . "$files/cec.sh"

# --- 7: what survived, and the console after a stop ----------------------------------------------
step survived
if wants restarts; then
    check "the state directory's marker file survived every restart" grep -qxF "$token" "$state/vm-test-marker"
    check "the SIGUSR1 screenshot survived every restart" bash -c "[ -n '$shot_sum' ] && [ \"\$(md5sum < $state/screenshot.png)\" = '$shot_sum' ]"
fi
check "the unit is active at the end" bash -c '[ "$(systemctl is-active '$unit')" = active ]'
[ -n "${bl_conf:-}" ] && bl_stop_found=$(bl_found)
systemctl stop "$unit"
sleep 1
if [ -n "${bl_conf:-}" ]; then
    info "the backlight after systemctl stop: $(bl_state) (the kiosk found ${bl_stop_found:-?} at its start)"
    bl_put_back() { wait_value brightness "$bl_stop_found" 10 && wait_value bl_power 0 5; }
    check "after systemctl stop the backlight is as the kiosk found it (brightness ${bl_stop_found:-?}), bl_power 0" bl_put_back
    rm -f "$bl_conf"
fi
check "after systemctl stop tty1 is back in text mode" bash -c '[ "$(kd_mode)" = 0 ]'
check "after systemctl stop tty1's keyboard answers again (K_UNICODE or K_XLATE)" bash -c 'm=$(kb_mode); [ "$m" = 3 ] || [ "$m" = 1 ]'
printf '\n\n  bubble-kiosk boot test: the console after systemctl stop\n' > /dev/tty1
sleep 0.5
screendump after-stop || fail "screendump after-stop"

step end
journalctl -u "$unit" -o short-monotonic --no-pager -q | sed 's/^/JOURNAL| /'
echo "SYSD-DONE checks=$checks"
exit 0
