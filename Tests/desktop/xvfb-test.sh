#!/usr/bin/env bash
# bubble-kiosk-desktop under a real X server: Xvfb, the mouse driven by xdotool.
#
#   bash Tests/desktop/xvfb-test.sh [--bin-dir .build/debug]
#
# 1. ldd: the kiosk binary links no SDL; the desktop one does.
# 2. The desktop binary opens its window on Xvfb (1280x800), idles without waking (X11's
#    descriptor, no timer), then xdotool presses Start and pops every bubble of the round
#    `bubble-kiosk state` prints for the seed: clicks for tap bubbles (as many as they need), a
#    mousedown/mousemove/mouseup drag along the arrow for swipe bubbles; one bubble is popped by
#    a click while a Shift-click's parked second finger is down.
# 3. The kiosk's --status lines must reach `screen=round-over ... bubbles=0/10` with a score; a
#    screenshot of the X screen (`import -window root`) must show the kiosk's own frame (its
#    SIGUSR1 screenshot) and differ from the start screen.
# 4. xdotool resizes the window to 960x600: the kiosk lays out again (status and log name the
#    size), a click on the new Start button starts a round, and the window's pixels match the
#    kiosk's 960x600 frame. Closing the window (WM_DELETE_WINDOW, what a window manager's close
#    button sends: wm-close.py) must end the program with status 0.
# Every wait is bounded; Xvfb and the kiosk are killed on any exit.
set -euo pipefail
. "$(dirname "$0")/../../packaging/lib.sh"
cd "$(dirname "$0")/../.."
BIN_DIR=.build/debug
parse_args '--bin-dir=BIN_DIR' "$@"
KIOSK=$BIN_DIR/bubble-kiosk
DESKTOP=$BIN_DIR/bubble-kiosk-desktop
for tool in Xvfb xdotool import convert python3; do
    command -v $tool >/dev/null || { echo "FAIL: $tool is missing (make deps installs it)"; exit 1; }
done
OUT=build/desktop-test
rm -rf "$OUT"; mkdir -p "$OUT"
SEED=42
SIZE=1280x800
failures=0
pass() { echo "ok   $*"; }
fail() { echo "FAIL $*"; failures=$((failures + 1)); }
started=$(date +%s.%N)

# --- 1. what each binary links ---------------------------------------------------------------
# (libX11 itself comes into the kiosk through libcairo, as it always has; the kiosk never uses it.)
# ldd's output is read whole first: under pipefail, `ldd | grep -q` fails when grep stops reading
# at the first match and ldd dies of SIGPIPE.
kiosk_libs=$(ldd "$KIOSK")
desktop_libs=$(ldd "$DESKTOP")
if grep -qiE 'libSDL|libwayland' <<< "$kiosk_libs"; then fail "bubble-kiosk links SDL: $(grep -iE 'sdl|wayland' <<< "$kiosk_libs" | tr -s ' \t' ' ')"
else pass "bubble-kiosk links no SDL (ldd)"; fi
if grep -q 'libSDL2' <<< "$desktop_libs"; then pass "bubble-kiosk-desktop links SDL2"
else fail "bubble-kiosk-desktop does not link SDL2"; fi

# --- 2. Xvfb and the window ------------------------------------------------------------------
N=""
for n in $(seq 91 120); do
    [ -e /tmp/.X11-unix/X$n ] || [ -e /tmp/.X$n-lock ] || { N=$n; break; }
done
[ -n "$N" ] || { echo "FAIL: no free X display number"; exit 1; }
export DISPLAY=:$N
unset WAYLAND_DISPLAY
XVFB_PID=""; KIOSK_PID=""
cleanup() {
    [ -n "$KIOSK_PID" ] && kill "$KIOSK_PID" 2>/dev/null || true
    [ -n "$XVFB_PID" ] && kill "$XVFB_PID" 2>/dev/null || true
    wait 2>/dev/null || true
}
trap cleanup EXIT
Xvfb ":$N" -screen 0 ${SIZE}x24 -nolisten tcp -noreset >"$OUT/xvfb.log" 2>&1 &
XVFB_PID=$!
wait_until 5 xdotool getdisplaygeometry >/dev/null 2>&1 || { echo "FAIL: Xvfb :$N did not start"; cat "$OUT/xvfb.log"; exit 1; }

