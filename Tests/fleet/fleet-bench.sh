#!/bin/bash
# Fleet benchmark (not a test: it prints figures and fails only when it cannot measure them):
# N kiosks (default 100) against one local mosquitto, for what a fleet costs the broker and the
# network and what MQTT costs a kiosk.
#   setup    mosquitto on a free loopback port (no persistence; connections logged with
#            per-second timestamps; $SYS every second), and N kiosks k001..kNNN, each with its own
#            node_id, config and state folder, on a virtual:400x250 display (small, so that drawing
#            costs little, but with room for a demo round: at 320x200 the first demo round has two
#            or three bubbles, and below that the demo stood still in every run tried), keepalive
#            default (30 s). All online, then 10 s for the connect burst to pass.
#   idle     the start screen with the demo off ([attract] demo = false). Per kiosk per hour:
#            the PUBLISH messages it sends (application messages, counted by topic: state, event,
#            availability, discovery, screenshot) and their topic+payload bytes, seen by a
#            mosquitto_sub on '#' (-F '%U %t %l'); the bytes on the wire the broker received
#            ($SYS/broker/bytes/received / N: MQTT headers and pings too). Per kiosk, min / median
#            / max over the fleet: CPU (utime+stime over the phase, % of one core), RSS (VmRSS at
#            the end), main-thread wake-ups and preemptions a second, time spent waiting for a CPU
#            (schedstat); the broker's CPU and RSS; the machine's busy and steal share and its CPU
#            pressure (PSI: some task waiting for a CPU).
#   play     the demo on: the configs rewritten with demo = true, demo_after_s = 1 and SIGHUP
#            (a reload: the same processes and connections), then the same figures; kiosks whose
#            demo stood still (under 5 loop wake-ups a second) are named.
#   restart  mosquitto stopped (SIGTERM) and started again on the same port 2 s later: the time
#            from the broker accepting connections until every kiosk's retained 'online' is back
#            (without persistence the broker forgot it, so an 'online' is a reconnect), the
#            kiosks not back within 120 s, and connects per second from the broker's log ('New
#            client connected ... as bubble-kiosk-...'): a histogram and its peak.
# A table at the end (with --json FILE the same figures as JSON) and how long each phase took.
# About 6 minutes with the defaults; every wait is bounded, and a watchdog ends the run.
#
# usage: Tests/fleet/fleet-bench.sh BINARY [--kiosks N] [--keep] [--json FILE]
#                                   [--idle-s S] [--play-s S] [--size WxH] [--back-within S]
#   BINARY           the bubble-kiosk to run (`make fleet-bench` passes the release build)
#   --kiosks N       how many kiosks (default 100)
#   --keep           keep the scratch folder (configs, logs, recordings) even when all went well
#   --json FILE      also write the figures to FILE as one JSON object
#   --idle-s S       seconds measured on the idle start screen (default 180: three 60 s
#                    heartbeats, so every kiosk's count is whole)
#   --play-s S       seconds measured in play (default 120)
#   --size WxH       the virtual display (default 400x250)
#   --back-within S  the bound on the reconnect after the broker's restart (default 120)
# Exit 0 when everything could be measured (whatever the figures), 1 when a kiosk died, the
# broker would not start or the fleet never got online. As root it installs mosquitto,
# mosquitto-clients and python3 when they are missing.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../vm/lib.sh"
. "$here/lib.sh"
LOG_TAG=fleet-bench

json= kiosks=100 idle_s=180 play_s=120 size=400x250 back_within=120
fleet_test_args '--kiosks=kiosks --json=json --idle-s=idle_s --play-s=play_s --size=size --back-within=back_within' "$@"
for v in kiosks idle_s play_s back_within; do
    [[ ${!v} =~ ^[1-9][0-9]*$ ]] || die "--${v//_/-} expects a whole number above 0, got '${!v}'"
done
[ "$kiosks" -le 2000 ] || die "--kiosks: at most 2000"
[[ $size =~ ^[1-9][0-9]*x[1-9][0-9]*$ ]] || die "--size expects WxH, got '$size'"
if [ -n "$json" ]; then
    [ -d "$(dirname "$json")" ] || die "--json: no folder $(dirname "$json")"
    json=$(cd "$(dirname "$json")" && pwd)/$(basename "$json")   # (the report runs elsewhere)
fi
for tool in mosquitto mosquitto_sub python3; do
    command -v "$tool" > /dev/null || [ -x "/usr/sbin/$tool" ] || { need_host_packages mosquitto mosquitto-clients python3; break; }
