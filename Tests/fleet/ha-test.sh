#!/bin/bash
# The kiosk against a REAL Home Assistant (2024.3.3, pinned in ha-requirements.txt): what an
# operator sees in Home Assistant, not only what the kiosk puts on the broker (mqtt-test.sh).
# The test starts its own mosquitto on a free loopback port, a Home Assistant whose only
# integration of note is MQTT (its config entry written into .storage before the first start),
# and two kiosks on virtual displays: `ha_backlit` with a fake backlight (a directory with
# max_brightness, brightness and bl_power) and `ha_plain` without one (whose replayed tap gives
# it a last touch). Each check is one line, "ok   WHAT" or "FAIL WHAT" (with what it saw):
#   - every entity of each kiosk exists (GET /api/states) and sits on one device per kiosk
#     (the device registry, through POST /api/template, and after Home Assistant stopped its
#     .storage/core.entity_registry and core.device_registry: unique_id, platform mqtt);
#   - the states follow the kiosk's state JSON (screen, score, rounds, high score, volume, the
#     display light and its brightness, touch test, touchscreen); last_touch is a timestamp
#     (unknown before any touch), rounds_today is total_increasing, the light of the kiosk
#     without a backlight is on/off only (supported_color_modes [onoff]);
#   - commands through the REST API reach the kiosk: light.turn_off/turn_on (the state's
#     display, bl_power 4/0), light.turn_on with brightness (the backlight's file),
#     number.set_value (volume), switch.turn_on/turn_off (touch test), button.press reload (the
#     kiosk's log), take screenshot (a PNG at /api/camera_proxy/), restart (exit status 10, run
#     again as systemd would); the kiosks refuse none of what Home Assistant sends (their logs);
#   - availability: a kiosk stopped (SIGTERM) is `unavailable`, started again available;
#   - Home Assistant restarted (homeassistant.restart: exit status 100, started again as a
#     supervisor would): the kiosks send their discovery configs again after its `online`
#     (mosquitto_sub across the restart) and the entities are back;
#   - home-assistant.log has no warning or error about the kiosks (their topics, node ids,
#     "Invalid state message", "when processing MQTT discovery message").
# Home Assistant runs from a virtual environment made once outside the clone
# (/var/cache/bubble-kiosk-ha/venv-HASH, HASH from the requirements file, or under
# $BUBBLE_KIOSK_HA_CACHE; the wheels are kept beside it, so a new venv downloads nothing already
# fetched). About 25 s with the venv there (making it: about a minute). Every wait is bounded;
# the run is stopped after 6 minutes (not counting the install).
#
# usage: Tests/fleet/ha-test.sh BINARY [--keep]
#   BINARY   the bubble-kiosk to test (`make ha-test` passes the release build)
#   --keep   keep the scratch folder (Home Assistant's config and logs, the kiosks' logs)
# Ends with "ha-test: N passed, M failed in S s"; exit 0 only when nothing failed. As root it
# installs what is missing (mosquitto, mosquitto-clients, python3-venv).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../vm/lib.sh"
LOG_TAG=ha-test

. "$here/lib.sh"
fleet_test_args '' "$@"
t_start=$(now)
info() { echo "info $*"; }
check() { vm_check_show "$@"; }
# must WHAT COMMAND...: a check the rest cannot pass without; when it fails the run ends there
# (rather than every later check waiting out its time).
must() {
    local failed=$VM_FAILED
    check "$@"
    [ "$VM_FAILED" = "$failed" ] && return 0
    echo "ha-test: $VM_PASSED passed, $VM_FAILED failed in $(elapsed "$t_start") s (stopped there)"
    exit 1
}

# --- what the test needs on this machine ---------------------------------------------------------
export PATH=$PATH:/usr/sbin
for tool in mosquitto mosquitto_sub mosquitto_pub python3; do
    command -v "$tool" > /dev/null || { need_host_packages mosquitto mosquitto-clients python3; break; }
done
python3 -c 'import sys; sys.exit(sys.version_info[:2] not in ((3, 11), (3, 12)))' ||
    die "Home Assistant 2024.3.3 runs on Python 3.11 or 3.12; python3 is $(python3 -V 2>&1)"