# Density fixed so `state` and the window lay out the same round (Xvfb reports its own DPI);
# classic alone, so the one Start button is the centred one the clicks below aim at.
cat > "$OUT/kiosk.conf" <<CONF
[display]
px_per_mm = 4
[attract]
demo = false
[modes]
timed = false
joystick = false
CONF
"$KIOSK" state --seed $SEED --size $SIZE --config "$OUT/kiosk.conf" > "$OUT/state.json"

"$DESKTOP" run --config "$OUT/kiosk.conf" --seed $SEED --status --stats --state-dir "$OUT/state" \
    --duration 90 --screenshot "$OUT/kiosk-exit.png" >"$OUT/status.log" 2>"$OUT/stderr.log" &
KIOSK_PID=$!
wait_for() { wait_until --pid "$KIOSK_PID" "$3" log_has "$1" "$2"; }  # FILE PATTERN SECONDS
if wait_for "$OUT/stderr.log" "first frame on screen" 15; then pass "window open: $(grep -o 'display window[^,]*' "$OUT/stderr.log")"
else fail "no first frame in 15 s"; cat "$OUT/stderr.log"; exit 1; fi
WID=$(timeout 5 xdotool search --sync --name '^bubble-kiosk$' | head -1) || true
[ -n "$WID" ] && pass "window $WID mapped" || fail "no window named bubble-kiosk"

# Idle on the start screen: only the status line's timer wakes the loop (about 1 a second).
sleep 2.2
w1=$(grep -o 'wakeups=[0-9]*' "$OUT/status.log" | tail -1 | cut -d= -f2)
sleep 2
w2=$(grep -o 'wakeups=[0-9]*' "$OUT/status.log" | tail -1 | cut -d= -f2)
if [ -n "$w1" ] && [ -n "$w2" ] && [ $((w2 - w1)) -le 6 ]; then pass "idle window: $((w2 - w1)) wake-ups in 2 s"
else fail "idle window woke $((w2 - ${w1:-0})) times in 2 s (want at most 6)"; fi
import -window root "$OUT/start.png"

# --- 3. play the round with the mouse --------------------------------------------------------
python3 - "$OUT/state.json" > "$OUT/moves.txt" 2> "$OUT/parked.txt" <<'PY'
import json, math, sys
s = json.load(open(sys.argv[1]))
mm = s["px_per_mm"]
# The Start button: centred, 10 mm below the middle (KioskGame.button).
print("mousemove %d %d click 1 sleep 1.0" % (s["width"] / 2, s["height"] / 2 + 10 * mm))
# The first one-tap bubble is left out: the parked-finger check pops it (printed to stderr).
parked = next((b for b in s["bubbles"] if b["kind"] == "tap" and b["taps"] == 1), None)
if parked:
    sys.stderr.write("%d %d\n" % (round(parked["x"]), round(parked["y"])))