done
export PATH=$PATH:/usr/sbin
# The broker needs a descriptor per kiosk; a big fleet would pass the usual soft limit of 1024.
ulimit -n "$(ulimit -Hn)" 2> /dev/null || true

failed=0
problem() { failed=1; log "problem: $*"; }
# However things go, the run ends: the phases, the bounds on every wait and a few minutes over.
fleet_scratch fleet-bench $((idle_s + play_s + back_within + 60 + kiosks / 2 + 300)) failed
timeline=$work/timeline                 # "EVENT EPOCH" lines, for the report's durations
kpid=()                                 # the kiosks' pids, index 1..N

mark() { echo "$1 $EPOCHREALTIME" >> "$timeline"; }
node() { printf 'k%03d' "$1"; }

# --- the broker ---------------------------------------------------------------------------------
# Connections at notice/information level only: 'log_type all' would write a line per PUBLISH,
# and the broker's CPU would be mostly its own log.
port=$(free_port)
{
    [ "$(id -u)" = 0 ] && echo "user root"     # (else it drops to the user mosquitto)
    echo "persistence false"
    echo "log_dest stderr"
    printf 'log_type %s\n' error warning notice information
    echo "connection_messages true"
    echo "log_timestamp true"
    echo "log_timestamp_format %Y-%m-%dT%H:%M:%S"
    echo "sys_interval 1"
    echo "listener $port 127.0.0.1"
    echo "allow_anonymous true"
} > "$work/broker.conf"
broker_pid=
broker_start() {
    echo "--- $1 $EPOCHREALTIME" >> "$work/broker.log"
    mosquitto -c "$work/broker.conf" > /dev/null 2>> "$work/broker.log" &
    broker_pid=$!
    pids+=($!)
}
# listening: waits (10 s at most, probing every 10 ms: the restart's figures start here) until
# the port takes a TCP connection. The probe never says CONNECT, so the log shows it as a
# connection, never as a client.
listening() {
    wait_until --every 0.01 --pid "$broker_pid" 10 takes_connections && return 0
    tail -n 5 "$work/broker.log"
    return 1
}
takes_connections() { (exec 3<> "/dev/tcp/127.0.0.1/$port") 2> /dev/null; }

# --- recorders (mosquitto_sub) and snapshots of /proc ---------------------------------------------
# record NAME ARGS...: mosquitto_sub with ARGS into $work/NAME.rec until the end.
record() {
    local name=$1
    shift
    # (-k 3600: the bench's own clients ping once an hour, not into the kiosks' wire bytes)
    mosquitto_sub -h 127.0.0.1 -p "$port" -k 3600 "$@" > "$work/$name.rec" 2> "$work/$name.rec.err" &
    pids+=($!)
    echo "bench $name $!" >> "$work/bench.pids"
}
stop_recorders() {
    local role name pid
    while read -r role name pid; do kill -TERM "$pid" 2> /dev/null; done < "$work/bench.pids"
    : > "$work/bench.pids"
}
# online FILE: how many kiosks said 'online' in a recording of '%r %U %t %p' lines.
online() { awk '$4 == "online" { split($3, t, "/"); seen[t[2]] = 1 } END { print length(seen) }' "$1" 2> /dev/null || echo 0; }
# wait_online FILE SECONDS: until all kiosks did.
wait_online() { wait_until "$2" all_online "$1"; }
all_online() { [ "$(online "$1")" -ge "$kiosks" ]; }
# alive: how many kiosks still run (a kiosk that died stays a zombie until waited for).
alive() {
    local i n=0
    for i in $(seq "$kiosks"); do
        [ "$(awk '{ print $3 }' "/proc/${kpid[$i]}/stat" 2> /dev/null)" = Z ] || [ ! -e "/proc/${kpid[$i]}" ] || n=$((n + 1))
    done
    echo $n
}
# snapshot NAME: the CPU times, RSS, context switches and run-queue waits of every process
# started here, and the machine's CPU line, into $work/snap-NAME.json.
snapshot() {
    {
        for i in $(seq "$kiosks"); do echo "kiosk $(node "$i") ${kpid[$i]}"; done
        echo "broker broker $broker_pid"
        cat "$work/bench.pids"
    } > "$work/snap-$1.pids"
    python3 - "$work/snap-$1.pids" "$work/snap-$1.json" <<'PY'
import json, os, sys, time
def read(path):
    try:
        with open(path) as f:
            return f.read()
    except OSError:
        return None
procs = {}
for line in open(sys.argv[1]):
    role, name, pid = line.split()
    stat = read("/proc/%s/stat" % pid)
    fields = stat[stat.rindex(")") + 2:].split() if stat else []
    if not fields or fields[0] == "Z":
        procs[name] = {"role": role, "alive": False}
        continue
    status = {}
    for l in (read("/proc/%s/status" % pid) or "").splitlines():
        k, _, v = l.partition(":")
        status[k] = v.split()[0] if v.split() else "0"
    # schedstat per thread: ns on a CPU, ns waiting on a run queue, times it got a CPU.
    threads = {}
    try:
        tids = os.listdir("/proc/%s/task" % pid)
    except OSError:                     # (gone since its stat was read)
        tids = []
    for tid in tids:
        s = (read("/proc/%s/task/%s/schedstat" % (pid, tid)) or "").split()
        if len(s) == 3:
            threads[tid] = [(read("/proc/%s/task/%s/comm" % (pid, tid)) or "?").strip()] + [int(x) for x in s]
    procs[name] = {
        "role": role, "alive": True,
        "cpu_ticks": int(fields[11]) + int(fields[12]),       # utime + stime, all threads
        "rss_kb": int(status.get("VmRSS", 0)), "hwm_kb": int(status.get("VmHWM", 0)),
        # /proc/PID/status counts the main thread only: the kiosk's poll loop
        "voluntary": int(status.get("voluntary_ctxt_switches", 0)),
        "involuntary": int(status.get("nonvoluntary_ctxt_switches", 0)),
        "threads": threads,
    }
cpu = [int(x) for x in open("/proc/stat").readline().split()[1:]]
# PSI: microseconds in which some runnable task waited for a CPU (None without PSI).
psi = next((int(l.split("total=")[1]) for l in (read("/proc/pressure/cpu") or "").splitlines() if l.startswith("some")), None)
json.dump({"time": time.time(), "cpu": cpu, "loadavg": open("/proc/loadavg").read().split()[:3],
           "psi_some_us": psi, "procs": procs}, open(sys.argv[2], "w"))
PY
}
# screens NAME: the retained state of every kiosk now, for the count of screens in the report.
screens() {
    timeout 10 mosquitto_sub -h 127.0.0.1 -p "$port" -t 'bubble-kiosk/+/state' --retained-only -W 3 \
        -C "$kiosks" -F '%t %p' > "$work/screens-$1.txt" 2> /dev/null
}