# Debian's python3 makes venvs only with python3-venv (ensurepip) installed.
python3 -c 'import ensurepip, venv' 2> /dev/null || need_host_packages python3-venv

# --- Home Assistant's virtual environment (made once, outside the clone) ------------------------
reqs=$here/ha-requirements.txt
cache=${BUBBLE_KIOSK_HA_CACHE:-/var/cache/bubble-kiosk-ha}
mkdir -p "$cache" || die "cannot make $cache (run as root, or set BUBBLE_KIOSK_HA_CACHE)"
venv=$cache/venv-$(sha256sum "$reqs" | cut -c1-12)
# The marker is written only after pip succeeded: a venv without it is half made.
ready=$venv/.bubble-kiosk-ready
make_venv() {
    rm -rf "$venv"
    python3 -m venv "$venv" || return 1
    # The wheels stay in $cache/wheels: a new venv (a changed requirements file) installs from
    # them and downloads only what is new. (pip's own HTTP cache is not enough: behind a proxy
    # that drops the cache headers it keeps nothing.)
    local pip=("$venv/bin/pip" --disable-pip-version-check --cache-dir "$cache/pip-cache")
    timeout 900 "${pip[@]}" install -q --no-index --find-links "$cache/wheels" -r "$reqs" 2> /dev/null || {
        timeout 900 "${pip[@]}" wheel -q --find-links "$cache/wheels" --wheel-dir "$cache/wheels" -r "$reqs" &&
        timeout 900 "${pip[@]}" install -q --no-index --find-links "$cache/wheels" -r "$reqs"
    } || return 1
    python3 -V > "$ready"
}
(
    # One run at a time makes or checks the venv (two runs at once would both install).
    flock -w 1200 9 || die "waited 20 minutes for $cache/lock"
    if [ -f "$ready" ] && "$venv/bin/python" -c '' 2> /dev/null; then
        touch "$ready"
        exit 0
    fi
    t0=$(now)
    log "making Home Assistant's venv $venv (pip install -r $(basename "$reqs"))"
    make_venv || die "pip install -r $reqs failed"
    info "Home Assistant's venv made in $(elapsed "$t0") s: $venv"
    # Venvs of other requirements files, unused for two weeks, go.
    find "$cache" -maxdepth 2 -path "$cache/venv-*/.bubble-kiosk-ready" -mtime +14 -printf '%h\n' | xargs -r rm -rf
) 9> "$cache/lock" || exit 2
[ -f "$ready" ] || die "no venv at $venv"
d_venv=$(elapsed "$t_start")
info "Home Assistant's venv: $venv ($d_venv s to have it ready)"

# --- scratch folder, processes, cleanup -------------------------------------------------------------
# However things go, the run ends: 6 minutes is ten times a warm run (the waits are bounded, but
# a run where many run out would take longer).
fleet_scratch ha-test 360 VM_FAILED
declare -A kiosk_pid=()
ha_pid=

match="python3 $here/match.py"

# --- the broker and a recorder of everything Home Assistant and the kiosks say ----------------------
mqtt_port=$(free_port)
{
    [ "$(id -u)" = 0 ] && echo "user root"     # (else it drops to the user mosquitto)
    printf 'persistence false\nlog_dest stderr\nlog_type all\nlistener %s 127.0.0.1\nallow_anonymous true\n' "$mqtt_port"
} > "$work/mosquitto.conf"
mosquitto -c "$work/mosquitto.conf" > /dev/null 2> "$work/mosquitto.log" &
pids+=($!)
# in_log FILE SECONDS REGEX: waits until a line of FILE matches.
in_log() {
    wait_until "$2" log_has "$1" "$3" && return 0
    echo "no line matching '$3' in $1 within $2 s; its last lines:"; tail -n 5 "$1"
    return 1
}
must "setup: mosquitto listens on 127.0.0.1:$mqtt_port" in_log "$work/mosquitto.log" 5 'mosquitto version .* running'
rec=$work/mqtt.rec
# (not PREFIX/screenshot: a PNG would break the lines)
mosquitto_sub -h 127.0.0.1 -p "$mqtt_port" -i ha-test-recorder -F '%r %U %t %p' -t 'homeassistant/#' \
    -t 'bubble-kiosk/+/state' -t 'bubble-kiosk/+/availability' -t 'bubble-kiosk/+/last_touch' > "$rec" 2> "$work/mqtt.rec.err" &