for b in s["bubbles"]:
    x, y = b["x"], b["y"]
    if b is parked:
        continue
    if b["kind"] == "tap":
        print(" ".join(["mousemove %d %d" % (round(x), round(y))] + ["click 1 sleep 0.15"] * b["taps"]) + " sleep 0.25")
    elif b["kind"] == "drag":
        # Carried into the goal basket in 10 steps and dropped there.
        g = s["goal"]
        gx, gy = g["x"] + g["width"] / 2, g["y"] + g["height"] / 2
        steps = ["mousemove %d %d" % (round(x + (gx - x) * k / 10), round(y + (gy - y) * k / 10)) for k in range(1, 11)]
        print("mousemove %d %d mousedown 1 sleep 0.03 %s sleep 0.1 mouseup 1 sleep 0.5" % (round(x), round(y), " sleep 0.03 ".join(steps)))
    else:
        # 25 mm along the arrow in 5 steps, 15 ms apart, lifted with the last step: the window
        # stamps events when the loop takes them, so a lift sent apart from the last move could
        # look like a rest (over 40 ms) on a busy machine, and a rest is no swipe.
        a = math.radians(b["angle_deg"])
        steps = ["mousemove %d %d" % (round(x + math.cos(a) * 25 * mm * k / 5), round(y + math.sin(a) * 25 * mm * k / 5))
                 for k in range(1, 6)]
        print("mousemove %d %d mousedown 1 sleep 0.015 %s mouseup 1 sleep 0.35" % (round(x), round(y), " sleep 0.015 ".join(steps)))
PY
play_start=$(date +%s.%N)
# shellcheck disable=SC2046
timeout 10 xdotool $(head -1 "$OUT/moves.txt")
# The parked second finger: a Shift-click on a one-tap bubble leaves a finger down there (held,
# so no tap: the bubble stays); a plain click beside it is the first finger and pops the bubble
# while the parked one is still down; the next Shift-click lifts the parked finger.
if read -r px py < "$OUT/parked.txt" && [ -n "$px" ]; then
    timeout 5 xdotool mousemove "$px" "$py" keydown shift click 1 keyup shift
    sleep 1.3
    if tail -1 "$OUT/status.log" | grep -q "screen=playing .*bubbles=10/10"; then pass "Shift-click parks a finger: held, no tap"
    else fail "after a Shift-click: $(tail -1 "$OUT/status.log") (want the bubble still there)"; fi
    timeout 5 xdotool mousemove "$((px + 8))" "$py" click 1
    if wait_for "$OUT/status.log" "bubbles=9/10" 3; then pass "a click with the parked finger down pops the bubble"
    else fail "a click beside the parked finger: $(tail -1 "$OUT/status.log")"; fi
    timeout 5 xdotool mousemove 20 20 keydown shift click 1 keyup shift sleep 0.3
else
    fail "no one-tap bubble for the parked-finger check"
fi
tail -n +2 "$OUT/moves.txt" | while read -r line; do
    # shellcheck disable=SC2086
    timeout 10 xdotool $line
done
play_end=$(date +%s.%N)
if wait_for "$OUT/status.log" "screen=round-over score=[1-9][0-9]* bubbles=0/10" 5; then
    pass "round over, every bubble popped: $(grep -m1 -o 'screen=round-over score=[0-9]* bubbles=[0-9/]*' "$OUT/status.log")"
else
    fail "the round did not end with every bubble popped: $(tail -1 "$OUT/status.log")"
fi
sleep 1.5  # the last pop's particles settle
import -window root "$OUT/final.png"
# shot N: the kiosk's own picture (SIGUSR1 writes state/screenshot.png), copied to FILE.
shot() {
    kill -USR1 "$KIOSK_PID"
    wait_until 5 screenshots "$1" && cp "$OUT/state/screenshot.png" "$2"
}
screenshots() { [ "$(grep -c 'screenshot written to' "$OUT/stderr.log")" -ge "$1" ]; }
shot 1 "$OUT/kiosk-final.png" || fail "no SIGUSR1 screenshot of the round-over screen"