# --- setup: the broker, the recorders, the fleet --------------------------------------------------
mark begin
: > "$work/bench.pids"
broker_start started
listening || { problem "mosquitto did not start (port $port)"; exit 1; }
log "mosquitto on 127.0.0.1:$port; $kiosks kiosks on virtual:$size; scratch $work"
record all -t '#' -F '%r %U %t %l'
record avail -t 'bubble-kiosk/+/availability' -F '%r %U %t %p'
# (Not $SYS/broker/publish/messages/received: mosquitto 2.0 leaves retained PUBLISHes out of it,
# its packet-type mask keeps the retain bit, and the kiosk retains its state.)
record sys -t '$SYS/broker/bytes/received' -t '$SYS/broker/messages/received' \
    -t '$SYS/broker/publish/bytes/received' -t '$SYS/broker/publish/messages/dropped' -F '%U %t %p'
sleep 0.5                               # (subscribed before the first kiosk says anything)

# kiosk_conf I DEMO: the kiosk's config; DEMO false keeps the start screen still, true starts the
# demo 1 s after it shows (and, on a reload, at once).
kiosk_conf() {
    printf '[mqtt]\nbroker = mqtt://127.0.0.1:%s\nnode_id = %s\n\n[attract]\ndemo = %s\n%s' \
        "$port" "$(node "$1")" "$2" "$([ "$2" = true ] && echo 'demo_after_s = 1')" > "$work/$(node "$1").conf"
}
mark launch
for i in $(seq "$kiosks"); do
    kiosk_conf "$i" false
    n=$(node "$i")
    "$binary" run --display "virtual:$size" --config "$work/$n.conf" --state-dir "$work/$n.state" \
        > "$work/$n.out" 2> "$work/$n.err" &
    kpid[$i]=$!
    pids+=($!)
    # Kiosks do not boot in the same instant: a little spread keeps their 60 s heartbeats apart.
    sleep 0.05
done
if wait_online "$work/avail.rec" $((60 + kiosks / 2)); then
    mark all_online
    log "all $kiosks online $(elapsed "$(awk '$1 == "launch" { print $2 }' "$timeline")") s after the first launch"