pids+=($!)
must "setup: the recorder subscribed (homeassistant/#, the kiosks' state, availability, last_touch)" \
    in_log "$work/mosquitto.log" 5 'Sending SUBACK to ha-test-recorder'

# --- Home Assistant: a lean configuration, the MQTT entry, started now (it is the slowest) ----------
ha_port=$(free_port)
ha=$work/ha
HA=http://127.0.0.1:$ha_port
mkdir -p "$ha/.storage"
# Location and time zone given, so nothing is looked up; no default_config: (it would load
# dozens of integrations), only what the test talks to. Warnings show in the log.
cat > "$ha/configuration.yaml" <<EOF
homeassistant:
  name: ha-test
  latitude: 0
  longitude: 0
  elevation: 0
  unit_system: metric
  time_zone: UTC
http:
  server_host: 127.0.0.1
  server_port: $ha_port
api:
logger:
  default: warning
EOF
# The broker cannot be set in YAML any more: a config entry, in the storage format of 2024.3
# (config_entries.py: STORAGE_VERSION 1, minor 1; ConfigEntry.as_dict's fields; the MQTT
# flow's VERSION 1). Its data are what the MQTT integration reads (broker, port, discovery).
entry_id=bk0ha0test0mqtt0entry00000000001
cat > "$ha/.storage/core.config_entries" <<EOF
{"version": 1, "minor_version": 1, "key": "core.config_entries", "data": {"entries": [
  {"entry_id": "$entry_id", "version": 1, "minor_version": 1, "domain": "mqtt",
   "title": "127.0.0.1", "data": {"broker": "127.0.0.1", "port": $mqtt_port, "discovery": true},
   "options": {}, "pref_disable_new_entities": false, "pref_disable_polling": false,
   "source": "user", "unique_id": null, "disabled_by": null}]}}
EOF
# ha_start N: Home Assistant's Nth start, its log in $work/ha-N.log (one file a start: Home
# Assistant would rotate a reused one).
ha_runs=0
ha_start() {
    ha_runs=$((ha_runs + 1))
    "$venv/bin/hass" --skip-pip --log-no-color -c "$ha" --log-file "$work/ha-$ha_runs.log" \
        > "$work/ha-$ha_runs.out" 2>&1 &
    ha_pid=$!
    pids+=($!)
}
t_ha=$(now)
ha_start

# --- the two kiosks, started while Home Assistant starts ----------------------------------------
B=ha_backlit P=ha_plain
mkdir -p "$work/backlight"
echo 255 > "$work/backlight/max_brightness"
echo 200 > "$work/backlight/brightness"
echo 0 > "$work/backlight/bl_power"
# kiosk_conf NODE BACKLIGHT: [mqtt] (keepalive 5 s), the backlight, the demo back 1 s after the
# start screen (the state keeps changing).
kiosk_conf() {
    printf '[mqtt]\nbroker = mqtt://127.0.0.1:%s\nnode_id = %s\nkeepalive_s = 5\n\n[display]\nbacklight = %s\n\n[attract]\ndemo_after_s = 1\n' \
        "$mqtt_port" "$1" "$2" > "$work/$1.conf"
}
kiosk_conf $B "$work/backlight"
kiosk_conf $P none
config_ok() {
    "$binary" check-config "$work/$1.conf" > "$work/$1.check" 2>&1 || { cat "$work/$1.check"; return 1; }
    grep -xF -e "backlight = $2" -e "node_id = $1" -e "broker = mqtt://127.0.0.1:$mqtt_port" "$work/$1.check" | wc -l | grep -qx 3
}
check "setup: $B's config passes check-config (node_id $B, backlight $work/backlight)" config_ok $B "$work/backlight"
check "setup: $P's config passes check-config (node_id $P, backlight none)" config_ok $P none
# $P taps the Start button half a second after it starts (a replayed touchscreen): a last touch.
"$binary" round-recording --seed 1 --size 640x400 --pop 0 > "$work/tap.evemu"
declare -A kiosk_args=([$B]="" [$P]="--input replay:$work/tap.evemu")
# kiosk_start NODE: runs it (again) as systemd would; its log goes on in $work/NODE.err.
kiosk_start() {
    # shellcheck disable=SC2086 # (kiosk_args holds words)
    "$binary" run --display virtual:640x400 --attract --config "$work/$1.conf" --state-dir "$work/$1.state" \
        ${kiosk_args[$1]} > /dev/null 2>> "$work/$1.err" &
    kiosk_pid[$1]=$!
    pids+=($!)
}
kiosk_start $B
kiosk_start $P

