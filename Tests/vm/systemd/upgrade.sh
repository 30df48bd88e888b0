# An upgrade from the repository while a round is in play, and a downgrade: sourced by
# check.sh as its only section when VM_CHECKS=upgrade (systemd-test.sh --upgrade), on a
# Debian 12 system without bubble-kiosk, which this section installs. Uses check.sh's helpers.
# From the host, in /srv/www: repo-N (the repository with version N) and repo-N1 (the same
# repository once N+1 was added, N still in it); /srv/www/bubble-kiosk is a link to the one
# served, so flipping it publishes N+1. /etc/apt/sources.list.d/bubble-kiosk.sources points at
# http://127.0.0.1:8080/bubble-kiosk, its key is in /usr/share/keyrings, unattended-upgrades is
# installed; vm.env says VM_VERSION_N and VM_VERSION_N1.
#   SYSD-INFO phase NAME took S s      the times the host prints

export VM_VERSION_N VM_VERSION_N1
phase_t0=$(uptime_s)
phase() {
    local t
    t=$(uptime_s)
    info "phase $1 took $(awk -v a="$phase_t0" -v b="$t" 'BEGIN { printf "%.1f", b - a }') s"
    phase_t0=$t
}
installed_version() { dpkg-query -W -f='${Version}' bubble-kiosk 2>/dev/null; }
rounds() { bubble-kiosk stats --json --state-dir "$state" 2>/dev/null | sed -n 's/.*"rounds":\([0-9]*\),.*/\1/p'; }
exe_of() { readlink "/proc/$1/exe"; }
restarts_into_new() { journal_lines | grep -cF 'restarting into the new binary (start screen)'; }
# wait_exit_status OLD_PID SECONDS: until OLD_PID is gone and a new main process is up; sets
# exit_seen to the exit statuses systemd showed for the old one meanwhile (ExecMainStatus
# between the exit and the restart a second later).
wait_exit_status() {
    local i s
    exit_seen=
    for i in $(seq $(($2 * 5))); do
        # (ExecMainCode 1: CLD_EXITED, and no main process: between the exit and the restart.)
        s=$(systemctl show -p ExecMainCode -p ExecMainStatus -p MainPID "$unit" | sort | paste -sd' ')
        case "$s" in "ExecMainCode=1 ExecMainStatus="*" MainPID=0") s=${s#*ExecMainStatus=}; exit_seen="$exit_seen ${s%% *}" ;; esac
        pid=$(main_pid)
        [ "$pid" != 0 ] && [ "$pid" != "$1" ] && return 0
        sleep 0.2
    done
    return 1
}

step upgrade
rm -f /etc/apt/sources.list.d/debian.sources /etc/apt/sources.list
/usr/local/bin/busybox httpd -p 127.0.0.1:8080 -h /srv/www
check "the repository is served inside the guest on 127.0.0.1:8080 (busybox httpd)" \
    bash -c 'exec 3<>/dev/tcp/127.0.0.1/8080 && printf "GET /bubble-kiosk/dists/bookworm/InRelease HTTP/1.0\r\n\r\n" >&3 && head -n1 <&3 | grep -q " 200 "'

# --- version N from the repository ----------------------------------------------------------------
check "apt-get update: the repository's signature verifies (only bubble-kiosk.sources)" \
    bash -c 'out=$(apt-get update 2>&1); echo "$out"; ! echo "$out" | grep -qE "^(W|E|Err):"'
check "apt-get install bubble-kiosk: version $VM_VERSION_N from the repository" \
    bash -c 'DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends bubble-kiosk > /run/apt-install.log 2>&1 &&
             [ "$(dpkg-query -W -f="\${Version}" bubble-kiosk)" = "$VM_VERSION_N" ] ||
             { tail -n 15 /run/apt-install.log; exit 1; }'
check "the package's postinst started the kiosk" wait_active 90
first_pid=$pid
check "the package installed unattended-upgrades' drop-in, and apt reads the repository's origin in it" \
    bash -c 'apt-config dump Unattended-Upgrade::Origins-Pattern | grep -qF "\"origin=bubble-kiosk,label=bubble-kiosk\""'