else
    # Figures of a partial fleet would mislead: stop here, with a missing kiosk's last words.
    problem "only $(online "$work/avail.rec") of $kiosks kiosks online $((60 + kiosks / 2)) s after the launch ($(alive) running)"
    for i in $(seq "$kiosks"); do
        grep -q "bubble-kiosk/$(node "$i")/availability online" "$work/avail.rec" && continue
        echo "$(node "$i")'s log ends:"; tail -n 5 "$work/$(node "$i").err"
        break
    done
    exit 1
fi
sleep 10                                # the connect burst (discovery, state) stays out of the figures

# --- phase 1: idle ---------------------------------------------------------------------------------
log "idle: ${idle_s} s on the start screen, demo off"
snapshot idle-start
mark idle_start
sleep "$idle_s"
snapshot idle-end
mark idle_end
screens idle
[ "$(alive)" = "$kiosks" ] || problem "kiosks died while idle: $(alive) of $kiosks running"

# --- phase 2: in play --------------------------------------------------------------------------------
log "play: the demo on (reload), 15 s to settle, then ${play_s} s"
for i in $(seq "$kiosks"); do kiosk_conf "$i" true; kill -HUP "${kpid[$i]}" 2> /dev/null; done
mark reload
sleep 15
snapshot play-start
mark play_start
sleep "$play_s"
snapshot play-end
mark play_end
screens play
[ "$(alive)" = "$kiosks" ] || problem "kiosks died in play: $(alive) of $kiosks running"

# --- phase 3: the broker restarted -------------------------------------------------------------------
log "restart: mosquitto stopped (SIGTERM), started again 2 s later; up to ${back_within} s for the fleet to return"
stop_recorders                          # (new ones below, on the new broker)
mark stop
kill -TERM "$broker_pid"
wait_until 10 ended "$broker_pid" || problem "mosquitto still ran 10 s after SIGTERM"
mark gone
sleep "$(awk -v a="$(awk '$1 == "stop" { print $2 }' "$timeline")" -v b="$EPOCHREALTIME" 'BEGIN { d = 2 - (b - a); printf "%.3f", (d > 0 ? d : 0) }')"
broker_start restart
if listening; then
    mark up
    record avail2 -t 'bubble-kiosk/+/availability' -F '%r %U %t %p'
    record all2 -t '#' -F '%r %U %t %l'
    if wait_online "$work/avail2.rec" "$back_within"; then
        mark all_back
        log "all $kiosks back online $(elapsed "$(awk '$1 == "up" { print $2 }' "$timeline")") s after the broker listened"
    else
        mark all_back
        log "only $(online "$work/avail2.rec") of $kiosks back within ${back_within} s (scratch folder kept)"
        keep=1
    fi
    sleep 5                             # the last connects into the log, the burst's messages recorded
else
    problem "mosquitto did not start again"
fi
mark restart_end
[ "$(alive)" = "$kiosks" ] || problem "kiosks died over the restart: $(alive) of $kiosks running"

# --- the end: the kiosks stopped as systemd would, then the report --------------------------------
for i in $(seq "$kiosks"); do kill -TERM "${kpid[$i]}" 2> /dev/null; done
bad_exits=0
for i in $(seq "$kiosks"); do
    rc=0
    if wait_until 15 ended "${kpid[$i]}"; then wait "${kpid[$i]}" 2> /dev/null || rc=$?; else rc=timeout; fi
    [ "$rc" = 0 ] || { bad_exits=$((bad_exits + 1)); echo "$(node "$i"): exit $rc" >> "$work/bad-exits.txt"; }
done
[ "$bad_exits" = 0 ] || problem "$bad_exits kiosks did not exit 0 on SIGTERM (bad-exits.txt)"
crashed=$(grep -lE "$VM_CRASH_RE" "$work"/k*.err 2> /dev/null | wc -l)
[ "$crashed" = 0 ] || problem "$crashed kiosk logs show a crash"
mark end
# The recorders stopped and waited for here (killed in the trap, bash would report each one).
while read -r role name pid; do kill -TERM "$pid" 2> /dev/null; wait "$pid" 2> /dev/null; done < "$work/bench.pids"

python3 - "$work" "$kiosks" "$size" "$idle_s" "$play_s" "$back_within" "$json" "$(mosquitto -h 2>&1 | head -n 1)" <<'PY'
import json, os, re, statistics, sys, time
work, n, size, idle_s, play_s, back_within, json_path, broker_version = sys.argv[1:]
n, back_within = int(n), float(back_within)
hz = os.sysconf("SC_CLK_TCK")
cores = os.cpu_count()
model = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "?")
nodes = ["k%03d" % i for i in range(1, n + 1)]
events = {}
for l in open(os.path.join(work, "timeline")):
    k, v = l.split()
    events.setdefault(k, float(v))