# --- Home Assistant up, a token, the entities ------------------------------------------------------
hc() { python3 "$here/ha_client.py" "$HA" "$@"; }
# ha_up: Home Assistant's HTTP server answers; else the end of what it printed.
ha_up() { hc up 120 || { echo "the end of $work/ha-$ha_runs.out:"; tail -n 15 "$work/ha-$ha_runs.out"; return 1; }; }
must "Home Assistant answers on $HA (GET /api/onboarding, within 120 s)" ha_up
d_up=$(elapsed "$t_ha")
info "Home Assistant's HTTP server up $d_up s after its start"
HA_TOKEN=$(hc onboard 2> "$work/onboard.err")
export HA_TOKEN
must "an access token through onboarding (/api/onboarding/users, /auth/token)" \
    bash -c "[ -n '$HA_TOKEN' ] || { cat '$work/onboard.err'; exit 1; }"

# The entity ids Home Assistant gives: DOMAIN.NODE_ + the entity's name, slugified.
SUFFIXES="light.display number.volume button.reload_config button.restart button.take_screenshot switch.touch_test
          sensor.screen sensor.score sensor.rounds_today sensor.high_score sensor.last_touch binary_sensor.touchscreen
          camera.screenshot"
# entities NODE: its 13 entity ids as a Python list.
entities() {
    local s out=
    for s in $SUFFIXES; do out+="'${s%%.*}.${1}_${s#*.}', "; done
    echo "[$out]"
}
# available NODE SECONDS: all its entities there and not unavailable.
available() { hc wait "$2" "all(s(e) not in (None, 'unavailable') for e in $(entities "$1"))"; }
for n in $B $P; do
    check "$n: all 13 entities in Home Assistant and available (light, number, 3 buttons, switch, 5 sensors, binary_sensor, camera)" \
        available $n 30
done
d_entities=$(elapsed "$t_ha")
info "entities of both kiosks there $d_entities s after Home Assistant's start"

# one_device NODE: the device registry, live (POST /api/template: no websocket needed).
one_device() {
    local out
    out=$(hc template "{% set d = device_id('light.${1}_display') %}{{ {'id': d, 'name': device_attr(d, 'name'), 'manufacturer': device_attr(d, 'manufacturer'), 'model': device_attr(d, 'model'), 'sw_version': device_attr(d, 'sw_version'), 'entities': device_entities(d) | sort, 'mqtt_entities': integration_entities('mqtt') | select('search', '^[a-z_]+\\\\.${1}_') | list | length} | tojson }}") || { echo "$out"; return 1; }
    echo "$out"
    python3 - "$out" "$(entities "$1")" "$1" <<'PY'
import ast, json, sys
got, want, node = json.loads(sys.argv[1]), set(ast.literal_eval(sys.argv[2])), sys.argv[3]
problems = []
if not got["id"]: problems.append("no device")
if got["name"] != node: problems.append("device name %r" % got["name"])
if got["manufacturer"] != "bubble-kiosk": problems.append("manufacturer %r" % got["manufacturer"])
if set(got["entities"]) != want:
    problems.append("missing %s, unexpected %s" % (sorted(want - set(got["entities"])), sorted(set(got["entities"]) - want)))
if got["mqtt_entities"] != 13: problems.append("%d MQTT entities named after the node, not 13" % got["mqtt_entities"])
sys.exit("; ".join(problems) or None)
PY
}
for n in $B $P; do
    check "$n: one device (name $n, manufacturer bubble-kiosk) holding all 13 entities (the device registry via /api/template)" one_device $n