# The operator's edit (a conffile: dpkg keeps it), with a long idle timeout, so the round below
# stays in play however long unattended-upgrades takes under emulation.
printf '\n# edited by the operator (upgrade test)\n[attract]\nidle_timeout_s = 900\n' >> "$conf"
conf_sum=$(md5sum < "$conf")
systemctl reload "$unit"
phase install

# --- a round in play -----------------------------------------------------------------------------
mark round
plug "$files/touch.desc" /run/touch.dev
check "the kiosk uses the touchscreen" wait_journal round "input: using $node" 15
evemu-play "$node" < "$files/tap.events"
for i in $(seq 100); do prop StatusText | grep -q playing && break; sleep 0.2; done
check "a round is in play (STATUS= says playing)" bash -c 'systemctl show -P StatusText '$unit' | grep -q playing'
round_pid=$(main_pid)
rounds_before=$(rounds)
info "round in play in pid $round_pid; rounds stored so far: ${rounds_before:-?}"
sleep 1
screendump in-round || fail "screendump in-round"
phase round

# --- N+1 published; unattended-upgrade --------------------------------------------------------------
ln -sfn repo-N1 /srv/www/bubble-kiosk.new && mv -T /srv/www/bubble-kiosk.new /srv/www/bubble-kiosk
check "N+1 published: apt-get update sees $VM_VERSION_N1" \
    bash -c 'apt-get update -q > /dev/null 2>&1 && apt-cache policy bubble-kiosk | grep -qx "  Candidate: $VM_VERSION_N1"'
mark upgrade
uu_rc=0
unattended-upgrade -v > /run/unattended-upgrade.out 2>&1 || uu_rc=$?
sed 's/^/SYSD-INFO unattended-upgrade| /' /run/unattended-upgrade.out | tail -n 25
check "unattended-upgrade ran (exit 0)" [ "$uu_rc" = 0 ]
check "its log says it upgraded bubble-kiosk" \
    bash -c 'grep -E "Packages that will be upgraded:.* bubble-kiosk( |$)" /var/log/unattended-upgrades/unattended-upgrades.log &&
             grep -q "All upgrades installed" /var/log/unattended-upgrades/unattended-upgrades.log'
check "bubble-kiosk $VM_VERSION_N1 is installed" bash -c '[ "$(dpkg-query -W -f="\${Version}" bubble-kiosk)" = "$VM_VERSION_N1" ]'
phase unattended-upgrade
check "the kiosk noticed the new binary (one journal line)" wait_journal upgrade "a new bubble-kiosk binary is installed (/usr/bin/bubble-kiosk)" 30
since upgrade | grep -F 'new bubble-kiosk binary' | sed 's/^/SYSD-INFO journal: /'
# Past the 10 s the new file must stay unchanged: the round would have been cut by now.
sleep 12
check "the round goes on: the same process, still playing, after the upgrade" \
    bash -c "[ \"\$(systemctl show -P MainPID $unit)\" = $round_pid ] && systemctl show -P StatusText $unit | grep -q playing"
check "that process still runs the old binary (/proc/PID/exe deleted)" bash -c "readlink /proc/$round_pid/exe | grep -qF '(deleted)'"
screendump round-after-upgrade || fail "screendump round-after-upgrade"
phase round-goes-on

# --- the round ends: the kiosk restarts into N+1 at the start screen -------------------------------
# The visitor walks away: the idle return (5 s here) ends the round, as it would after 90 s.
printf '[attract]\nidle_timeout_s = 5\n' > /etc/bubble-kiosk/kiosk.conf.d/vm-idle.conf
mark round-end
systemctl reload "$unit"
kill "$dev_pid" 2>/dev/null; wait "$dev_pid" 2>/dev/null
round_ended() {
    local i
    for i in $(seq 150); do prop StatusText | grep -q playing || break; sleep 0.2; done
    ! prop StatusText | grep -q playing && [ "$(main_pid)" = "$round_pid" ]
}
check "the round ended (back to the start screen) in the same process" round_ended
info "StatusText after the round: $(prop StatusText); pid $(main_pid)"
if check "then the kiosk restarted: a new process within 60 s" wait_exit_status "$round_pid" 60; then
    info "the old process's exit as systemd saw it (ExecMainCode ExecMainStatus):${exit_seen:- not caught}"
