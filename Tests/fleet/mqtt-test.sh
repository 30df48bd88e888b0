#!/bin/bash
# MQTT fleet control against a real broker (issue 18): Debian's mosquitto started by the test on
# free loopback ports (configs, logs, a test CA and a password file in a scratch folder), the
# kiosk run on a virtual display with `[mqtt]` in its --config, and mosquitto_sub/mosquitto_pub
# as the operator's side. Each check is one line, "ok   WHAT" or "FAIL WHAT" (with what it saw):
#   - availability `online` (retained) once connected, with the will `offline` retained and the
#     configured keepalive (the broker's log); the 13 Home Assistant discovery configs, retained,
#     valid JSON with unique_id, availability_topic and the device block; sent again when
#     homeassistant/status says online
#   - PREFIX/state: retained, exactly the contract's keys in order, typed and in range; demo
#     under --attract, paced (at most 4 a second); a replayed round followed (playing with the
#     score rising, round_over with the round's score and the high score); game events on
#     PREFIX/event as JSON objects, not retained
#   - commands: display/set OFF (state display off, screen asleep, the --status line's
#     display_state=asleep) and ON; volume/set 40; touch_test/set ON/OFF; screenshot/set (a
#     retained PNG of the screen's size on PREFIX/screenshot); restart/set (exit status 10)
#   - garbage: bad payloads, unknown topics under the prefix, oversized payloads and a burst of
#     1000 messages change nothing in the state, do not flood the log, and the kiosk keeps
#     drawing (status lines every second, frames increasing)
#   - SIGTERM: exit 0, `offline` published and a clean DISCONNECT; SIGKILL: `offline` by the
#     will; the broker stopped and started again: back online with the state re-sent; a broker
#     down at start: the kiosk plays, then connects once it is up
#   - TLS (mqtts://localhost with the test CA as ca_file) connects, with cert_file/key_file also
#     where the broker wants a client certificate; a wrong CA does not, says so in one clear log
#     line and the kiosk plays on; username + password_file against a broker with a password
#     file connects; an inline `password =` is refused with a line naming password_file and the
#     kiosk plays on without MQTT
# About a minute; every wait is bounded (and the whole run is stopped after 8 minutes).
#
# usage: Tests/fleet/mqtt-test.sh BINARY [--keep]
#   BINARY   the bubble-kiosk to test (`make fleet-test` passes the release build)
#   --keep   keep the scratch folder (logs, configs, the screenshot) even when all passed
# Ends with "fleet-test: N passed, M failed"; exit 0 only when nothing failed. Runs as any user
# (as root it installs mosquitto, mosquitto-clients and openssl when they are missing).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../vm/lib.sh"
. "$here/lib.sh"
fleet_test_args '' "$@"
for tool in mosquitto mosquitto_sub mosquitto_pub mosquitto_passwd openssl python3; do
    command -v "$tool" > /dev/null || [ -x "/usr/sbin/$tool" ] || { need_host_packages mosquitto mosquitto-clients openssl python3; break; }
done
export PATH=$PATH:/usr/sbin
repo=$(cd "$here/../.." && pwd)

# However things go, the run ends: 8 minutes is several times what it takes even when every
# wait runs out.
fleet_scratch fleet-test 480 VM_FAILED
match="python3 $here/match.py"
declare -A broker_pid=() kiosk_pid=()

check() { vm_check_show "$@"; }
info() { echo "info $*"; }
t_start=$(now)

# --- helpers ------------------------------------------------------------------------------------

# broker_start NAME PORT [CONFIG LINE...]: mosquitto on PORT (127.0.0.1 unless a line says
# otherwise), no persistence, everything logged to $work/NAME.log (appended: a restart keeps
# the earlier lines). broker_running NAME then waits until it listens. (Both run in this shell,
# never inside a check: the pids are this shell's to end.)
broker_start() {
    local name=$1 port=$2
    shift 2
    {
        [ "$(id -u)" = 0 ] && echo "user root"     # (else it drops to the user mosquitto)
        echo "persistence false"
        echo "log_dest stderr"
        echo "log_type all"
        echo "log_timestamp_format %H:%M:%S"
        printf '%s\n' "$@"
        printf '%s\n' "$@" | grep -q '^listener ' || printf 'listener %s 127.0.0.1\nallow_anonymous true\n' "$port"
    } > "$work/$name.conf"
    echo "--- started" >> "$work/$name.log"
    mosquitto -c "$work/$name.conf" > /dev/null 2>> "$work/$name.log" &
    broker_pid[$name]=$!
    pids+=($!)
}
broker_running() {
    wait_until --pid "${broker_pid[$1]}" 5 broker_up "$1" && return 0
    echo "broker $1 did not start:"; tail -n 5 "$work/$1.log"
    return 1
}
# (the line after the latest start)
broker_up() { awk '/^--- started/ { up = 0 } / mosquitto version .* running/ { up = 1 } END { exit !up }' "$work/$1.log"; }
broker_stop() {
    kill -TERM "${broker_pid[$1]}" 2> /dev/null
    wait_until 10 ended "${broker_pid[$1]}"
}

