#!/bin/sh
# Guest side of Tests/vm/cec-test.sh (busybox sh): HDMI-CEC between the kiosk and a TV on vivid's
# two emulated adapters. /dev/cec0 ("vivid-000-vid-cap0", 0.0.0.0) plays the TV: `cec-ctl --tv`,
# cec-follower (it keeps a power state and broadcasts it when it changes) and `cec-ctl
# --monitor` logging the bus. /dev/cec1 ("vivid-000-vid-out0", 1.0.0.0) is the kiosk's: the
# kiosk runs with `[display] cec = /dev/cec1` on the DRM display with a uinput touchscreen, or,
# with STANDIN=1 in /test/params, cec-ctl and a cec-follower on /dev/cec1 play its part (the
# harness's own check, no kiosk). It only reports; the host asserts.
#   CEC-STEP NAME ...         a step began (with the guest's uptime)
#   CEC-MARK NAME lines=N     the bus log had N lines at that point (the host splits it there)
#   CEC-INFO ...              facts for the record (the claim seen or not, the unbind)
#   CEC-STATUS NAME LINE      the kiosk's latest status line at checkpoint NAME
#   CEC-ALIVE NAME pid=P yes|no  whether the kiosk is still running
#   CEC-EXIT cec rc=N         how the kiosk ended (SIGTERM: 0 expected)
#   CEC-WAIT ...              something the scenario waited for did not happen
#   MON| TVF| TVF2| ADAP0| ADAP1| Q-NAME| DEV| STANDIN| cec|   the bus log, the TV's follower
#       (before and after its restart in standby), cec-ctl's adapter info, the TV's questions
#       and their answers, `bubble-kiosk devices`, the stand-in's output, the kiosk's output

VM_TAG=CEC
. /usr/lib/vm-guest.sh   # say, step, poll, wait_for, wait_more, count, new_device, finish: guest-lib.sh
. /test/params           # SEED, STANDIN

MON=/tmp/monitor.log
KLOG=/tmp/cec.log

# The bus log (cec-ctl --monitor on the TV's adapter) one message a line: a message's first line
# ("Received from ..." / "Transmitted by ...") with its indented operand lines joined on.
bus() {
    awk '/^(Received|Transmitted) / { if (m != "") print m; m = $0; next }
         /^[ \t]/ && m != "" { sub(/^[ \t]+/, ""); m = m " " $0; next }
         { if (m != "") print m; m = "" }
         END { if (m != "") print m }' "$MON"
}
bus_count() { bus | grep -cE "$1" || true; }
bus_more() { [ "$(bus_count "$1")" -gt "$2" ]; }
# bus_wait WHAT REGEX N SECONDS: until more than N messages match.
bus_wait() { poll "$4" "$1 on the bus" bus_more "$2" "$3"; }
# kiosk_bus_wait WHAT REGEX N SECONDS: the same for what the kiosk sends; once it is clear that
# it never claimed an address, one short look (a kiosk without CEC would make every wait run out).
kiosk_bus_wait() {
    if [ "$claimed" = yes ]; then bus_wait "$@"; else sleep 1; bus_more "$2" "$3"; fi
}
# mark NAME: where the bus log is now (its line count), for the host.
mark() { say MARK "$1 lines=$(wc -l < $MON)"; }

# The messages waited for (the host checks the same ones, see cec-test.sh).
RE_STANDBY='^Received from Playback Device 1 to TV \(4 to 0\): STANDBY \(0x36\)$'
RE_IVO='^Received from Playback Device 1 to TV \(4 to 0\): IMAGE_VIEW_ON \(0x04\)$'
RE_AS='^Received from Playback Device 1 to all \(4 to 15\): ACTIVE_SOURCE \(0x82\): phys-addr: 1\.0\.0\.0$'
RE_TV_STANDBY='^Transmitted by TV to all \(0 to 15\): REPORT_POWER_STATUS \(0x90\): pwr-state: standby \(0x01\)$'
RE_TV_TO_ON='^Transmitted by TV to all \(0 to 15\): REPORT_POWER_STATUS \(0x90\): pwr-state: (to-on \(0x02\)|on \(0x00\))$'
RE_TV_POLLS='^Transmitted by TV to Specific \(0 to 14\): POLL'

# ask NAME ARGS...: the TV asks the kiosk's address (cec-ctl on /dev/cec0); the answer as Q-NAME|.
ask() {
    _name=$1; shift
    cec-ctl -d /dev/cec0 -s --to 4 "$@" > "/tmp/q-$_name.log" 2>&1
    echo "rc=$?" >> "/tmp/q-$_name.log"
    show "Q-$_name" "/tmp/q-$_name.log"
}