done

# --- the states follow the kiosks' state JSON --------------------------------------------------------
# (What discovery sets, such as supported_color_modes or state_class, is there with the entity:
# those checks wait 1 s only.)
t_states=$(now)
hw() { hc wait "$@" --recorder "$rec"; }
for n in $B $P; do
    check "$n: the states follow its state JSON (screen, score, rounds, high score, volume, display, brightness, touch test, touchscreen)" \
        hw 10 "follows('$n')"
done
info "$B now: $(grep " bubble-kiosk/$B/state " "$rec" | tail -n 1 | cut -d' ' -f4-)"
check "$B: display light on with brightness 200 (the backlight file's level)" \
    hw 5 "s('light.${B}_display') == 'on' and a('light.${B}_display', 'brightness') == 200"
check "$P: the light of a kiosk without a backlight is on/off only (supported_color_modes [onoff], no brightness)" \
    hw 1 "s('light.${P}_display') == 'on' and a('light.${P}_display', 'supported_color_modes') == ['onoff'] and a('light.${P}_display', 'brightness') is None"
for n in $B $P; do
    check "$n: rounds today counts up (state_class total_increasing)" \
        hw 1 "a('sensor.${n}_rounds_today', 'state_class') == 'total_increasing'"
done
check "$B: last touch is a timestamp sensor, unknown before any touch" \
    hw 1 "s('sensor.${B}_last_touch') == 'unknown' and a('sensor.${B}_last_touch', 'device_class') == 'timestamp'"
# (the kiosk's time to the second against Home Assistant's, which is an ISO time with +00:00)
check "$P: last touch shows the time of its (replayed) touch, the state's last_touch" \
    hw 10 "k('$P')['last_touch'] and abs((datetime.datetime.fromisoformat(s('sensor.${P}_last_touch')) - datetime.datetime.fromisoformat(k('$P')['last_touch'].replace('Z', '+00:00'))).total_seconds()) < 1"

# --- commands through Home Assistant ----------------------------------------------------------
# kiosk_says NODE MARK SECONDS EXPR: a state of NODE recorded after line MARK satisfies EXPR (j: the state).
kiosk_says() { $match "$rec" "$2" "$3" "t == 'bubble-kiosk/$1/state' and $4"; }
# file_is FILE VALUE SECONDS: the fake backlight's file comes to hold VALUE.
file_is() {
    wait_until "$3" holds "$1" "$2" && return 0
    echo "$1 holds '$(cat "$1")', wanted '$2'"; return 1
}
holds() { [ "$(cat "$1")" = "$2" ]; }
d_states=$(elapsed "$t_states")
t_cmd=$(now)
lights="{\"entity_id\": [\"light.${B}_display\", \"light.${P}_display\"]}"
mark=$(lines "$rec")
check "light.turn_off (both kiosks): accepted" hc call light turn_off "$lights"
for n in $B $P; do
    check "light.turn_off: $n's state says display off" kiosk_says $n "$mark" 5 "j['display'] == 'off'"
done
check "light.turn_off: $B's backlight powered down (bl_power 4)" file_is "$work/backlight/bl_power" 4 5
check "light.turn_off: both lights off in Home Assistant" hw 5 "s('light.${B}_display') == 'off' and s('light.${P}_display') == 'off'"
mark=$(lines "$rec")
check "light.turn_on (both kiosks): accepted" hc call light turn_on "$lights"
for n in $B $P; do
    check "light.turn_on: $n's state says display on" kiosk_says $n "$mark" 5 "j['display'] == 'on'"
done
check "light.turn_on: $B's backlight powered up (bl_power 0)" file_is "$work/backlight/bl_power" 0 5
check "light.turn_on: both lights on in Home Assistant" hw 5 "s('light.${B}_display') == 'on' and s('light.${P}_display') == 'on'"

