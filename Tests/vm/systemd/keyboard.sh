# Guest side of the keyboard checks (sourced by check.sh after the touch section): a visitor's
# keyboard, a uinput one plugged in while the kiosk runs, types the keys of VM_KEYS one by one.
# Before each: "SYSD-KEYTYPED NAME"; after each (when the machine is still up): tty1 still in
# front, the game on screen (screendump key-NAME, checked by the host), the same kiosk process,
# no getty or login, no suspend, and "SYSD-KEY NAME fg=ttyN pid=same|PID logins=none|LIST
# suspended=0|N" for the host's table. VM_LOCKED=1 (the lockdown package is installed, or the
# keys are ones the kiosk itself stops) makes these checks; otherwise the lines only report.
# Then, when VM_KEYS is the whole list: chvt 2 and back, and [kiosk] allow_vt_switch = true.
all_keys="ctrl-alt-f2 ctrl-alt-f3 alt-f2 alt-right ctrl-alt-del sysrq-b sysrq-o sysrq-r power sleep text"
VM_KEYS=${VM_KEYS:-$all_keys}
VM_LOCKED=${VM_LOCKED:-1}

key() { evemu-event "$kbd" --type EV_KEY --code "$1" --value "$2" --sync; }
# combo KEY...: holds the keys down in order, then lets go of them in reverse.
combo() {
    local k i
    for k in "$@"; do key "$k" 1; done
    for ((i = $#; i > 0; i--)); do key "${!i}" 0; done
}
type_key() {
    case $1 in
        ctrl-alt-f1) combo KEY_LEFTCTRL KEY_LEFTALT KEY_F1 ;;
        ctrl-alt-f2) combo KEY_LEFTCTRL KEY_LEFTALT KEY_F2 ;;
        ctrl-alt-f3) combo KEY_LEFTCTRL KEY_LEFTALT KEY_F3 ;;
        alt-f2) combo KEY_LEFTALT KEY_F2 ;;
        alt-right) combo KEY_LEFTALT KEY_RIGHT ;;
        ctrl-alt-del) combo KEY_LEFTCTRL KEY_LEFTALT KEY_DELETE ;;
        sysrq-b) combo KEY_LEFTALT KEY_SYSRQ KEY_B ;;
        sysrq-o) combo KEY_LEFTALT KEY_SYSRQ KEY_O ;;
        sysrq-r) combo KEY_LEFTALT KEY_SYSRQ KEY_R ;;
        power) combo KEY_POWER ;;
        sleep) combo KEY_SLEEP ;;
        text) for k in KEY_E KEY_C KEY_H KEY_O KEY_SPACE KEY_H KEY_I KEY_ENTER; do combo $k; done ;;
        *) echo "no such key: $1"; return 1 ;;
    esac
}
front() { cat /sys/class/tty/tty0/active; }
export -f front
logins() { ps -C agetty,login -o pid=,tty=,args= | grep -v ttyS | tr -s ' \n' ' '; }
suspends() { cat /sys/power/suspend_stats/success 2>/dev/null || echo 0; }
# VT_ACTIVATE then VT_WAITACTIVE on /dev/tty0, as chvt does (kbd's chvt is not in the root).
# (A number, not the string: perl hands ioctl a string as a pointer.)
chvt_to() { timeout 10 perl -e 'my $n = $ARGV[0] + 0; open(my $t, "<", "/dev/tty0") or die "tty0: $!";
    ioctl($t, 0x5606, $n) or die "VT_ACTIVATE: $!"; ioctl($t, 0x5607, $n) or die "VT_WAITACTIVE: $!"' "$1"; }
export -f chvt_to

step keyboard
info "lockdown: $(bubble-kiosk devices 2>/dev/null | grep '^lockdown:')"
info "kernel.sysrq = $(cat /proc/sys/kernel/sysrq)"
info "login prompts before the keyboard: $(ps -C agetty,login -o pid=,tty=,unit= | tr -s ' \n' ' ')"
info "getty@tty2 wanted by: $(systemctl show -P WantedBy,RequiredBy,TriggeredBy getty@tty2.service | tr '\n' ' ') $(systemctl list-dependencies --reverse --plain --no-pager getty@tty2.service | tr -s ' \n' ' ')"
journalctl -b --no-pager -q -o short-monotonic | grep -iE 'vconsole|getty@tty2|autovt' | head -n 8 | sed 's/^/SYSD-INFO boot journal| /'
info "logind: $(systemd-analyze cat-config systemd/logind.conf 2>/dev/null | grep -E '^(NAutoVTs|ReserveVT)' | tr '\n' ' ')"
kb_pid=$(main_pid)
mark keyboard
plug "$files/keyboard.desc" /run/keyboard.dev
kb_dev=$dev_pid kbd=$node
info "keyboard ${kbd:-missing}"
unused() { sleep 1; ! journal_has keyboard "using $kbd"; }
check "a keyboard plugged in while the kiosk runs: it is not used for the game" unused
check "devices lists it among the keyboards" bash -c "bubble-kiosk devices | grep '^keyboards' | grep -qF '$kbd'"
screendump key-plugged || fail "screendump key-plugged"
check "the kiosk's VT's keyboard is off (K_OFF) while it runs" bash -c 'm=$(kb_mode); echo "KDGKBMODE: $m"; [ "$m" = 4 ]'
# The next suspend, if a key causes one, ends after 6 s (the RTC wakes the machine).
for name in $VM_KEYS; do
    before=$(suspends)
    echo "SYSD-KEYTYPED $name"
    [ "$name" = sleep ] && echo +6 > /sys/class/rtc/rtc0/wakealarm 2>/dev/null
    type_key "$name"
    sleep 2
    # A suspend the RTC ends takes the 6 s and more; wait until the machine is back.
    [ "$name" = sleep ] && sleep 8
    echo 0 > /sys/class/rtc/rtc0/wakealarm 2>/dev/null
    fg=$(front) now=$(main_pid) who=$(logins) slept=$(( $(suspends) - before ))
    echo "SYSD-KEY $name fg=$fg pid=$([ "$now" = "$kb_pid" ] && echo same || echo "$now") logins=${who:-none} suspended=$slept"
    screendump "key-$name" || fail "screendump key-$name"
    if [ "$VM_LOCKED" = 1 ]; then
        check "$name: tty1 still in front, the same kiosk process, no login, no suspend" \
            bash -c "[ '$fg' = tty1 ] && [ '$now' = '$kb_pid' ] && [ -z '$who' ] && [ '$slept' = 0 ]"
    fi
    # Back to the game for the next key, when this one left it (the report says so).
    [ "$fg" = tty1 ] || chvt_to 1
done

if [ "$VM_KEYS" = "$all_keys" ] && [ "$VM_LOCKED" = 1 ]; then
    # --- chvt from an administrator's shell still switches: the kiosk gives the display up and takes it back
    mark chvt
    check "chvt 2 from the serial console switches to tty2" bash -c 'true < /dev/tty2; chvt_to 2 && [ "$(front)" = tty2 ]'
    check "the kiosk gave the display up (its journal says so)" wait_journal chvt "switched away" 10
    chvt_to 1
    check "chvt 1: tty1 in front again, the same kiosk" bash -c "[ \"\$(front)\" = tty1 ] && [ \"\$(systemctl show -P MainPID $unit)\" = $kb_pid ]"
    sleep 1
    screendump key-chvt-back || fail "screendump key-chvt-back"
    # --- [kiosk] allow_vt_switch = true: today's switching for developers (needs a restart)
    printf '[kiosk]\nallow_vt_switch = true\n' > /etc/bubble-kiosk/kiosk.conf.d/vm-keys.conf
    mark allow
    systemctl restart "$unit"
    wait_active 30 "$kb_pid" > /dev/null
    check "allow_vt_switch = true: the log says keys may switch VTs" wait_journal allow "keys may switch VTs" 10
    true < /dev/tty2
    type_key ctrl-alt-f2
    check "allow_vt_switch = true: Ctrl-Alt-F2 switches to tty2" bash -c 'for i in $(seq 20); do [ "$(front)" = tty2 ] && exit 0; sleep 0.25; done; exit 1'
    type_key ctrl-alt-f1
    check "allow_vt_switch = true: Ctrl-Alt-F1 comes back to the game" bash -c 'for i in $(seq 20); do [ "$(front)" = tty1 ] && exit 0; sleep 0.25; done; exit 1'
    sleep 1
    screendump key-allowed-back || fail "screendump key-allowed-back"
    rm -f /etc/bubble-kiosk/kiosk.conf.d/vm-keys.conf
    allowed_pid=$(main_pid)
    systemctl restart "$unit"
    wait_active 30 "$allowed_pid" > /dev/null
fi
kill "$kb_dev" 2>/dev/null; wait "$kb_dev" 2>/dev/null