# tv_follower [--standby]: the TV's cec-follower, (re)started; its output in $tvf_log.
tvf_pid= tvf_log=/tmp/tvf.log
tv_follower() {
    if [ -n "$tvf_pid" ]; then kill "$tvf_pid" 2>/dev/null; wait "$tvf_pid" 2>/dev/null; tvf_log=/tmp/tvf2.log; fi
    cec-follower -d /dev/cec0 -s "$@" > "$tvf_log" 2>&1 &
    tvf_pid=$!
}

# --- the kiosk's part: the kiosk itself, or the stand-in ----------------------------------------
# The stand-in: the address and OSD name claimed with cec-ctl, a cec-follower on /dev/cec1 that
# answers the TV for it (power status; started with --standby while "asleep", and it goes to
# standby itself on the TV's Standby broadcast), and the messages the kiosk would send.
sf_pid=
standin_follower() {
    if [ -n "$sf_pid" ]; then kill "$sf_pid" 2>/dev/null; wait "$sf_pid" 2>/dev/null; fi
    echo "--- cec-follower -d /dev/cec1 -s $*" >> /tmp/standin.log
    cec-follower -d /dev/cec1 -s "$@" >> /tmp/standin.log 2>&1 &
    sf_pid=$!
}
standin() { echo "--- cec-ctl -d /dev/cec1 -s $*" >> /tmp/standin.log; cec-ctl -d /dev/cec1 -s "$@" >> /tmp/standin.log 2>&1; }
standin_sleep() { standin --to 0 --standby; standin_follower --standby; }
standin_wake() { standin_follower; standin --to 0 --image-view-on; standin --active-source phys-addr=1.0.0.0; }

# status CHECKPOINT: the kiosk's next status line (so it reflects everything so far).
status() {
    wait_more $KLOG '^t=' "$(count $KLOG '^t=')" 5
    say STATUS "$1 $(grep -E '^t=' $KLOG | tail -n1)"
}
alive() { if kill -0 "$kiosk_pid" 2>/dev/null; then say ALIVE "$1 pid=$kiosk_pid yes"; else say ALIVE "$1 pid=$kiosk_pid no"; fi; }
# tap: the Start button tapped on the touchscreen (the kiosk), or the stand-in woken.
tap() {
    if [ "$STANDIN" = 1 ]; then standin_wake; else evemu-play "$dev_node" < /test/start.events; fi
}
la4() { cec-ctl -d /dev/cec1 2>/dev/null | grep -qE 'Logical Address +: 4 '; }

# --- 1: the TV ----------------------------------------------------------------------------------
step tv
cec-ctl -d /dev/cec0 > /tmp/adap0.log 2>&1
show ADAP0 /tmp/adap0.log
cec-ctl -d /dev/cec0 --tv > /dev/null 2>&1 || say WAIT "cec-ctl -d /dev/cec0 --tv failed"
cec-ctl -d /dev/cec0 --monitor > $MON 2>&1 &
mon_pid=$!
wait_for $MON '^Initial Event' 5
tv_follower
# The follower polls every address at its start (about a second): let it finish first.
bus_wait "the TV's start-up polls" "$RE_TV_POLLS" 0 5
mark start

# --- 2: the kiosk starts, claims Playback 1 and sleeps after its first frame: Standby to the TV ---
claimed=no
if [ "$STANDIN" = 1 ]; then
    step standin claim
    standin --playback --osd-name bubble-kiosk
    standin_sleep
else
    new_device touch /test/touch.desc
    step kiosk
    bubble-kiosk run --display drm --input evdev --status --config /test/cec.conf > $KLOG 2>&1 &
    kiosk_pid=$! VM_WAIT_PID=$!
    wait_for $KLOG "input: using $dev_node" 30
    wait_for $KLOG 'display asleep' 20
fi
poll 5 "logical address 4 on /dev/cec1" la4 && claimed=yes
say INFO "claimed=$claimed"
cec-ctl -d /dev/cec1 > /tmp/adap1.log 2>&1
show ADAP1 /tmp/adap1.log
[ "$STANDIN" = 1 ] || [ "$claimed" = no ] || wait_for $KLOG 'logical address 4' 2
kiosk_bus_wait "Standby from the kiosk" "$RE_STANDBY" 0 10
# cec-follower goes to-standby about a second after Standby and standby 6 s later.
[ "$claimed" = yes ] && bus_wait "the TV reporting standby" "$RE_TV_STANDBY" 0 10
mark asleep1
ask pwr-asleep1 --give-device-power-status