def path(name):
    return os.path.join(work, name)

def spread(values):
    values = sorted(values)
    if not values:
        return None
    return {"min": values[0], "median": statistics.median(values), "max": values[-1],
            "mean": sum(values) / len(values)}

def snap(name):
    try:
        return json.load(open(path("snap-%s.json" % name)))
    except (OSError, ValueError):
        return None

def recording(name):
    """The lines of a recorder file, split: retain flag, time, topic, last field."""
    rows = []
    try:
        for line in open(path(name + ".rec"), errors="replace"):
            parts = line.rstrip("\n").split(" ", 3)
            if len(parts) == 4:
                rows.append((parts[0], float(parts[1]), parts[2], parts[3]))
    except OSError:
        pass
    return rows

def classify(topic):
    """(node, kind) of a kiosk's topic; (None, 'other') for anything else."""
    p = topic.split("/")
    if p[0] == "bubble-kiosk" and len(p) >= 3:
        return p[1], p[2] if p[2] in ("availability", "state", "event", "screenshot") else "other"
    if p[0] == "homeassistant" and len(p) == 5 and p[4] == "config":
        return p[2], "discovery"
    return None, "other"

KINDS = ["state", "event", "availability", "discovery", "screenshot", "other"]

def traffic(rows, t0, t1):
    """Per node: messages and topic+payload bytes sent in [t0, t1), and counts by kind."""
    msgs = {k: 0 for k in nodes}
    nbytes = {k: 0 for k in nodes}
    kinds = {k: 0 for k in KINDS}
    unattributed = 0
    for retained, ts, topic, length in rows:
        if retained == "1" or not t0 <= ts < t1:   # (retained: delivered on subscribing, sent earlier)
            continue
        node, kind = classify(topic)
        if node not in msgs:
            unattributed += 1
            continue
        msgs[node] += 1
        nbytes[node] += len(topic.encode()) + int(length)
        kinds[kind] += 1
    return msgs, nbytes, kinds, unattributed

def sys_rate(t0, t1):
    """Per-second rates of the $SYS counters over [t0, t1]. The broker publishes a counter only
    when it changed, so the value at a time is the latest one published before it."""
    series = {}
    for line in open(path("sys.rec"), errors="replace"):
        parts = line.split()
        if len(parts) == 3:
            try:
                series.setdefault(parts[1], []).append((float(parts[0]), float(parts[2])))
            except ValueError:
                pass
    rates = {}
    for topic, values in series.items():
        before = [v for v in values if v[0] <= t0]
        upto = [v for v in values if v[0] <= t1]
        if before and upto:
            rates[topic.replace("$SYS/broker/", "")] = (upto[-1][1] - before[-1][1]) / (t1 - t0)
    return rates

def screens(name):
    counts = {}
    try:
        for line in open(path("screens-%s.txt" % name), errors="replace"):
            m = re.search(r'"screen":"([a-z_]+)"', line)
            if m:
                counts[m.group(1)] = counts.get(m.group(1), 0) + 1
    except OSError:
        pass
    return counts

def cpu_wait(p0, p1):
    """Seconds the threads of a process waited on a run queue between two snapshots: those that
    got a CPU meanwhile, and apart from them those that never did. (The second kind showed up
    here as single kiosks 'waiting' 30-50 % of a phase in which they slept, on a machine with
    idle cores: not a wait for a CPU, so left out of the figure and only counted.)"""
    counted = apart = 0
    for tid, (comm, run, wait, slices) in p1["threads"].items():
        _, run0, wait0, slices0 = p0["threads"].get(tid, [comm, 0, 0, 0])
        if slices > slices0:
            counted += wait - wait0
        else:
            apart += wait - wait0
    return counted / 1e9, apart / 1e9