mark=$(lines "$rec")
check "light.turn_on $B with brightness 128: accepted" hc call light turn_on "{\"entity_id\": \"light.${B}_display\", \"brightness\": 128}"
check "brightness 128: $B's backlight file says 128 (of max_brightness 255)" file_is "$work/backlight/brightness" 128 5
check "brightness 128: $B's state says brightness 128" kiosk_says $B "$mark" 5 "j['brightness'] == 128"
check "brightness 128: Home Assistant shows brightness 128" hw 5 "a('light.${B}_display', 'brightness') == 128"

mark=$(lines "$rec")
check "number.set_value $B volume 40: accepted" hc call number set_value "{\"entity_id\": \"number.${B}_volume\", \"value\": 40}"
check "volume 40: $B's state says volume 40" kiosk_says $B "$mark" 5 "j['volume'] == 40"
check "volume 40: Home Assistant shows 40" hw 5 "float(s('number.${B}_volume')) == 40"

mark=$(lines "$rec")
check "switch.turn_on $P touch test: accepted" hc call switch turn_on "{\"entity_id\": \"switch.${P}_touch_test\"}"
check "touch test on: $P's state says screen touch_test" kiosk_says $P "$mark" 5 "j['screen'] == 'touch_test'"
check "touch test on: Home Assistant shows the switch on and the screen sensor touch_test" \
    hw 5 "s('switch.${P}_touch_test') == 'on' and s('sensor.${P}_screen') == 'touch_test'"
mark=$(lines "$rec")
check "switch.turn_off $P touch test: accepted" hc call switch turn_off "{\"entity_id\": \"switch.${P}_touch_test\"}"
check "touch test off: $P's state leaves touch_test" kiosk_says $P "$mark" 5 "j['screen'] != 'touch_test'"
check "touch test off: Home Assistant shows the switch off" hw 5 "s('switch.${P}_touch_test') == 'off'"

mark=$(lines "$rec") emark=$(lines "$work/$B.err")
check "button.press $B reload config: accepted" hc call button press "{\"entity_id\": \"button.${B}_reload_config\"}"
# (the lines read whole first: under pipefail a `grep -q` that stops early fails the pipe)
reloaded() { grep -q 'reloaded the configuration' <<< "$(tail -n +$((emark + 1)) "$work/$B.err")"; }
reload_logged() { wait_until 5 reloaded && return 0; tail -n 5 "$work/$B.err"; return 1; }
check "reload: $B's log says it reloaded the configuration" reload_logged
tail -n +$((emark + 1)) "$work/$B.err" | grep -E 'reload' | sed 's/^/       log: /'
check "reload: the volume is the config's again (80, in the state and in Home Assistant)" \
    bash -c "$match '$rec' $mark 5 \"t == 'bubble-kiosk/$B/state' and j['volume'] == 80\" && python3 '$here/ha_client.py' '$HA' wait 5 \"float(s('number.${B}_volume')) == 80\""

# The camera shows the PNG the kiosk retains on PREFIX/screenshot (asked for only once it is
# there: a camera without an image would make Home Assistant log an error).
screenshot_in_ha() {
    local i
    hc call button press "{\"entity_id\": \"button.${B}_take_screenshot\"}" || return 1
    timeout 10 mosquitto_sub -h 127.0.0.1 -p "$mqtt_port" -t "bubble-kiosk/$B/screenshot" -C 1 -W 8 -N > "$work/screenshot.png" 2> /dev/null
    echo "the kiosk published $(stat -c %s "$work/screenshot.png") bytes on bubble-kiosk/$B/screenshot"
    for i in 1 2 3 4 5; do
        hc get "/api/camera_proxy/camera.${B}_screenshot" --png 640x400 --out "$work/camera.png" && return 0
        sleep 0.2
    done
    return 1
}
check "button.press $B take screenshot: GET /api/camera_proxy/camera.${B}_screenshot is a 640x400 PNG (\\x89PNG...)" screenshot_in_ha