# --- 4. resizing the window lays the game out again; closing it ends the program ------------
if [ -n "$WID" ]; then
    timeout 5 xdotool windowsize "$WID" 960 600
    if wait_for "$OUT/status.log" "display=window:960x600:x11 " 5 &&
       grep -q "display window:960x600:x11: now 960x600 at 4.0 px/mm; the game is laid out again" "$OUT/stderr.log"; then
        pass "resized to 960x600: $(grep -o 'display window:960x600[^;]*' "$OUT/stderr.log" | head -1)"
    else
        fail "no relayout after xdotool windowsize: $(tail -1 "$OUT/status.log")"
    fi
    # The Start button of the new layout: centred, 10 mm (40 px) below the middle.
    sleep 0.3
    timeout 5 xdotool mousemove --window "$WID" 480 340 click 1
    if wait_for "$OUT/status.log" "screen=playing .*display=window:960x600:x11 " 5; then pass "a click on the new Start button starts a round"
    else fail "the new Start button did not start a round: $(tail -1 "$OUT/status.log")"; fi
    sleep 1.5  # the bubbles' pop-in settles
    shot 2 "$OUT/kiosk-resized.png" || fail "no SIGUSR1 screenshot after the resize"
    import -window "$WID" "$OUT/resized.png"
fi

if [ -n "$WID" ]; then timeout 5 python3 Tests/desktop/wm-close.py "$WID" || fail "could not send WM_DELETE_WINDOW"; fi
status=""
if ! wait_until 5 ended "$KIOSK_PID"; then fail "still running 5 s after the window was closed"; kill "$KIOSK_PID"; fi
wait "$KIOSK_PID" && status=0 || status=$?
KIOSK_PID=""
[ "$status" = 0 ] && pass "window closed: exit status 0, $(cat "$OUT/status.log" "$OUT/stderr.log" | grep -o 'stats: .*' || true)" \
    || fail "exit status $status after closing the window"

# --- 5. the X screen shows the kiosk's frame --------------------------------------------------
for f in start final kiosk-final resized kiosk-resized; do
    [ -f "$OUT/$f.png" ] && convert "$OUT/$f.png" -depth 8 "ppm:$OUT/$f.ppm"
done
if python3 - "$OUT" <<'PY'
import sys
sys.path.insert(0, "Tests/vm")
import ppm
out = sys.argv[1]
start, final, kiosk = (ppm.Image.load("%s/%s.ppm" % (out, n)) for n in ("start", "final", "kiosk-final"))
def same(a, b, tol=8, step=4):
    n = hit = 0
    for y in range(0, a.height, step):
        for x in range(0, a.width, step):
            n += 1
            hit += ppm.close(a.pixel(x, y), b.pixel(x, y), tol)
    return hit / n
ok = True
s = same(final, kiosk)
print("     X screen matches the kiosk's last frame: %.4f of pixels" % s)
ok &= s >= 0.98
d = same(start, final)
print("     start screen and round-over screen share %.4f of pixels" % d)
ok &= d < 0.995
nb = final.nonblack_fraction(step=4)
print("     round-over screen non-black share %.4f" % nb)
ok &= nb > 0.5
try:
    resized, kiosk_resized = (ppm.Image.load("%s/%s.ppm" % (out, n)) for n in ("resized", "kiosk-resized"))
except OSError as e:
    print("     no screenshots after the resize: %s" % e)
    sys.exit(1)
print("     after the resize: window %dx%d, kiosk frame %dx%d" % (resized.width, resized.height, kiosk_resized.width, kiosk_resized.height))
ok &= (resized.width, resized.height) == (kiosk_resized.width, kiosk_resized.height) == (960, 600)
if ok:
    r = same(resized, kiosk_resized)
    print("     the resized window matches the kiosk's 960x600 frame: %.4f of pixels" % r)
    ok &= r >= 0.98
sys.exit(0 if ok else 1)
PY
then pass "screenshots of the X screen show the kiosk's frames"; else fail "screenshots of the X screen"; fi

end=$(date +%s.%N)
echo "timing: play $(python3 -c "print('%.1f' % ($play_end - $play_start))") s, whole test $(python3 -c "print('%.1f' % ($end - $started))") s"
if [ $failures -ne 0 ]; then
    echo "desktop test: $failures check(s) failed; logs in $OUT"
    exit 1
fi
echo "desktop test: all checks passed"