def phase(name, label, plays):
    a, b = snap(name + "-start"), snap(name + "-end")
    if not a or not b:
        return None
    t0, t1 = a["time"], b["time"]
    wall = t1 - t0
    per_hour = 3600.0 / wall
    msgs, nbytes, kinds, unattributed = traffic(recording("all"), t0, t1)
    rates = sys_rate(t0, t1)
    kiosk = {k: [] for k in ("cpu_pct", "rss_mib", "hwm_mib", "wakeups_per_s", "preempted_per_s", "cpu_wait_pct")}
    groups = {"kiosk": 0.0, "broker": 0.0, "bench": 0.0}
    broker, stood_still, waits_apart = {}, [], []
    for name_, p1 in b["procs"].items():
        p0 = a["procs"].get(name_)
        if not p0 or not p0.get("alive") or not p1.get("alive"):
            continue
        cpu = 100.0 * (p1["cpu_ticks"] - p0["cpu_ticks"]) / hz / wall
        groups[p1["role"]] += cpu
        wait, apart = cpu_wait(p0, p1)
        if apart > 1:
            waits_apart.append([name_, round(apart, 1)])
        if p1["role"] == "kiosk":
            kiosk["cpu_pct"].append(cpu)
            kiosk["rss_mib"].append(p1["rss_kb"] / 1024)
            kiosk["hwm_mib"].append(p1["hwm_kb"] / 1024)
            wakeups = (p1["voluntary"] - p0["voluntary"]) / wall
            kiosk["wakeups_per_s"].append(wakeups)
            kiosk["preempted_per_s"].append((p1["involuntary"] - p0["involuntary"]) / wall)
            kiosk["cpu_wait_pct"].append(100.0 * wait / wall)
            # A demo draws some 40 frames a second; a few wake-ups a second is a still screen.
            if plays and wakeups < 5:
                stood_still.append(name_)
        elif p1["role"] == "broker":
            broker = {"cpu_pct": cpu, "rss_mib": p1["rss_kb"] / 1024, "cpu_wait_pct": 100.0 * wait / wall}
    # /proc/stat: user nice system idle iowait irq softirq steal ...
    d = [y - x for x, y in zip(a["cpu"], b["cpu"])]
    total = sum(d[:8]) or 1
    busy = d[0] + d[1] + d[2] + d[5] + d[6]
    machine = {"cores": cores, "busy_pct_of_all": 100.0 * busy / total,
               "steal_pct_of_all": 100.0 * d[7] / total, "loadavg_1min": float(b["loadavg"][0])}
    machine_busy_core_pct = 100.0 * busy / hz / wall
    machine["others_core_pct"] = machine_busy_core_pct - sum(groups.values())
    if a.get("psi_some_us") is not None and b.get("psi_some_us") is not None:
        machine["cpu_pressure_some_pct"] = 100.0 * (b["psi_some_us"] - a["psi_some_us"]) / 1e6 / wall
    return {
        "label": label, "seconds": wall, "kiosks_measured": len(kiosk["cpu_pct"]),
        "publish_per_kiosk_hour": spread([msgs[k] * per_hour for k in nodes]),
        "publish_by_topic_per_kiosk_hour": {k: v * per_hour / n for k, v in kinds.items()},
        "topic_payload_bytes_per_kiosk_hour": spread([nbytes[k] * per_hour for k in nodes]),
        "unattributed_messages": unattributed,
        "broker_sys_per_kiosk_hour": {
            "wire_bytes_received": rates.get("bytes/received", 0) * 3600 / n,
            "packets_received": rates.get("messages/received", 0) * 3600 / n,
            "publish_payload_bytes_received": rates.get("publish/bytes/received", 0) * 3600 / n,
        },
        "broker_publish_dropped_per_s": rates.get("publish/messages/dropped", 0),
        "kiosk": {k: spread(v) for k, v in kiosk.items()},
        "cpu_core_pct": {"kiosks": groups["kiosk"], "broker": groups["broker"], "bench_clients": groups["bench"]},
        "broker": broker,
        "machine": machine,
        "screens_at_end": screens(name),
        "kiosks_stood_still": sorted(stood_still),
        "run_queue_waits_left_out_s": sorted(waits_apart),
    }