# Restart: the kiosk exits 10 and is run again, as systemd would (Restart=on-failure).
check "button.press $B restart: accepted" hc call button press "{\"entity_id\": \"button.${B}_restart\"}"
kiosk_exit $B 10
check "restart: $B exits with status 10 (got $kiosk_rc)" [ "$kiosk_rc" = 10 ]
grep 'operator reset' "$work/$B.err" | tail -n 1 | sed 's/^/       log: /'
check "restart: $B's entities unavailable while it is gone" \
    hw 10 "all(s(e) == 'unavailable' for e in $(entities $B))"
kiosk_start $B
check "restart: $B run again; its entities available again (within 15 s)" available $B 15
check "restart: $B's states follow its state JSON again" hw 10 "follows('$B')"

# Availability: SIGTERM (systemctl stop) and a start.
kill -TERM "${kiosk_pid[$P]}"
kiosk_exit $P 10
check "SIGTERM: $P exits 0 (got $kiosk_rc)" [ "$kiosk_rc" = 0 ]
check "SIGTERM: $P's entities unavailable (within 10 s)" hw 10 "all(s(e) == 'unavailable' for e in $(entities $P))"
kiosk_start $P
check "started again: $P's entities available (within 15 s)" available $P 15
d_cmd=$(elapsed "$t_cmd")
info "commands and availability took $d_cmd s"

# --- Home Assistant restarted ---------------------------------------------------------------------
t_restart=$(now)
mark=$(lines "$rec")
hc call homeassistant restart '{}' > "$work/restart.out" 2>&1   # (the answer may not come: it stops)
ha_rc=0
if wait_until 60 ended "$ha_pid"; then wait "$ha_pid" 2> /dev/null || ha_rc=$?; else ha_rc=running; fi
check "homeassistant.restart: Home Assistant stops with status 100 (restart asked; got $ha_rc)" [ "$ha_rc" = 100 ]
d_stop=$(elapsed "$t_restart")
info "Home Assistant stopped $d_stop s after the restart call"
[ "$ha_rc" = running ] && { kill -KILL "$ha_pid"; wait "$ha_pid" 2> /dev/null; }

# The registries on disk (Home Assistant writes them late, at the latest when it stops).
registry_ok() {
    python3 - "$ha/.storage" "$1" "$(entities "$1")" "$entry_id" <<'PY'
import ast, json, sys
storage, node, want_ids, entry = sys.argv[1], sys.argv[2], set(ast.literal_eval(sys.argv[3])), sys.argv[4]
objects = ["display", "volume", "reload", "restart", "take_screenshot", "touch_test", "screen", "score",
           "rounds_today", "high_score", "last_touch", "touchscreen", "screenshot"]
ents = json.load(open(storage + "/core.entity_registry"))["data"]["entities"]
devs = json.load(open(storage + "/core.device_registry"))["data"]["devices"]
mine = {e["unique_id"]: e for e in ents if e["platform"] == "mqtt" and e["unique_id"].startswith(node + "_")}
problems = []
missing = sorted(set(node + "_" + o for o in objects) - set(mine))
if missing: problems.append("unique_ids not registered: %s" % missing)
if len(mine) != 13: problems.append("%d MQTT entities with unique_id %s_*, not 13" % (len(mine), node))
if {e["entity_id"] for e in mine.values()} != want_ids:
    problems.append("entity ids %s" % sorted(e["entity_id"] for e in mine.values()))
device_ids = {e["device_id"] for e in mine.values()}
if len(device_ids) != 1: problems.append("on %d devices: %s" % (len(device_ids), device_ids))
dev = [d for d in devs if d["id"] in device_ids]
named = [d for d in devs if ["mqtt", "bubble-kiosk_" + node] in d["identifiers"]]
if len(dev) != 1 or dev != named:
    problems.append("device entries: %s; with its identifier: %s" % (len(dev), len(named)))
else:
    d = dev[0]
    print("device %s: name %s, identifiers %s, model %s, sw_version %s, config entries %s"
          % (d["id"], d["name"], d["identifiers"], d["model"], d["sw_version"], d["config_entries"]))
    if d["name"] != node or d["config_entries"] != [entry]:
        problems.append("name %r, config entries %s" % (d["name"], d["config_entries"]))
sys.exit("; ".join(problems) or None)
PY
}
for n in $B $P; do
    check "$n: .storage/core.entity_registry has its 13 unique_ids (platform mqtt), all on the one device in core.device_registry (identifiers mqtt bubble-kiosk_$n)" \
        registry_ok $n