fi
new_pid=$pid
check "the journal says it restarts into the new binary at the start screen" wait_journal round-end "restarting into the new binary (start screen)" 5
check "exit status 11 was a success for the unit: active again, no failure" \
    bash -c "[ \"\$(systemctl show -P Result $unit)\" = success ] && ! journalctl -u $unit -q --no-pager | grep -qE 'Failed with result|status=11/.*FAILURE'"
check "the unit is active with the new process" wait_active 30 "$round_pid"
case "$exit_seen" in *" 11"*) pass "systemd saw the old process exit with status 11" ;;
    *) info "status 11 not caught between the exit and the restart (${exit_seen:-nothing seen})" ;; esac
check "the new process runs the installed binary" bash -c "[ \"\$(readlink /proc/\$(systemctl show -P MainPID $unit)/exe)\" = /usr/bin/bubble-kiosk ]"
sleep 2
screendump after-upgrade || fail "screendump after-upgrade"
check "the kiosk is at its start screen (STATUS= not playing)" bash -c '! systemctl show -P StatusText '$unit' | grep -q playing'
rounds_after=$(rounds)
info "rounds stored: ${rounds_before:-?} before the round, ${rounds_after:-?} after it (read by $VM_VERSION_N1)"
check "the scores are kept: the round the old version stored is read by the new one" \
    bash -c "[ -n '$rounds_before' ] && [ -n '$rounds_after' ] && [ '$rounds_after' -gt '$rounds_before' ]"
check "the edited kiosk.conf is kept as it was, no .dpkg-dist or .dpkg-new beside it" \
    bash -c "[ \"\$(md5sum < $conf)\" = '$conf_sum' ] && ! ls /etc/bubble-kiosk/ | grep -q dpkg"
phase restart-into-new

# --- the downgrade ----------------------------------------------------------------------------------
rm -f /etc/bubble-kiosk/kiosk.conf.d/vm-idle.conf
systemctl reload "$unit"
up_pid=$(main_pid)
mark downgrade
check "apt-get install --allow-downgrades bubble-kiosk=$VM_VERSION_N" \
    bash -c 'DEBIAN_FRONTEND=noninteractive apt-get install -y -q --allow-downgrades "bubble-kiosk=$VM_VERSION_N" > /run/apt-downgrade.log 2>&1 &&
             [ "$(dpkg-query -W -f="\${Version}" bubble-kiosk)" = "$VM_VERSION_N" ] || { tail -n 15 /run/apt-downgrade.log; exit 1; }'
check "at the start screen the kiosk restarts into $VM_VERSION_N (a new process within 60 s)" wait_new_pid 60 "$up_pid"
check "the journal says so" wait_journal downgrade "restarting into the new binary (start screen)" 5
check "the unit is active after the downgrade" wait_active 30 "$up_pid"
sleep 2
screendump after-downgrade || fail "screendump after-downgrade"
check "the scores are kept and read by $VM_VERSION_N (rounds: $rounds_after)" bash -c "[ \"\$(bubble-kiosk stats --json --state-dir $state | sed -n 's/.*\"rounds\":\\([0-9]*\\),.*/\\1/p')\" = '$rounds_after' ]"
check "no score database was set aside or started afresh" \
    bash -c "! journalctl -u $unit -q --no-pager -o cat | grep -E 'not a usable database|set it aside|moved it to' && ! ls $state | grep -qE 'corrupt|newer'"
check "the edited kiosk.conf is still the operator's" bash -c "[ \"\$(md5sum < $conf)\" = '$conf_sum' ]"
phase downgrade

info "the kiosk's processes: $first_pid (installed), $round_pid (the round), $new_pid ($VM_VERSION_N1), $(main_pid) ($VM_VERSION_N again)"
grep -E 'Packages that will be upgraded|All upgrades installed|Allowed origins' /var/log/unattended-upgrades/unattended-upgrades.log \
    | sed 's/^/SYSD-INFO unattended-upgrades.log| /'
journalctl -u "$unit" -o short-monotonic --no-pager -q | sed 's/^/JOURNAL| /'
echo "SYSD-DONE checks=$checks"
exit 0
