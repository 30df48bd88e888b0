#!/bin/bash
# The same answers on both architectures: the arm64 build, run under qemu-user, against this
# machine's build, on the commands whose output is the game's logic (state, play, gestures,
# round-recording, check-config, play --audio-out): several seeds, sizes, modes and rotations,
# rounds recorded by round-recording, the recordings of real panels in the test fixtures, and
# broken inputs. Standard output, standard error and the exit status must match byte for byte.
#
# usage: Tests/arm64/same-answers.sh --arm64 BIN --host BIN --sysroot DIR [--workdir DIR]
#   --arm64 BIN    the arm64 bubble-kiosk (make release-arm64)
#   --host BIN     this machine's bubble-kiosk (make release)
#   --sysroot DIR  a root holding the arm64 shared libraries (the arm64 build environment)
#   --workdir DIR  the inputs and both builds' outputs (default: a new /tmp/same-answers.* dir)
# Ends with "same-answers: N passed, M failed"; exit 0 only when nothing failed.
set -uo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
. "$repo/packaging/lib.sh"

arm64= host= sysroot= work=
parse_args '--arm64=arm64 --host=host --sysroot=sysroot --workdir=work' "$@"
[ -x "$arm64" ] && [ -x "$host" ] && [ -d "$sysroot" ] || die "needs --arm64 BIN, --host BIN and --sysroot DIR"
arm64=$(realpath "$arm64") host=$(realpath "$host")
need_host_packages qemu-user-static
[ -n "$work" ] || work=$(mktemp -d /tmp/same-answers.XXXXXX)
mkdir -p "$work"
fixtures=$repo/Tests/KioskCoreTests/Fixtures
t0=$(now)

# Inputs made here: configs (rotations, a changed game, broken ones) and recorded rounds.
cat > "$work/rot90.conf" <<'CONF'
[display]
rotation = 90
CONF
cat > "$work/rot270-timed.conf" <<'CONF'
[display]
rotation = 270
[game]
modes = timed
CONF
cat > "$work/broken.conf" <<'CONF'
[display]
rotation = 45
brightness = lots
[gestures]
tap_slop_mm = -3
swipe_min_velocity_mm_s = 1e999
[scoring]
tap_bubble = 99999999999999999999
[nonsense]
key = value
no equals sign here
[display
CONF
printf '[game]\nround_seconds = 0x10\n\xff\xfe = \x01\n' > "$work/bytes.conf"
"$host" check-config --example > "$work/example.conf"
for seed in 3 11; do
    for size in 800x480 1280x800; do
        "$host" round-recording --seed $seed --size $size --pop 5 > "$work/round-$seed-$size.evemu"
    done
done
head -c 3000 "$work/round-3-800x480.evemu" > "$work/truncated.evemu"

passed=0 failed=0
# same NAME ARGS...: runs both builds with ARGS (in $work), compares what they print and return.
# An argument @FILE@ becomes NAME.host.file and NAME.arm64.file, and those files must match too.
same() {
    local name=$1; shift
    (cd "$work" && "$host" "${@/#@FILE@/$name.host.file}" > "$name.host.out" 2> "$name.host.err"
        echo $? > "$name.host.rc")
    (cd "$work" && qemu-aarch64-static -L "$sysroot" "$arm64" "${@/#@FILE@/$name.arm64.file}" \
        > "$name.arm64.out" 2> "$name.arm64.err"; echo $? > "$name.arm64.rc")
    local what whats=(out err rc)
    [ -e "$work/$name.host.file" ] && whats+=(file)
    for what in "${whats[@]}"; do
        if ! cmp -s "$work/$name.host.$what" "$work/$name.arm64.$what"; then
            failed=$((failed + 1))
            echo "FAIL $name: $* ($what differs; rc host $(cat "$work/$name.host.rc"), arm64 $(cat "$work/$name.arm64.rc"))"
            diff "$work/$name.host.$what" "$work/$name.arm64.$what" | head -n 8 | sed 's/^/       /'
            return
        fi
    done
    # A case that printed nothing compares nothing: every case must say something.
    if [ ! -s "$work/$name.host.out" ] && [ ! -s "$work/$name.host.err" ]; then
        failed=$((failed + 1)); echo "FAIL $name: $* (no output at all)"; return
    fi
    passed=$((passed + 1))
    [ "${VERBOSE:-0}" = 1 ] && echo "ok   $name: $*"
    return 0
}

for seed in 1 3 7 42 123456789; do
    for size in 800x480 1024x600 1280x800 720x1280 1920x1080; do
        same "state-$seed-$size" state --seed $seed --size $size
    done
done
for mode in classic timed joystick; do
    for size in 800x480 1280x800 3840x2160; do
        same "state-$mode-$size" state --seed 5 --size $size --mode $mode
    done
done
same state-rot90 state --seed 9 --size 800x480 --config rot90.conf
same state-rot270-timed state --seed 9 --size 720x1280 --config rot270-timed.conf --mode timed
same state-tiny state --seed 1 --size 30x20
same state-absurd-size state --seed 1 --size 99999999x1
same state-bad-seed state --seed -x --size 800x480
for seed in 3 11; do
    for size in 800x480 1280x800; do
        same "recording-$seed-$size" round-recording --seed $seed --size $size --pop 5
        same "play-$seed-$size" play "round-$seed-$size.evemu" --seed $seed --size $size
        same "play-joystick-$seed-$size" play "round-$seed-$size.evemu" --seed $seed --size $size --mode joystick
        same "gestures-round-$seed-$size" gestures "round-$seed-$size.evemu" --size $size --moves
    done
done
same play-rot90 play round-3-800x480.evemu --seed 3 --size 800x480 --config rot90.conf
same play-truncated play truncated.evemu --seed 3 --size 800x480
same play-missing play no-such-file.evemu --seed 3 --size 800x480
# The fixtures: real panels (QEMU's tablet, protocol A and B devices, single-touch panels),
# operator gestures and malformed recordings.
for f in "$fixtures"/*.evemu; do
    n=$(basename "$f" .evemu)
    same "gestures-$n" gestures "$f" --size 1280x800 --moves
    same "gestures-rot-$n" gestures "$f" --size 800x480 --config rot90.conf
    same "play-$n" play "$f" --seed 2 --size 1280x800
done
same check-config-example check-config --example
same check-config-defaults check-config example.conf
same check-config-rot check-config rot90.conf
same check-config-broken check-config broken.conf
same check-config-bytes check-config bytes.conf
same check-config-missing check-config no-such.conf
same check-config-folder check-config .
# The mixer's arithmetic: the sound a round would play, sample for sample.
same audio-round play round-3-800x480.evemu --seed 3 --size 800x480 --audio-out @FILE@
echo "--- same-answers took $(elapsed "$t0") s under qemu-user"
echo "same-answers: $passed passed, $failed failed"
[ $failed = 0 ]