# --- 3: a tap wakes the kiosk: Image View On to the TV, then Active Source ----------------------
step tap1
mark tap1
n_ivo=$(bus_count "$RE_IVO") n_as=$(bus_count "$RE_AS") n_on=$(bus_count "$RE_TV_TO_ON")
tap
[ "$STANDIN" = 1 ] || wait_more $KLOG 'display awake' 0 10
kiosk_bus_wait "Image View On" "$RE_IVO" "$n_ivo" 5
kiosk_bus_wait "Active Source 1.0.0.0" "$RE_AS" "$n_as" 5
kiosk_bus_wait "the TV reporting to-on" "$RE_TV_TO_ON" "$n_on" 5
mark awake1
[ "$STANDIN" = 1 ] || status awake1
# What `bubble-kiosk devices` says of the adapters while the kiosk holds one and the TV is on.
if [ "$STANDIN" = 0 ]; then
    sleep 1
    bubble-kiosk devices > /tmp/devices-awake.log 2>&1
    show DEVA /tmp/devices-awake.log
fi
ask osd-awake1 --give-osd-name
ask pwr-awake1 --give-device-power-status

# --- 4: the TV's own Standby broadcast puts the kiosk to sleep ----------------------------------
# A TV that broadcasts Standby goes to standby itself; cec-follower does not see what its own
# adapter sends, so it is started again in standby.
step tvstandby
mark tvstandby
n_asleep=$(count $KLOG 'display asleep')
cec-ctl -d /dev/cec0 -s --to 15 --standby > /tmp/tv-standby.log 2>&1 || say WAIT "the TV's Standby broadcast failed"
show Q-tvstandby /tmp/tv-standby.log
tv_follower --standby
asleep_tv=no
if [ "$STANDIN" = 1 ]; then
    # Its follower took the broadcast (and went into a transition of a second or two): asleep
    # now, as the kiosk would be.
    wait_for /tmp/standin.log 'Changing state to standby' 5 && standin_follower --standby
elif [ "$claimed" = yes ]; then
    wait_for $KLOG 'the TV went to standby' 5 && wait_more $KLOG 'display asleep' "$n_asleep" 5 && asleep_tv=yes
    bubble-kiosk devices > /tmp/devices.log 2>&1
    show DEV /tmp/devices.log
    status asleep-tv
fi
bus_wait "the restarted TV follower's polls" "$RE_TV_POLLS" 1 5
ask pwr-asleep2 --give-device-power-status

# --- 5: another tap: the TV on again ------------------------------------------------------------
step tap2
mark tap2
n_ivo=$(bus_count "$RE_IVO") n_as=$(bus_count "$RE_AS") n_on=$(bus_count "$RE_TV_TO_ON")
n_awake=$(count $KLOG 'display awake')
tap
[ "$asleep_tv" = yes ] && wait_more $KLOG 'display awake' "$n_awake" 10
kiosk_bus_wait "Image View On" "$RE_IVO" "$n_ivo" 5
kiosk_bus_wait "Active Source 1.0.0.0" "$RE_AS" "$n_as" 5
kiosk_bus_wait "the TV reporting to-on" "$RE_TV_TO_ON" "$n_on" 5
mark awake2
[ "$STANDIN" = 1 ] || status awake2

# --- 6: the adapter goes away (as a USB CEC adapter pulled out): the kiosk plays on -------------
step unbind
mark unbind
echo vivid.0 > /sys/bus/platform/drivers/vivid/unbind
say INFO "unbind rc=$? adapters left: $(ls /dev/cec* 2>/dev/null | tr '\n' ' ')"
poll 5 "the monitor to end" eval '! kill -0 $mon_pid 2>/dev/null'
if [ "$STANDIN" = 1 ]; then
    wait_for /tmp/standin.log 'Device was disconnected' 5
else
    if [ "$claimed" = yes ]; then wait_for $KLOG 'is gone' 5; else sleep 1; fi
    alive unbind
    status before-tap3
    evemu-play "$dev_node" < /test/start.events
    wait_for $KLOG '^t=.*screen=playing' 10
    status after-tap3
    alive after-tap3
    finish cec
    unplug "$dev_pid"
fi

for p in $tvf_pid $sf_pid; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
show MON $MON
show TVF /tmp/tvf.log
show TVF2 /tmp/tvf2.log
[ "$STANDIN" = 1 ] && show STANDIN /tmp/standin.log
step done
exit 0