def restart():
    if "up" not in events:
        return None
    up = events["up"]
    rows = recording("avail2")
    first, before_sub = {}, 0
    for retained, ts, topic, payload in rows:
        node, _ = classify(topic)
        if payload == "online" and node in nodes and node not in first:
            first[node] = ts
            before_sub += retained == "1"   # back before the recorder subscribed: ts is an upper bound
    back = sorted(first[k] - up for k in first)
    within = [t for t in back if t <= back_within]
    # Connects per second, from the log after the restart's marker (timestamps in whole seconds).
    lines = open(path("broker.log"), errors="replace").read().split("\n--- restart ", 1)
    connects, ids = {}, []
    if len(lines) == 2:
        for line in lines[1].splitlines():
            m = re.match(r"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d): New client connected from \S+ as bubble-kiosk-(\S+) ", line)
            if m:
                second = int(time.mktime(time.strptime(m.group(1), "%Y-%m-%dT%H:%M:%S")) - int(up))
                connects[second] = connects.get(second, 0) + 1
                ids.append(m.group(2))
    hist = [[s, connects.get(s, 0)] for s in range(min(connects, default=0), max(connects, default=-1) + 1)]
    # The reconnect burst: what the kiosks sent from the broker's start until the end of the phase.
    msgs, nbytes, kinds, _ = traffic(recording("all2"), up, events.get("restart_end", up + 1e9))
    q = lambda f: back[min(len(back) - 1, int(f * len(back)))] if back else None
    return {
        "stopped_to_gone_s": events["gone"] - events["stop"],
        "stopped_to_listening_s": up - events["stop"],
        "back_s": {"first": back[0] if back else None, "median": statistics.median(back) if back else None,
                   "p90": q(0.9), "last": back[-1] if back else None},
        "all_back_s": back[-1] if len(within) == n else None,
        "back_within_bound": len(within), "bound_s": back_within, "not_back": n - len(within),
        "back_before_recorder_subscribed": before_sub,
        "connects_total": len(ids), "connects_distinct_kiosks": len(set(ids)),
        "connects_peak_per_s": max(connects.values(), default=0),
        "connects_per_s_histogram": hist,
        "burst_per_kiosk": {"messages": sum(msgs.values()) / n, "topic_payload_bytes": sum(nbytes.values()) / n,
                            "by_topic": {k: v / n for k, v in kinds.items() if v}},
    }

def span(a, b):
    return round(events[b] - events[a], 1) if a in events and b in events else None

result = {
    "machine": {"nproc": cores, "model": model, "kernel": os.uname().release},
    "loaded_machine": n > cores,
    "kiosks": n, "display": "virtual:" + size, "keepalive_s": 30, "broker": broker_version,
    "idle": phase("idle", "idle: start screen, demo off", False),
    "play": phase("play", "in play: the demo on", True),
    "restart": restart(),
    "durations_s": {
        "launch_to_all_online": span("launch", "all_online"), "idle": span("idle_start", "idle_end"),
        "reload_to_play_measured": span("reload", "play_start"), "play": span("play_start", "play_end"),
        "restart": span("stop", "restart_end"), "stop_fleet": span("restart_end", "end"),
        "total": span("begin", "end"),
    },
}

# --- the table -----------------------------------------------------------------------------------
def num(v, digits=1):
    if v is None:
        return "-"
    if abs(v) >= 1000:
        return "{:,.0f}".format(v)
    return "{:.{}f}".format(v, digits)

def row(label, s, digits=1, extra=""):
    if s is None:
        print("  %-44s %s" % (label, "-"))
        return
    print("  %-44s %10s %10s %10s %10s%s" % (label, num(s["min"], digits), num(s["median"], digits),
                                              num(s["max"], digits), num(s["mean"], digits), extra))

print()
print("fleet-bench: %d kiosks on virtual:%s against %s on loopback, keepalive 30 s" % (n, size, broker_version))
print("machine: %d x %s (nproc %d), kernel %s" % (cores, model, cores, os.uname().release))
if n > cores:
    print("NOTE: %d kiosks share %d cores here: these are loaded-machine figures (a kiosk has its board to itself)" % (n, cores))