done

ha_start
t_ha2=$(now)
must "restart: Home Assistant answers again (GET /api/ with the token, within 120 s)" ha_up
for n in $B $P; do
    check "restart: $n's entities are back and available (within 30 s)" available $n 30
done
d_restart=$(elapsed "$t_restart")
info "Home Assistant restarted: $d_restart s from the restart call to every entity back ($(elapsed "$t_ha2") s of it the new start)"
# HA says `online` on homeassistant/status once it is up again; each kiosk then sends its 13
# configs again (live, after that line: no retained copies), at most 10 s later (a kiosk sends
# them at most once per 10 s, and it sent them on its own new connection not long before).
online=$($match "$rec" "$mark" 30 "t == 'homeassistant/status' and p == 'online'" > /dev/null &&
         awk -v m="$mark" 'NR > m && $3 == "homeassistant/status" && $4 == "online" { print NR; exit }' "$rec")
check "restart: Home Assistant said 'online' on homeassistant/status" [ -n "$online" ]
for n in $B $P; do
    check "restart: $n sent its 13 discovery configs again after Home Assistant's 'online'" \
        $match --distinct-topics 13 "$rec" "${online:-$(lines "$rec")}" 15 "r == '0' and t.startswith('homeassistant/') and t.split('/')[2:3] == ['$n'] and t.endswith('/config')"
done
for n in $B $P; do
    check "restart: $n's states follow its state JSON" hw 10 "follows('$n')"
done

# --- the logs --------------------------------------------------------------------------------------
# Warnings and errors of Home Assistant about the kiosks, from every start's log; a record is a
# line with a time stamp and the lines after it (a traceback).
ha_log_clean() {
    python3 - "$B" "$P" "$work"/ha-[0-9]*.log* <<'PY'
import re, sys
nodes, files = "|".join(sys.argv[1:3]), sys.argv[3:]
about = re.compile(r"bubble-kiosk/|homeassistant/[a-z_]+/(%s)/|Invalid state message|when processing MQTT discovery message|\b(%s)\b|\.(%s)_"
                   % (nodes, nodes, nodes))
start = re.compile(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d+ (\w+) ")
kinds = {}   # the same message with other payloads is one kind: counted, its first line shown
for path in files:
    record = []
    for line in open(path, encoding="utf-8", errors="replace").read().splitlines() + ["0000-00-00 00:00:00.0 END"]:
        if start.match(line) and record:
            text = "\n".join(record)
            if start.match(record[0]).group(1) in ("WARNING", "ERROR", "CRITICAL") and about.search(text):
                kind = re.sub(r"'[^']*'", "'...'", record[0].split(" ", 2)[2])
                first = kinds.setdefault(kind, [0, "%s: %s" % (path.rsplit("/", 1)[1], record[0][:400])])
                first[0] += 1
            record = []
        record.append(line)
print("%d warning/error records about the kiosks" % sum(n for n, _ in kinds.values()))
for n, first in kinds.values():
    print("%d x %s" % (n, first))
sys.exit(1 if kinds else 0)
PY
}
check "home-assistant.log (every start): no warning or error about the kiosks (their topics, node ids, Invalid state message, MQTT discovery errors)" ha_log_clean
check "the kiosks understood every command Home Assistant sent (no \"ignored\" or \"dropped unread\" line in their logs)" \
    bash -c "! grep -HE \": ignored '|dropped unread\" '$work'/*.err"
check "no kiosk crashed" bash -c "! grep -HE '$VM_CRASH_RE' '$work'/*.err"

info "time: venv $d_venv s; Home Assistant's HTTP $d_up s and the entities $d_entities s after its start; states $d_states s; commands and availability $d_cmd s; restart $d_restart s (stopped after $d_stop s)"
echo "ha-test: $VM_PASSED passed, $VM_FAILED failed in $(elapsed "$t_start") s"
[ "$VM_FAILED" = 0 ]
