# Guest side of the HDMI-CEC checks (sourced by check.sh after the MQTT section): the unit as
# shipped opens CEC adapters from inside its sandbox. modprobe@cec.service loaded the CEC core
# at boot, so the unit's DeviceAllow=char-cec found its major; vivid, loaded now, brings two
# emulated adapters as a USB adapter plugged in later would (/dev/cec0 an HDMI input, the TV's
# side; /dev/cec1 an output, the kiosk's). Then, with [display] cec = /dev/cec1 in a
# kiosk.conf.d file and a restart, the kiosk claims a Playback address on it.
step cec
check "the CEC core is loaded (modprobe@cec.service)" grep -qw cec /proc/devices
modprobe vivid || fail "modprobe vivid"
for i in $(seq 50); do [ -e /dev/cec1 ] && break; sleep 0.1; done
ls -l /dev/cec* 2>&1 | sed 's/^/SYSD-INFO /'
check "udev gives /dev/cec1 to the group video" bash -c '[ "$(stat -c %G /dev/cec1)" = video ]'
check "in the kiosk's sandbox /dev/cec1 opens read-write (DeviceAllow=char-cec, though it came after the start)" \
    in_sandbox bash -c 'opens_rw /dev/cec1'
mark cec
printf '[display]\ncec = /dev/cec1\ncec_name = vm-kiosk\n' > /etc/bubble-kiosk/kiosk.conf.d/vm-cec.conf
old=$(main_pid)
systemctl restart "$unit"
wait_active 30 "$old" || fail "active again after the restart with [display] cec"
check "the kiosk claims Playback Device 1 on /dev/cec1 from inside its sandbox" \
    wait_journal cec 'cec: /dev/cec1 (vivid-000-vid-out0): Playback Device 1 (logical address 4), physical address 1.0.0.0, OSD name "vm-kiosk"' 20
check "the kiosk holds /dev/cec1 open" bash -c 'ls -l /proc/$(systemctl show -P MainPID '$unit')/fd | grep -q /dev/cec1'
cec_quiet() { ! since cec | grep "cec:" | grep -iE "cannot|refused|not permitted|gone"; }
check "no CEC warning in the kiosk's log" cec_quiet
since cec | grep 'cec:' | sed 's/^/SYSD-INFO kiosk: /'
# Back to the machine as it was: no adapters, the unit as shipped.
rm -f /etc/bubble-kiosk/kiosk.conf.d/vm-cec.conf
old=$(main_pid)
systemctl restart "$unit"
wait_active 30 "$old" > /dev/null || fail "active again after the CEC checks"
echo vivid.0 > /sys/bus/platform/drivers/vivid/unbind 2>/dev/null || true
