# Shared helpers for the Tests/fleet scripts (the MQTT test, the Home Assistant test, the fleet
# bench). Source it after Tests/vm/lib.sh (the checks, and packaging/lib.sh), do not run it.

# fleet_test_args SPEC "$@": a fleet script's arguments, `BINARY [--keep]` and those in SPEC
# (parse_args's words, '' for none): sets $binary (an absolute path, which must be executable)
# and $keep.
fleet_test_args() {
    binary= keep=0
    parse_args "binary --keep:keep=1 $1" "${@:2}"
    [ -x "$binary" ] || die "no binary at $binary"
    binary=$(cd "$(dirname "$binary")" && pwd)/$(basename "$binary")
}

# fleet_scratch NAME LIMIT_S FAILED_VAR: a scratch folder in $work (/tmp/NAME.XXXXXX), the array
# $pids of background processes (each killed at the end), and a watchdog that ends the run after
# LIMIT_S seconds however it goes. At exit the folder is removed unless $keep is 1 or the
# variable named FAILED_VAR is not 0.
fleet_scratch() {
    local name=$1 limit=$2
    fleet_failed_var=$3
    work=$(mktemp -d "/tmp/$name.XXXXXX")
    pids=()
    trap fleet_cleanup EXIT
    (
        trap 'kill "$s" 2> /dev/null; exit 0' TERM
        sleep "$limit" & s=$!
        wait "$s"
        echo "$name: stopped after $limit s" >&2
        kill -TERM $$
    ) &
    fleet_watchdog=$!
    trap 'exit 3' TERM INT
}
fleet_cleanup() {
    local p
    kill -TERM "$fleet_watchdog" 2> /dev/null
    for p in "${pids[@]}"; do kill -KILL "$p" 2> /dev/null; done
    wait 2> /dev/null
    if [ "${keep:-0}" = 1 ] || [ "${!fleet_failed_var:-0}" != 0 ]; then
        echo "--- scratch folder kept: $work"
    else
        rm -rf "$work"
    fi
}

# A free TCP port on loopback.
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
# lines FILE: how many complete lines it has (a mark for "after this").
lines() { wc -l < "$1" 2> /dev/null || echo 0; }

# kiosk_exit NAME SECONDS: waits for the kiosk $kiosk_pid[NAME] to exit; sets kiosk_rc to its
# exit status ("running" when it still runs after SECONDS). In the shell whose child it is.
kiosk_rc=
kiosk_exit() {
    local pid=${kiosk_pid[$1]}
    kiosk_rc=0
    if ! wait_until "$2" ended "$pid"; then kiosk_rc=running; return; fi
    wait "$pid" 2> /dev/null || kiosk_rc=$?
}