# kiosk_conf FILE NODE BROKER [LINE...]: an [mqtt] section (keepalive 5 s) with more lines, then
# [attract] with $ATTRACT: by default the demo comes back 1 s after the start screen (the kiosk
# draws most of the time, so "frames increasing" can be checked whenever).
ATTRACT="demo_after_s = 1"
kiosk_conf() {
    local file=$1 node=$2 broker=$3
    shift 3
    printf '[mqtt]\nbroker = %s\nnode_id = %s\nkeepalive_s = 5\n' "$broker" "$node" > "$file"
    [ $# = 0 ] || printf '%s\n' "$@" >> "$file"
    printf '\n[attract]\n%s\n' "$ATTRACT" >> "$file"
}

# kiosk_start NAME CONF [RUN ARGS...]: the kiosk on a virtual display, status lines to
# $work/NAME.out, its log to $work/NAME.err, state in $work/NAME.state.
kiosk_start() {
    local name=$1 conf=$2
    shift 2
    "$binary" run --display virtual:640x400 --status --config "$conf" --state-dir "$work/$name.state" "$@" \
        > "$work/$name.out" 2> "$work/$name.err" &
    kiosk_pid[$name]=$!
    pids+=($!)
}

# Subscriptions. BROKER_PORT (and TLS_ARGS for mqtts) says which broker.
BROKER_PORT= TLS_ARGS=()
sub() { timeout 20 mosquitto_sub -h 127.0.0.1 -p "$BROKER_PORT" "$@"; }
pub() { timeout 20 mosquitto_pub -h 127.0.0.1 -p "$BROKER_PORT" "$@"; }
# retained TOPIC: the payload retained on TOPIC now (nothing when none within 2 s).
retained() { sub -t "$1" --retained-only -C 1 -W 2 -F '%p' 2> /dev/null; }
# wait_retained TOPIC PAYLOAD SECONDS: until TOPIC's retained payload is PAYLOAD.
wait_retained() {
    wait_until --every 0.3 "$3" retained_is "$1" "$2" && return 0
    echo "retained on $1: '$(retained "$1")', wanted '$2'"
    return 1
}
retained_is() { [ "$(retained "$1")" = "$2" ]; }
# retained_has TOPIC TEXT, has_retained TOPIC, no_retained TOPIC
retained_has() { local got; got=$(retained "$1"); echo "retained: $got"; grep -qF -- "$2" <<< "$got"; }
has_retained() { [ -n "$(retained "$1")" ]; }
no_retained() { local got; got=$(retained "$1"); echo "retained: $got"; [ -z "$got" ]; }
# no_client BROKER_LOG PREFIX: no client with its will under PREFIX/ ever connected.
no_client() { ! grep -A1 'Will message specified' "$1" | grep -qF -- "$2/"; }
# state_retained: the retained state is there and valid.
state_retained() {
    local s
    s=$(retained "$1")
    echo "$s"
    state_valid "$s"
}

# recorder NAME TOPIC...: everything on the topics from now on, one line each in
# $work/NAME.rec ("RETAIN UNIXTIME TOPIC PAYLOAD"), until recorder_stop NAME.
declare -A rec_pid=()
recorder() {
    local name=$1 i args=()
    shift
    for t in "$@"; do args+=(-t "$t"); done
    mosquitto_sub -h 127.0.0.1 -p "$BROKER_PORT" "${args[@]}" -F '%r %U %t %p' > "$work/$name.rec" 2> "$work/$name.rec.err" &
    rec_pid[$name]=$!
    pids+=($!)
    # Subscribed once the broker logs its SUBACK (else the first messages could be missed).
    sleep 0.3
}
recorder_stop() { kill "${rec_pid[$1]}" 2> /dev/null; }

# The kiosk's client id at the broker, from its log: the one whose will is on AVAIL_TOPIC.
client_id() {
    awk -v topic="$2" '
        / New client connected from .* as / { id = $0; sub(/.* as /, "", id); sub(/ \(.*/, "", id) }
        / Will message specified/ { getline; sub(/^[^\t]*\t/, ""); if ($0 == topic) found = id }
        END { print found }' "$1"
}

# plays NAME SECONDS: a new status line within SECONDS shows more frames than the last one now.
plays() {
    local out=$work/$1.out n f
    n=$(lines "$out")
    f=$(tail -n 1 "$out" | sed -n 's/.* frames=\([0-9]*\) .*/\1/p')
    $match "$out" "$n" "$2" "field('frames') is not None and field('frames') > ${f:-0}"
}

# The state's keys and what each may hold (the contract's order).
STATE_KEYS='["screen","mode","score","display","brightness","volume","rounds_today","high_score","last_touch","touchscreens","version","uptime_s","tv"]'
state_valid() {
    python3 - "$1" "$STATE_KEYS" <<'PY'
import json, re, sys
text, want = sys.argv[1], json.loads(sys.argv[2])
try:
    pairs = json.loads(text, object_pairs_hook=lambda p: p)
except ValueError as e:
    sys.exit("not JSON (%s): %r" % (e, text[:200]))
keys = [k for k, _ in pairs]
if keys != want:
    sys.exit("keys %s, wanted %s" % (keys, want))
s = dict(pairs)
problems = []
def need(ok, what):
    if not ok: problems.append(what)
isint = lambda v: isinstance(v, int) and not isinstance(v, bool)
need(s["screen"] in ("start", "playing", "round_over", "demo", "touch_test", "asleep", "no_display"), "screen")
need(isinstance(s["mode"], str) and s["mode"], "mode")
need(isint(s["score"]) and s["score"] >= 0, "score")
need(s["display"] in ("on", "off"), "display")
need(s["brightness"] is None or (isint(s["brightness"]) and 0 <= s["brightness"] <= 255), "brightness")
need(isint(s["volume"]) and 0 <= s["volume"] <= 100, "volume")
need(isint(s["rounds_today"]) and s["rounds_today"] >= 0, "rounds_today")
need(isint(s["high_score"]) and s["high_score"] >= 0, "high_score")
need(s["last_touch"] is None or (isinstance(s["last_touch"], str) and
     re.match(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$", s["last_touch"])), "last_touch")
need(isint(s["touchscreens"]) and s["touchscreens"] >= 0, "touchscreens")
need(isinstance(s["version"], str) and s["version"], "version")
need(isint(s["uptime_s"]) and s["uptime_s"] >= 0, "uptime_s")
need(s["tv"] in (None, "on", "standby", "unknown"), "tv")
if problems:
    sys.exit("wrong values for %s in %s" % (", ".join(problems), text))
PY
}

# --- the test CA, a wrong one, and a password file ------------------------------------------------
pki=$work/pki
mkdir -p "$pki"
make_ca() {
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 \
        -subj "/CN=$2" -addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign,cRLSign \
        -keyout "$pki/$1.key" -out "$pki/$1.pem" 2> "$pki/$1.log"
}
make_pki() {
    make_ca ca "bubble-kiosk fleet-test CA" && make_ca wrong-ca "bubble-kiosk fleet-test wrong CA" &&
    openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -subj /CN=localhost \
        -keyout "$pki/server.key" -out "$pki/server.csr" 2> "$pki/server.log" &&
    printf 'subjectAltName = DNS:localhost, IP:127.0.0.1\nbasicConstraints = CA:FALSE\nkeyUsage = digitalSignature, keyEncipherment\nextendedKeyUsage = serverAuth\n' > "$pki/server.ext" &&
    openssl x509 -req -in "$pki/server.csr" -CA "$pki/ca.pem" -CAkey "$pki/ca.key" -CAcreateserial -days 2 \
        -extfile "$pki/server.ext" -out "$pki/server.pem" 2>> "$pki/server.log" &&
    openssl verify -CAfile "$pki/ca.pem" "$pki/server.pem" &&
    ! openssl verify -CAfile "$pki/wrong-ca.pem" "$pki/server.pem" > /dev/null 2>&1 &&
    openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -subj /CN=fleetclient \
        -keyout "$pki/client.key" -out "$pki/client.csr" 2> "$pki/client.log" &&
    printf 'basicConstraints = CA:FALSE\nkeyUsage = digitalSignature\nextendedKeyUsage = clientAuth\n' > "$pki/client.ext" &&
    openssl x509 -req -in "$pki/client.csr" -CA "$pki/ca.pem" -CAkey "$pki/ca.key" -CAcreateserial -days 2 \
        -extfile "$pki/client.ext" -out "$pki/client.pem" 2>> "$pki/client.log" &&
    openssl verify -CAfile "$pki/ca.pem" "$pki/client.pem"
}
check "setup: a test CA, a server certificate for localhost/127.0.0.1 and a client certificate signed by it, and an unrelated CA (openssl)" make_pki
printf 's3cret-Pa55\n' > "$work/kiosk.pw"
chmod 600 "$work/kiosk.pw" "$pki"/*.key
check "setup: a broker password file (mosquitto_passwd -b)" mosquitto_passwd -c -b "$work/broker.passwd" kiosk 's3cret-Pa55'
chmod 600 "$work/broker.passwd"

# --- 1: a kiosk in attract mode on a plain broker ----------------------------------------------------
node=fleettest prefix=bubble-kiosk/fleettest
p1=$(free_port)
broker_start b1 "$p1"
check "setup: mosquitto listens on 127.0.0.1:$p1" broker_running b1
BROKER_PORT=$p1
recorder k1 "$prefix/#"
recorder ha "homeassistant/#"
kiosk_conf "$work/k1.conf" $node "mqtt://127.0.0.1:$p1"
kiosk_start k1 "$work/k1.conf" --attract
check "availability: 'online', retained, once connected" wait_retained "$prefix/availability" online 20
id=$(client_id "$work/b1.log" "$prefix/availability")
info "the kiosk's client id at the broker: ${id:-none found}"
check "the kiosk's will: 'offline' (7 bytes), retained, on $prefix/availability" \
    bash -c "[ -n '$id' ] && grep -A1 -E 'Will message specified \(7 bytes\) \(r1' '$work/b1.log' | grep -qxP '.*\t$prefix/availability'"
check "keepalive_s = 5 reaches the broker (k5)" grep -qE "New client connected from .* as $id \(p[0-9]+, c[01], k5\)" "$work/b1.log"
check "the kiosk subscribes to its seven command topics" \
    bash -c "for t in display brightness volume touch_test reload restart screenshot; do grep -qP \"^[0-9:]+: \t$prefix/\$t/set \(QoS\" '$work/b1.log' || { echo \"no subscription to $prefix/\$t/set\"; exit 1; }; done"

discovery_valid() {
    sub -t "homeassistant/+/$node/+/config" --retained-only -C 13 -W 5 -F '%t %p' > "$work/discovery.txt" 2>&1
    python3 - "$work/discovery.txt" "$node" "$prefix" <<'PY'
import json, sys
path, node, prefix = sys.argv[1:]
want = {("light", "display"), ("number", "volume"), ("button", "reload"), ("button", "restart"),
        ("button", "take_screenshot"), ("switch", "touch_test"), ("sensor", "screen"), ("sensor", "score"),
        ("sensor", "rounds_today"), ("sensor", "high_score"), ("sensor", "last_touch"),
        ("binary_sensor", "touchscreen"), ("camera", "screenshot")}
got, problems, ids, devices = set(), [], set(), []
for line in open(path, encoding="utf-8", errors="replace").read().splitlines():
    topic, _, payload = line.partition(" ")
    parts = topic.split("/")
    if len(parts) != 5 or parts[0] != "homeassistant" or parts[2] != node or parts[4] != "config":
        problems.append("unexpected line: " + line[:120]); continue
    got.add((parts[1], parts[3]))
    try:
        c = json.loads(payload)
    except ValueError as e:
        problems.append("%s: not JSON (%s)" % (topic, e)); continue
    if not isinstance(c, dict):
        problems.append(topic + ": not an object"); continue
    uid = c.get("unique_id")
    if not isinstance(uid, str) or not uid: problems.append(topic + ": no unique_id")
    elif uid in ids: problems.append(topic + ": unique_id " + uid + " used twice")
    else: ids.add(uid)
    if c.get("availability_topic") != prefix + "/availability":
        problems.append("%s: availability_topic %r" % (topic, c.get("availability_topic")))
    d = c.get("device")
    if not isinstance(d, dict) or not d.get("identifiers") or not all(isinstance(d.get(k), str) and d.get(k) for k in ("name", "model", "sw_version")):
        problems.append("%s: device block %r" % (topic, d))
    else:
        devices.append(json.dumps(d, sort_keys=True))
    for key in ("command_topic", "brightness_command_topic"):
        if key in c and not (c[key].startswith(prefix + "/") and c[key].endswith("/set")):
            problems.append("%s: %s %r" % (topic, key, c[key]))
    for key in ("state_topic", "brightness_state_topic"):
        want_topic = prefix + ("/last_touch" if parts[3] == "last_touch" else "/state")
        if key in c and c[key] != want_topic:
            problems.append("%s: %s %r" % (topic, key, c[key]))
    if parts[1] == "camera" and c.get("topic") != prefix + "/screenshot":
        problems.append("%s: topic %r" % (topic, c.get("topic")))
if got != want:
    problems.append("missing: %s; unexpected: %s" % (sorted(want - got), sorted(got - want)))
if len(set(devices)) > 1:
    problems.append("the device blocks differ")
if problems:
    sys.exit("\n".join(problems))
print("13 configs, device %s" % devices[0])
PY
}
check "discovery: 13 retained configs (light display, number volume, buttons reload/restart/take_screenshot, switch touch_test, sensors screen/score/rounds_today/high_score/last_touch, binary_sensor touchscreen, camera screenshot), each valid JSON with a distinct unique_id, availability_topic $prefix/availability and the same device block (identifiers, name, model, sw_version); their topics the node's" discovery_valid
info "discovery device block: $(grep -o '"device":{[^}]*}' "$work/discovery.txt" | head -n 1)"
mark=$(lines "$work/ha.rec")
pub -t homeassistant/status -m online
check "discovery: all 13 configs sent again when homeassistant/status says online" \
    $match --distinct-topics 13 "$work/ha.rec" "$mark" 10 "t.startswith('homeassistant/') and t.endswith('/$node/' + t.split('/')[3] + '/config')"

check "state: retained on $prefix/state, exactly the contract's keys in order, values typed and in range" \
    state_retained "$prefix/state"
check "state: screen demo under --attract" $match "$work/k1.rec" 0 15 "t == '$prefix/state' and j['screen'] == 'demo'"
info "state now: $(retained "$prefix/state")"
mark=$(lines "$work/k1.rec")
sleep 5
check "state: paced, at most 4 a second while the demo plays (and it follows the demo's score)" python3 - "$work/k1.rec" "$mark" "$prefix/state" <<'PY'
import json, sys
lines = open(sys.argv[1]).read().splitlines()[int(sys.argv[2]):]
states = [l.split(" ", 3) for l in lines if l.split(" ", 3)[2:3] == [sys.argv[3]]]
times = [float(s[1]) for s in states]
scores = {json.loads(s[3])["score"] for s in states}
print("%d states in 5 s, scores %s" % (len(states), sorted(scores)))
# 4 a second: within any second at most 4 (a little slack for the clock of the receiver)
worst = max((sum(1 for u in times if t <= u < t + 0.95) for t in times), default=0)
print("at most %d within a second" % worst)
sys.exit(0 if worst <= 4 and len(states) <= 22 and len(scores) >= 2 else 1)
PY
info "uptime_s/version: $(retained "$prefix/state" | python3 -c 'import json,sys; s=json.load(sys.stdin); print(s["uptime_s"], s["version"])' 2> /dev/null)"

# display/set OFF and ON: the state and the status line agree.
mark=$(lines "$work/k1.rec") smark=$(lines "$work/k1.out")
pub -t "$prefix/display/set" -m OFF
check "display/set OFF: state display 'off' and screen 'asleep'" \
    $match "$work/k1.rec" "$mark" 5 "t == '$prefix/state' and j['display'] == 'off' and j['screen'] == 'asleep'"
check "display/set OFF: the --status line says display_state=asleep" $match "$work/k1.out" "$smark" 5 "field('display_state') == 'asleep'"
check "asleep: the state stays asleep (retained)" \
    retained_has "$prefix/state" '"screen":"asleep"'
mark=$(lines "$work/k1.rec") smark=$(lines "$work/k1.out")
pub -t "$prefix/display/set" -m ON
check "display/set ON: state display 'on', the screen no longer asleep" \
    $match "$work/k1.rec" "$mark" 5 "t == '$prefix/state' and j['display'] == 'on' and j['screen'] != 'asleep'"
check "display/set ON: the --status line no longer says asleep" $match "$work/k1.out" "$smark" 5 "line.startswith('t=') and field('display_state') is None"
check "display/set ON: the kiosk draws again (frames increasing)" plays k1 5

mark=$(lines "$work/k1.rec")
pub -t "$prefix/volume/set" -m 40
check "volume/set 40: state volume 40" $match "$work/k1.rec" "$mark" 5 "t == '$prefix/state' and j['volume'] == 40"

mark=$(lines "$work/k1.rec") smark=$(lines "$work/k1.out")
pub -t "$prefix/touch_test/set" -m ON
check "touch_test/set ON: state screen touch_test, the status line screen=touch-test" \
    bash -c "$match '$work/k1.rec' $mark 5 \"t == '$prefix/state' and j['screen'] == 'touch_test'\" && $match '$work/k1.out' $smark 5 \"field('screen') == 'touch-test'\""
mark=$(lines "$work/k1.rec")
pub -t "$prefix/touch_test/set" -m OFF
check "touch_test/set OFF: the touch test closes" $match "$work/k1.rec" "$mark" 5 "t == '$prefix/state' and j['screen'] != 'touch_test'"

screenshot_retained() {
    sub -t "$prefix/screenshot" --retained-only -C 1 -W 2 -N -F '%p' > "$work/screenshot.png" 2> /dev/null
    [ -s "$work/screenshot.png" ]
}
screenshot_ok() {
    pub -t "$prefix/screenshot/set" -m PRESS
    sleep 0.5
    wait_until --every 0.5 25 screenshot_retained
    python3 - "$work/screenshot.png" <<'PY'
import struct, sys
data = open(sys.argv[1], "rb").read()
if not data.startswith(b"\x89PNG\r\n\x1a\n"):
    sys.exit("%d bytes, not a PNG: %r" % (len(data), data[:16]))
w, h = struct.unpack(">II", data[16:24])
print("PNG %dx%d, %d bytes" % (w, h, len(data)))
sys.exit(0 if (w, h) == (640, 400) else 1)
PY
}
check "screenshot/set: a retained PNG (\\x89PNG...) of the screen, 640x400, on $prefix/screenshot" screenshot_ok

# Garbage: what the state says before and after must not differ in what commands set (the
# screen, mode and score follow the demo meanwhile).
settled() { retained "$prefix/state" | python3 2> /dev/null -c 'import json,sys; s=json.load(sys.stdin); print(json.dumps({k: s[k] for k in ("display","brightness","volume","touchscreens","version")}, sort_keys=True), s["screen"])'; }
before=$(settled)
err_before=$(lines "$work/k1.err") smark=$(lines "$work/k1.out")
garbage() {
    local t
    for t in display/set touch_test/set volume/set brightness/set; do pub -t "$prefix/$t" -n; done
    for t in display/set touch_test/set; do
        for payload in maybe 'ON OFF' 'onn' $'\x01\x02' '{"state":"OFF"}'; do pub -t "$prefix/$t" -m "$payload"; done
    done
    for payload in abc 101 -1 40.5 '4 0' 0x28 1e2 99999999999999999999999; do pub -t "$prefix/volume/set" -m "$payload"; done
    for payload in 256 -5 bright; do pub -t "$prefix/brightness/set" -m "$payload"; done
    for t in foo/set display display/set/x state/set availability/set screenshot/set/extra; do pub -t "$prefix/$t" -m OFF; done
    head -c 100000 /dev/urandom > "$work/big.bin"
    pub -t "$prefix/display/set" -f "$work/big.bin"
    pub -t "$prefix/volume/set" -f "$work/big.bin"
    # The burst: 1000 messages, as fast as one client sends them.
    yes maybe | head -n 500 | pub -t "$prefix/display/set" -l
    yes OFF | head -n 500 | pub -t "$prefix/nothing/set" -l
}
t0=$(now)
garbage
info "garbage and the burst of 1000 sent in $(elapsed "$t0") s"
sleep 2
after=$(settled)
info "state before: $before"
info "state after:  $after"
check "garbage changes nothing the commands set (display, brightness, volume; the screen not asleep, no touch test)" \
    bash -c "[ -n '$before' ] && [ '${before% *}' = '${after% *}' ] && case '${after##* }' in asleep|touch_test) false ;; esac"
check "the kiosk runs on after the garbage" kill -0 "${kiosk_pid[k1]}"
check "the kiosk kept going through the burst: a status line every second, frames increasing" python3 - "$work/k1.out" "$smark" <<'PY'
import sys
lines = [l for l in open(sys.argv[1]).read().splitlines()[int(sys.argv[2]):] if l.startswith("t=")]
vals = [(int(l.split()[0][2:-1]), int(l.split()[1][7:])) for l in lines]
print("(t, frames):", vals)
# (t is whole seconds since the start: a line a little late may skip one)
ok = len(vals) >= 2 and all(1 <= b[0] - a[0] <= 2 for a, b in zip(vals, vals[1:])) and vals[-1][1] > vals[0][1]
sys.exit(0 if ok else 1)
PY
check "the kiosk still plays after the garbage (frames increasing)" plays k1 4
err_lines=$(( $(lines "$work/k1.err") - err_before ))
info "log lines during the garbage: $err_lines; first ones:"
tail -n +"$((err_before + 1))" "$work/k1.err" | head -n 6 | sed 's/^/       /'
check "the garbage did not flood the log (at most 40 lines for ~1040 bad messages)" [ "$err_lines" -le 40 ]
check "the garbage's bad payloads are logged (the topic and why)" \
    bash -c "tail -n +$((err_before + 1)) '$work/k1.err' | grep -q 'display/set'"
mark=$(lines "$work/k1.rec")
pub -t "$prefix/volume/set" -m 55
check "after the garbage a good command still works (volume/set 55)" $match "$work/k1.rec" "$mark" 5 "t == '$prefix/state' and j['volume'] == 55"

# The broker stopped and started again (no persistence: only the kiosk can bring its topics back).
recorder_stop k1; recorder_stop ha
broker_stop b1
smark=$(lines "$work/k1.out")
sleep 2
check "broker stopped: the kiosk plays on (frames increasing)" plays k1 4
check "broker stopped: the kiosk is still running" kill -0 "${kiosk_pid[k1]}"
broker_start b1 "$p1"
check "setup: mosquitto started again on the same port" broker_running b1
recorder k1 "$prefix/#"
t0=$(now)
if check "broker back: the kiosk is online again within 40 s" wait_retained "$prefix/availability" online 40; then
    info "back online $(elapsed "$t0") s after the broker's restart"
fi
check "broker back: the state is sent again (retained, valid)" \
    state_retained "$prefix/state"
check "broker back: the state remembers volume 55" \
    retained_has "$prefix/state" '"volume":55'
check "broker back: the 13 discovery configs are sent again (retained)" \
    bash -c "[ \$(timeout 10 mosquitto_sub -h 127.0.0.1 -p $p1 -t 'homeassistant/+/$node/+/config' --retained-only -C 13 -W 3 -F '%t' 2> /dev/null | wc -l) = 13 ]"
kill -0 "${kiosk_pid[k1]}" || info "k1 is gone: $(tail -n 3 "$work/k1.err")"

# restart/set: the operator reset.
pub -t "$prefix/restart/set" -m PRESS
kiosk_exit k1 10
check "restart/set: the kiosk exits with status 10 (got $kiosk_rc)" [ "$kiosk_rc" = 10 ]
check "restart/set: the log names the operator reset by an MQTT command" grep -q 'operator reset: an MQTT command' "$work/k1.err"
check "after the restart exit: availability 'offline' (retained)" wait_retained "$prefix/availability" offline 10
grep -E 'operator reset' "$work/k1.err" | tail -n 1 | sed 's/^/       log: /'

# --- 2: a replayed round: the state follows it, events arrive ------------------------------------------
# The round of --seed 1 on 640x400, played by its recording 3 s after the start (an event at
# 0 s keeps the replay's clock from starting at the first touch), so the kiosk is connected.
"$binary" round-recording --seed 1 --size 640x400 > "$work/round.evemu"
awk '/^E:/ && !done { print "E: 0.000000 0000 0000 0000"; done = 1 } /^E:/ { $2 = sprintf("%.6f", $2 + 3) } { print }' \
    "$work/round.evemu" > "$work/round-late.evemu"
node2=fleetround prefix2=bubble-kiosk/fleetround
recorder k2 "$prefix2/#"
ATTRACT="demo = false" kiosk_conf "$work/k2.conf" $node2 "mqtt://127.0.0.1:$p1"
kiosk_start k2 "$work/k2.conf" --seed 1 --input "replay:$work/round-late.evemu"
check "replay: online before the round starts" wait_retained "$prefix2/availability" online 6
check "replay: state screen 'playing' with a score above 0" $match "$work/k2.rec" 0 15 "t == '$prefix2/state' and j['screen'] == 'playing' and j['score'] > 0"
check "replay: state screen 'round_over'" $match "$work/k2.rec" 0 15 "t == '$prefix2/state' and j['screen'] == 'round_over'"
final=$($match "$work/k2.out" 0 3 "field('screen') == 'round-over'" | sed -n 's/.* score=\([0-9]*\) .*/\1/p')
info "the round's score on the status line: ${final:-?}; the last state: $(tail -n 20 "$work/k2.rec" | grep " $prefix2/state " | tail -n 1 | cut -d' ' -f4-)"
check "replay: at round over the state has the round's score ($final) and rounds_today 1" \
    $match "$work/k2.rec" 0 5 "t == '$prefix2/state' and j['screen'] == 'round_over' and j['score'] == ${final:-0} > 0 and j['rounds_today'] == 1"
# (The score keeping raises the high score just after the round ends: a state follows it.)
check "replay: the new high score reaches the state (high_score $final within 5 s)" \
    $match "$work/k2.rec" 0 5 "t == '$prefix2/state' and j['high_score'] == ${final:-0} > 0"
check "replay: the score rose through the round (several states while playing)" \
    $match --count 3 "$work/k2.rec" 0 1 "t == '$prefix2/state' and j['screen'] == 'playing'"
check "replay: last_touch is an ISO 8601 time after real touches" \
    $match "$work/k2.rec" 0 1 "t == '$prefix2/state' and j['screen'] == 'round_over' and isinstance(j['last_touch'], str)"
events_ok() {
    python3 - "$work/k2.rec" "$prefix2/event" <<'PY'
import json, sys
events = []
for line in open(sys.argv[1]).read().splitlines():
    parts = line.split(" ", 3)
    if len(parts) == 4 and parts[2] == sys.argv[2]:
        pairs = json.loads(parts[3], object_pairs_hook=lambda p: p)
        keys = [k for k, _ in pairs]
        assert keys[:2] == ["event", "time"], "event object starts %s" % keys[:2]
        events.append(dict(pairs)["event"])
print(" ".join(events))
order = [e for e in events if e in ("round_start", "pop", "round_over")]
assert "round_start" in events and "pop" in events and "round_over" in events and "high_score" in events, "missing events"
assert order.index("round_start") < order.index("pop") < order.index("round_over"), "out of order"
assert events.count("pop") >= 5, "pops: %d" % events.count("pop")
PY
}
sleep 1
check "events: round_start, pop (one per bubble), round_over and high_score on $prefix2/event, in order, each a JSON object starting with event and time" events_ok
check "events are not retained" no_retained "$prefix2/event"
id2=$(client_id "$work/b1.log" "$prefix2/availability")
kill -TERM "${kiosk_pid[k2]}"
kiosk_exit k2 10
check "SIGTERM: the kiosk exits 0 (got $kiosk_rc)" [ "$kiosk_rc" = 0 ]
check "SIGTERM: availability 'offline' (retained)" wait_retained "$prefix2/availability" offline 6
check "SIGTERM: it published 'offline' itself (retained) and disconnected cleanly (DISCONNECT: no will)" \
    bash -c "[ -n '$id2' ] && grep -qF \"Received PUBLISH from $id2 (d0, q\" '$work/b1.log' &&
             grep -F \"Received PUBLISH from $id2 \" '$work/b1.log' | grep -qF \"'$prefix2/availability', ... (7 bytes))\" &&
             grep -qF \"Received DISCONNECT from $id2\" '$work/b1.log'"

# --- 3: a broker down at start; then SIGKILL and the will ----------------------------------------------
p2=$(free_port)
node3=fleetlate prefix3=bubble-kiosk/fleetlate
kiosk_conf "$work/k3.conf" $node3 "mqtt://127.0.0.1:$p2"
kiosk_start k3 "$work/k3.conf" --attract
sleep 2
check "broker down at start: the kiosk plays (frames increasing)" plays k3 5
info "broker down at start: the log says: $(grep -iE 'mqtt|broker' "$work/k3.err" | head -n 2 | tr '\n' '|')"
broker_start b2 "$p2"
check "setup: the broker started on 127.0.0.1:$p2" broker_running b2
BROKER_PORT=$p2
t0=$(now)
if check "broker started later: the kiosk connects (online within 40 s)" wait_retained "$prefix3/availability" online 40; then
    info "online $(elapsed "$t0") s after the broker started"
fi
check "broker started later: the state arrives" state_retained "$prefix3/state"
id3=$(client_id "$work/b2.log" "$prefix3/availability")
kill -KILL "${kiosk_pid[k3]}"
wait "${kiosk_pid[k3]}" 2> /dev/null
t0=$(now)
if check "SIGKILL: availability 'offline' (retained) by the will" wait_retained "$prefix3/availability" offline 10; then
    info "offline $(elapsed "$t0") s after SIGKILL"
fi
check "SIGKILL: the broker saw the connection end without DISCONNECT (so the will spoke)" \
    bash -c "[ -n '$id3' ] && ! grep -qF 'Received DISCONNECT from $id3' '$work/b2.log' && grep -qE 'Client $id3 (closed its connection|has exceeded timeout)|Socket error on client $id3' '$work/b2.log'"

# --- 4: TLS ----------------------------------------------------------------------------------------
p3=$(free_port) p5=$(free_port)
# Two TLS listeners: $p3 for any client, $p5 only for clients with a certificate from the test CA.
broker_start b3 "$p3" "listener $p3 127.0.0.1" "cafile $pki/ca.pem" "certfile $pki/server.pem" "keyfile $pki/server.key" "allow_anonymous true" \
    "listener $p5 127.0.0.1" "cafile $pki/ca.pem" "certfile $pki/server.pem" "keyfile $pki/server.key" "require_certificate true" "allow_anonymous true"
check "setup: mosquitto with TLS listeners on localhost:$p3 and :$p5 (the test CA's server certificate; :$p5 wants a client certificate)" broker_running b3
BROKER_PORT=$p3
tls_sub() { timeout 10 mosquitto_sub -h localhost -p "$p3" --cafile "$1" "${@:2}"; }
# (mosquitto_sub -W: exit status 27 when the time is up, connected all along)
tls_gets_through() { local rc=0; tls_sub "$pki/ca.pem" -t x -W 1 -C 1 || rc=$?; echo "exit status $rc"; [ $rc = 27 ]; }
tls_refused() { local rc=0; tls_sub "$pki/wrong-ca.pem" -t x -W 2 -C 1 || rc=$?; echo "exit status $rc"; [ $rc != 0 ] && [ $rc != 27 ]; }
check "setup: mosquitto_sub with the test CA gets through the TLS listener" tls_gets_through
check "setup: mosquitto_sub with the wrong CA is refused" tls_refused
client_cert_wanted() {
    local rc=0
    timeout 10 mosquitto_sub -h localhost -p "$p5" --cafile "$pki/ca.pem" -t x -W 1 -C 1 > /dev/null 2>&1 || rc=$?
    echo "without a client certificate: exit status $rc"
    [ $rc != 0 ] && [ $rc != 27 ] || return 1
    rc=0
    timeout 10 mosquitto_sub -h localhost -p "$p5" --cafile "$pki/ca.pem" --cert "$pki/client.pem" --key "$pki/client.key" -t x -W 1 -C 1 || rc=$?
    echo "with it: exit status $rc"
    [ $rc = 27 ]
}
check "setup: the listener on :$p5 refuses mosquitto_sub without a client certificate and lets it in with one" client_cert_wanted
kiosk_conf "$work/k4.conf" fleettls "mqtts://localhost:$p3" "ca_file = $pki/ca.pem"
kiosk_conf "$work/k5.conf" fleetbadca "mqtts://localhost:$p3" "ca_file = $pki/wrong-ca.pem"
kiosk_conf "$work/k8.conf" fleetcert "mqtts://localhost:$p5" "ca_file = $pki/ca.pem" "cert_file = $pki/client.pem" "key_file = $pki/client.key"
kiosk_start k4 "$work/k4.conf" --attract
kiosk_start k5 "$work/k5.conf" --attract
kiosk_start k8 "$work/k8.conf" --attract
tls_retained() { tls_sub "$pki/ca.pem" -t "$1" --retained-only -C 1 -W 2 -F '%p' 2> /dev/null; }
tls_online() {
    wait_until --every 0.3 "$2" tls_is_online "$1" && return 0
    echo "retained: '$(tls_retained "$1")'"; return 1
}
tls_is_online() { [ "$(tls_retained "$1")" = online ]; }
check "mqtts:// with ca_file = the test CA: online" tls_online bubble-kiosk/fleettls/availability 20
tls_has_state() { local s; s=$(tls_retained bubble-kiosk/fleettls/state); echo "$s"; state_valid "$s"; }
check "mqtts://: the state arrives over TLS" tls_has_state
check "mqtts:// with cert_file and key_file: online at the listener that wants a client certificate" \
    tls_online bubble-kiosk/fleetcert/availability 20
sleep 3
check "mqtts:// with the wrong CA: never online" [ "$(tls_retained bubble-kiosk/fleetbadca/availability)" != online ]
check "mqtts:// with the wrong CA: the log has a clear line about the certificate" grep -qiE 'certificate|tls' "$work/k5.err"
grep -iE 'certificate|tls' "$work/k5.err" | head -n 2 | sed 's/^/       log: /'
n=$(grep -ciE 'certificate|tls' "$work/k5.err")
check "mqtts:// with the wrong CA: said once, not on every retry (got $n lines in ~5 s)" [ "$n" -ge 1 ] && [ "$n" -le 2 ]
check "mqtts:// with the wrong CA: the kiosk plays on (frames increasing)" plays k5 4
check "mqtts:// with the wrong CA: the broker saw no MQTT client from it" no_client "$work/b3.log" bubble-kiosk/fleetbadca
kill -TERM "${kiosk_pid[k4]}" "${kiosk_pid[k5]}" "${kiosk_pid[k8]}"
kiosk_exit k4 10; kiosk_exit k5 10; kiosk_exit k8 10

# --- 5: username and password_file; an inline password -----------------------------------------------
p4=$(free_port)
broker_start b4 "$p4" "listener $p4 127.0.0.1" "allow_anonymous false" "password_file $work/broker.passwd"
check "setup: mosquitto with a password file and no anonymous clients on 127.0.0.1:$p4" broker_running b4
BROKER_PORT=$p4
auth_retained() { timeout 10 mosquitto_sub -h 127.0.0.1 -p "$p4" -u kiosk -P 's3cret-Pa55' -t "$1" --retained-only -C 1 -W 2 -F '%p' 2> /dev/null; }
kiosk_conf "$work/k6.conf" fleetauth "mqtt://127.0.0.1:$p4" "username = kiosk" "password_file = $work/kiosk.pw"
kiosk_conf "$work/k7.conf" fleetinline "mqtt://127.0.0.1:$p4" "username = kiosk" "password = s3cret-Pa55"
# A password file written on Windows: its CR is no part of the password.
printf 's3cret-Pa55\r\n' > "$work/kiosk-crlf.pw"
chmod 600 "$work/kiosk-crlf.pw"
kiosk_conf "$work/k10.conf" fleetcrlf "mqtt://127.0.0.1:$p4" "username = kiosk" "password_file = $work/kiosk-crlf.pw"
kiosk_start k6 "$work/k6.conf" --attract
kiosk_start k7 "$work/k7.conf" --attract
kiosk_start k10 "$work/k10.conf" --attract
auth_online() {
    wait_until --every 0.3 20 auth_is_online "$1" && return 0
    echo "retained: '$(auth_retained bubble-kiosk/$1/availability)'"; return 1
}
auth_is_online() { [ "$(auth_retained "bubble-kiosk/$1/availability")" = online ]; }
check "username + password_file: online at a broker that wants them" auth_online fleetauth
check "a password_file with CR LF line ends: online all the same" auth_online fleetcrlf
sleep 2
check "inline password: refused with a log line naming password_file" grep -q 'password_file' "$work/k7.err"
grep 'password' "$work/k7.err" | head -n 2 | sed 's/^/       log: /'
check "inline password: the kiosk plays on (frames increasing)" plays k7 4
check "inline password: it is not online (no session of it at the broker)" no_client "$work/b4.log" bubble-kiosk/fleetinline
info "inline password: connection attempts the broker refused: $(grep -c 'not authorised' "$work/b4.log")"
check "no kiosk crashed" bash -c "! grep -lE '$VM_CRASH_RE' '$work'/k*.err"
kill -TERM "${kiosk_pid[k6]}" "${kiosk_pid[k7]}" "${kiosk_pid[k10]}"
kiosk_exit k6 10; kiosk_exit k7 10; kiosk_exit k10 10

# --- 6: careless automations and a hostile network ---------------------------------------------------
p6=$(free_port)
broker_start b6 "$p6"
check "setup: mosquitto on 127.0.0.1:$p6" broker_running b6
BROKER_PORT=$p6
node=fleethostile prefix=bubble-kiosk/fleethostile
# Retained commands, left by an automation's slip before the kiosk starts: never carried out.
pub -r -t "$prefix/restart/set" -m PRESS
pub -r -t "$prefix/display/set" -m OFF
recorder k9 "$prefix/#"
recorder ha9 "homeassistant/#"
kiosk_conf "$work/k9.conf" $node "mqtt://127.0.0.1:$p6"
kiosk_start k9 "$work/k9.conf" --attract
check "retained commands: the kiosk comes online" wait_retained "$prefix/availability" online 20
sleep 2
kiosk_exit k9 1
check "a retained restart/set is not carried out: the kiosk runs on (no exit 10)" [ "$kiosk_rc" = running ]
check "a retained display/set OFF is not carried out: the display is on" retained_has "$prefix/state" '"display":"on"'
check "each retained command is one log line naming its topic and how to clear it" \
    bash -c "grep -c 'a retained message, not carried out' '$work/k9.err' | grep -qx 2 && grep -qF \"clear it with: mosquitto_pub -r -n -t '$prefix/restart/set'\" '$work/k9.err'"
grep 'a retained message' "$work/k9.err" | head -n 1 | sed 's/^/       log: /'
clear_as_told() {
    local t
    for t in restart display; do pub -r -n -t "$prefix/$t/set"; done
    no_retained "$prefix/restart/set" && no_retained "$prefix/display/set"
}
check "the log's mosquitto_pub -r -n clears them" clear_as_told
kiosk_exit k9 1
check "clearing them (an empty retained message, delivered live) restarts nothing" [ "$kiosk_rc" = running ]
# MQTT 5 keeps the retain flag as published: a command published retained while the kiosk is
# up is no command either.
pub -r -t "$prefix/restart/set" -m PRESS
sleep 1
kiosk_exit k9 1
check "a restart/set published retained while the kiosk runs is not carried out either" [ "$kiosk_rc" = running ]
pub -r -n -t "$prefix/restart/set"

# 200 MB to a command topic: the broker is told the kiosk's maximum packet size (MQTT 5) and
# never sends it; the kiosk's memory stays flat.
hwm() { awk '/^VmHWM/ { print $2 }' "/proc/${kiosk_pid[k9]}/status"; }
before=$(hwm)
head -c 200000000 /dev/zero > "$work/huge.bin"
t0=$(now)
timeout 60 mosquitto_pub -h 127.0.0.1 -p "$p6" -t "$prefix/volume/set" -f "$work/huge.bin"
rm -f "$work/huge.bin"
info "200 MB published in $(elapsed "$t0") s; the kiosk's peak RSS ${before} kB before"
head -c 300 /dev/zero | tr '\0' 7 > "$work/small-but-too-long.bin"
pub -t "$prefix/volume/set" -f "$work/small-but-too-long.bin"
mark=$(lines "$work/k9.rec")
pub -t "$prefix/volume/set" -m 33
check "after 200 MB on volume/set the next command works (state volume 33)" $match "$work/k9.rec" "$mark" 10 "t == '$prefix/state' and j['volume'] == 33"
after=$(hwm)
info "the kiosk's peak RSS after: ${after} kB"
check "200 MB on volume/set: the kiosk's peak memory grew by less than 20 MB (${before} -> ${after} kB)" [ $((after - before)) -lt 20000 ]
check "300 bytes on volume/set: dropped unread, one line" grep -q 'volume/set: a message of 300 bytes dropped unread' "$work/k9.err"

# Home Assistant saying online 10,000 times: the configs again at most once per 10 s.
mark=$(lines "$work/ha9.rec")
yes online | head -n 10000 | pub -t homeassistant/status -l
sleep 12
resent=$(tail -n +$((mark + 1)) "$work/ha9.rec" | grep -c "^. [0-9.]* homeassistant/[a-z_]*/$node/")
info "10,000 'online' on homeassistant/status: $resent config messages in 12 s (13 a resend)"
check "homeassistant/status flood: at most two resends in 12 s (got $((resent / 13)))" [ "$resent" -ge 13 ] && [ "$resent" -le 26 ]
check "homeassistant/status flood: a line per resend" bash -c "[ \$(grep -c 'Home Assistant said online' '$work/k9.err') -le 2 ]"

# A dashboard slider dragged for 12 s: 10 commands a second, every one carried out, a few lines.
lines_before=$(grep -c 'volume set to' "$work/k9.err")
for i in $(seq 120); do pub -t "$prefix/volume/set" -m $((i % 100)); sleep 0.1; done
sleep 1
check "120 volume commands: the last one is in the state (volume 20)" retained_has "$prefix/state" '"volume":20,'
sleep 10
n=$(( $(grep -c 'volume set to' "$work/k9.err") - lines_before ))
check "120 volume commands in 12 s: at most 3 log lines (got $n)" [ "$n" -le 3 ]
grep 'volume set to' "$work/k9.err" | tail -n 1 | sed 's/^/       log: /'
check "the kiosk played through it all (frames increasing)" plays k9 4
kill -TERM "${kiosk_pid[k9]}"
kiosk_exit k9 10
check "SIGTERM: exit status 0" [ "$kiosk_rc" = 0 ]

# A FIFO as ca_file once hung the kiosk before its first frame, with SIGTERM blocked.
mkfifo "$work/ca.fifo"
kiosk_conf "$work/k11.conf" fleetfifo "mqtts://localhost:$p6" "ca_file = $work/ca.fifo"
kiosk_start k11 "$work/k11.conf" --attract
sleep 2
check "a FIFO as ca_file: the kiosk plays (frames increasing)" plays k11 5
check "a FIFO as ca_file: one line naming the key and the file" grep -qF "ca_file $work/ca.fifo: not a regular file (a FIFO)" "$work/k11.err"
grep -F 'ca.fifo' "$work/k11.err" | head -n 1 | sed 's/^/       log: /'
kill -TERM "${kiosk_pid[k11]}"
kiosk_exit k11 5
check "a FIFO as ca_file: SIGTERM ends it within 5 s, exit status 0 (got $kiosk_rc)" [ "$kiosk_rc" = 0 ]
check "no kiosk crashed" bash -c "! grep -lE '$VM_CRASH_RE' '$work'/k*.err"

echo "--- $(elapsed "$t_start") s"
echo "fleet-test: $VM_PASSED passed, $VM_FAILED failed"
[ "$VM_FAILED" = 0 ]