for key in ("idle", "play"):
    p = result[key]
    if not p:
        print("\n== %s: not measured" % key)
        continue
    print("\n== %s; %.0f s measured, %d kiosks" % (p["label"], p["seconds"], p["kiosks_measured"]))
    print("  %-44s %10s %10s %10s %10s" % ("per kiosk", "min", "median", "max", "mean"))
    row("PUBLISH messages sent / h (application)", p["publish_per_kiosk_hour"])
    for k, v in p["publish_by_topic_per_kiosk_hour"].items():
        if v:
            print("  %-44s %43s" % ("  of which %s / h" % k, num(v)))
    row("topic+payload bytes sent / h", p["topic_payload_bytes_per_kiosk_hour"], 0)
    s = p["broker_sys_per_kiosk_hour"]
    print("  %-44s %43s" % ("bytes on the wire / h ($SYS bytes/received / N)", num(s["wire_bytes_received"], 0)))
    print("  %-44s %43s" % ("  packets / h (PUBLISH, PINGREQ, ...)", num(s["packets_received"])))
    print("  %-44s %43s" % ("  PUBLISH payload bytes / h (broker's count)", num(s["publish_payload_bytes_received"], 0)))
    row("CPU, % of one core (utime+stime)", p["kiosk"]["cpu_pct"], 2)
    row("RSS, MiB (VmRSS at the end)", p["kiosk"]["rss_mib"])
    row("loop wake-ups / s (main thread)", p["kiosk"]["wakeups_per_s"])
    row("preempted / s (main thread)", p["kiosk"]["preempted_per_s"])
    row("waiting for a CPU, % of the time", p["kiosk"]["cpu_wait_pct"], 2)
    b = p["broker"]
    print("  broker: CPU %s %% of one core, RSS %s MiB, waiting for a CPU %s %%; PUBLISH dropped %s / s"
          % (num(b.get("cpu_pct"), 2), num(b.get("rss_mib")), num(b.get("cpu_wait_pct"), 2), num(p["broker_publish_dropped_per_s"], 2)))
    c, m = p["cpu_core_pct"], p["machine"]
    print("  machine: %s %% of its %d cores busy (in %% of one core: kiosks %s, broker %s, bench's mosquitto_sub %s, others %s)"
          % (num(m["busy_pct_of_all"]), cores, num(c["kiosks"]), num(c["broker"]), num(c["bench_clients"]), num(m["others_core_pct"])))
    print("           steal %s %%, load %s, CPU pressure (PSI: some task waiting for a CPU) %s %% of the time"
          % (num(m["steal_pct_of_all"]), m["loadavg_1min"], num(m.get("cpu_pressure_some_pct"))))
    if p["kiosks_stood_still"]:
        print("  NOTE: %d kiosks' demo stood still (under 5 wake-ups a second; they count in the figures above): %s"
              % (len(p["kiosks_stood_still"]), " ".join(p["kiosks_stood_still"])))
    if p["run_queue_waits_left_out_s"]:
        print("  (run-queue waits of threads that never got a CPU in the phase, left out: %s)"
              % ", ".join("%s %s s" % tuple(x) for x in p["run_queue_waits_left_out_s"]))
    print("  screens at the end (retained state): %s" % (", ".join("%s %d" % kv for kv in sorted(p["screens_at_end"].items())) or "none"))
r = result["restart"]
print()
if not r:
    print("== broker restart: not measured")
else:
    print("== broker restart: SIGTERM, the same port again after 2 s")
    print("  broker gone %.2f s after SIGTERM, listening again %.2f s after it" % (r["stopped_to_gone_s"], r["stopped_to_listening_s"]))
    bs = r["back_s"]
    print("  back online (from listening): first %s s, median %s s, 90 %% %s s, last %s s; %d of %d back within %.0f s, %d not"
          % (num(bs["first"], 2), num(bs["median"], 2), num(bs["p90"], 2), num(bs["last"], 2),
             r["back_within_bound"], n, r["bound_s"], r["not_back"]))
    if r["back_before_recorder_subscribed"]:
        print("  (%d were back before the bench's subscriber: their time is an upper bound)" % r["back_before_recorder_subscribed"])
    print("  connects: %d from %d kiosks; peak %d in one second. Per second (broker log; +0 = the second it listened):"
          % (r["connects_total"], r["connects_distinct_kiosks"], r["connects_peak_per_s"]))
    # A spread longer than 40 s is shown in bins of several seconds, to stay readable.
    hist = r["connects_per_s_histogram"]
    width = max(1, -(-len(hist) // 40))
    bins = [(hist[i][0], sum(c for _, c in hist[i:i + width])) for i in range(0, len(hist), width)]
    peak = max([c for _, c in bins] + [1])
    if width > 1:
        print("    (in bins of %d s)" % width)
    for second, count in bins:
        print("    %+4d s %5d %s" % (second, count, "#" * max(1 if count else 0, round(50 * count / peak))))
    bp = r["burst_per_kiosk"]
    print("  the reconnect per kiosk: %s messages, %s topic+payload bytes (%s)"
          % (num(bp["messages"]), num(bp["topic_payload_bytes"], 0), ", ".join("%s %s" % (k, num(v)) for k, v in bp["by_topic"].items())))
d = result["durations_s"]
print("\n== durations (s): launch to all online %s, idle %s, reload to play measured %s, play %s, restart %s, stopping the fleet %s; total %s"
      % tuple(num(d[k]) for k in ("launch_to_all_online", "idle", "reload_to_play_measured", "play", "restart", "stop_fleet", "total")))
if n > cores:
    print("NOTE: loaded-machine figures: %d kiosks on %d cores" % (n, cores))
if json_path:
    with open(json_path, "w") as f:
        json.dump(result, f, indent=1)
        f.write("\n")
    print("figures as JSON: %s" % json_path)
PY
[ $? = 0 ] || problem "the report failed"
[ "$failed" = 0 ]
