#!/usr/bin/env python3
"""Host-side helpers of Tests/vm/e2e-test.sh, standard library only. STATE is the JSON that
`bubble-kiosk state --seed N --size WxH --config F` printed for the game's (rotated) size.

    bubbles.py expect STATE K [--score-config F]
        The score and status after popping the first K bubbles (id order), as shell assignments:
        SCORE=.. REMAINING=.. TOTAL=.. (10 points per tap a tap bubble needs, 20 per swipe
        bubble, 20 per drag bubble dropped into the goal, 50 more for clearing the round: the
        defaults of [score]).
    bubbles.py goal PPM STATE ROTATION
        Checks a screendump mid-round: the goal basket is drawn in the rectangle `state` gives
        (mapped onto the panel for ROTATION): mostly wicker there, not background.
    bubbles.py pick-drag STATE FROM
        The id of the first swipe bubble with an id of FROM or more (else FROM): the one the
        unplug scenario drags on.
    bubbles.py drag STATE ID ROTATION [--steps N]
        E: lines of a one-finger press on bubble ID that drags along its arrow (right for a tap
        bubble) at 2 px a 16 ms step (31 mm/s at 4 px/mm: a swipe if it lifted) and never
        lifts; for the touchscreen round-recording describes (axes 0..4095 over the panel).
    bubbles.py check PPM STATE ROTATION --popped IDS
        Checks a screendump (panel orientation, 1280x800): every bubble not in IDS is drawn at
        the place `state` gives, mapped onto the panel for ROTATION, in one of the bubble
        colours (not background, not black); every popped one's place is background again.
        Prints one line a bubble; exit 1 when any is wrong.

The mapping is written out here on purpose rather than taken from the product: rotation is
clockwise, so at 90 the game's top edge runs down the panel's right side.
"""

import json
import math
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import ppm  # noqa: E402

PANEL = (1280, 800)  # bochs-drm's preferred mode: the panel in its own orientation
AXIS = 4096          # round-recording's touchscreen: axes 0..4095 over the panel

BACKGROUND = ppm.rgb(0x141F33)
PALETTE = [ppm.rgb(c) for c in (0x0A84FF, 0xFF375F, 0xFF9F0A, 0x30B84E, 0xBF5AF2, 0x1FB5CF, 0xFF453A, 0x5E5CE6)]
NAMES = ["blue", "pink", "orange", "green", "purple", "teal", "red", "indigo"]


def load_state(path):
    with open(path) as f:
        return json.load(f)


def to_panel(state, rotation, x, y):
    """A game position onto the panel (clockwise rotation of the picture)."""
    w, h = state["width"], state["height"]
    pw, ph = PANEL
    if rotation == 0:
        return x, y
    if rotation == 90:
        return pw - y, x
    if rotation == 180:
        return pw - x, ph - y
    if rotation == 270:
        return y, ph - x
    raise SystemExit("rotation must be 0, 90, 180 or 270")


def expect(state, k):
    bubbles = sorted(state["bubbles"], key=lambda b: b["id"])
    popped = bubbles[:k]
    points = {"swipe": 20, "drag": 20}
    score = sum(10 * b["taps"] if b["kind"] == "tap" else points[b["kind"]] for b in popped)
    if k >= len(bubbles):
        score += 50
    print("SCORE=%d" % score)
    print("REMAINING=%d" % (len(bubbles) - len(popped)))
    print("TOTAL=%d" % len(bubbles))


def drag(state, bubble_id, rotation, steps):
    b = next(b for b in state["bubbles"] if b["id"] == bubble_id)
    angle = math.radians(b.get("angle_deg", 0.0))
    dx, dy = math.cos(angle), math.sin(angle)

    def units(gx, gy):
        px, py = to_panel(state, rotation, gx, gy)
        return (min(AXIS - 1, max(0, round(px * AXIS / PANEL[0]))),
                min(AXIS - 1, max(0, round(py * AXIS / PANEL[1]))))

    x, y = units(b["x"], b["y"])
    lines = ["E: 0.000000 0003 002f 0", "E: 0.000000 0003 0039 500",
             "E: 0.000000 0003 0035 %d" % x, "E: 0.000000 0003 0036 %d" % y,
             "E: 0.000000 0001 014a 1", "E: 0.000000 0003 0000 %d" % x,
             "E: 0.000000 0003 0001 %d" % y, "E: 0.000000 0000 0000 0"]
    for i in range(1, steps + 1):
        t = i * 0.016
        x, y = units(b["x"] + dx * 2 * i, b["y"] + dy * 2 * i)
        lines += ["E: %.6f 0003 0035 %d" % (t, x), "E: %.6f 0003 0036 %d" % (t, y),
                  "E: %.6f 0003 0000 %d" % (t, x), "E: %.6f 0003 0001 %d" % (t, y),
                  "E: %.6f 0000 0000 0" % t]
    print("\n".join(lines))


def pick_drag(state, first):
    swipes = sorted(b["id"] for b in state["bubbles"] if b["kind"] == "swipe" and b["id"] >= first)
    print(swipes[0] if swipes else first)


def bubble_colour(p):
    """The palette colour p is a shade of, or None. A bubble is its colour blended towards white
    (the gradient's light side and the gloss), so p must lie near the line from a palette colour
    to white, short of white itself (the digit and the arrow are white)."""
    best, best_d = None, 1e9
    for i, c in enumerate(PALETTE):
        span = [255 - v for v in c]
        norm = sum(v * v for v in span)
        t = sum((p[k] - c[k]) * span[k] for k in range(3)) / norm if norm else 0.0
        t = min(max(t, 0.0), 0.8)
        d = max(abs(p[k] - (c[k] + t * span[k])) for k in range(3))
        if d < best_d:
            best, best_d = i, d
    return best if best_d <= 14 else None


def classify_disk(img, cx, cy, radius):
    """Shares of bubble-shade, background and black pixels in a disk, and the main colour."""
    total = bubble = background = black = 0
    per_colour = [0] * len(PALETTE)
    r2 = radius * radius
    for y in range(int(cy - radius), int(cy + radius) + 1, 2):
        for x in range(int(cx - radius), int(cx + radius) + 1, 2):
            if (x - cx) ** 2 + (y - cy) ** 2 > r2 or not (0 <= x < img.width and 0 <= y < img.height):
                continue
            p = img.pixel(x, y)
            total += 1
            if ppm.close(p, BACKGROUND, 10):
                background += 1
            elif max(p) <= 24:
                black += 1
            else:
                i = bubble_colour(p)
                if i is not None:
                    bubble += 1
                    per_colour[i] += 1
    total = max(total, 1)
    main = max(range(len(PALETTE)), key=lambda i: per_colour[i])
    return bubble / total, background / total, black / total, NAMES[main] if per_colour[main] else "-"


def check(path, state, rotation, popped):
    img = ppm.Image.load(path)
    if (img.width, img.height) != PANEL:
        print("FAIL screendump is %dx%d, want %dx%d" % (img.width, img.height, *PANEL))
        return 1
    failures = 0
    for b in sorted(state["bubbles"], key=lambda b: b["id"]):
        px, py = to_panel(state, rotation, b["x"], b["y"])
        where = "bubble %d (%s, game %.0f,%.0f -> panel %.0f,%.0f, d=%.0f)" % (
            b["id"], b["kind"], b["x"], b["y"], px, py, b["diameter"])
        if b["id"] in popped:
            # The whole disk: the bubble, its particles and the finger marker are gone.
            colour, bg, black, _ = classify_disk(img, px, py, b["diameter"] / 2)
            ok = bg >= 0.95
            print("%s popped: %s background %.2f, bubble colours %.2f" % ("ok  " if ok else "FAIL", where, bg, colour))
        else:
            # Inside the rim: shades of one bubble colour around the white digit or arrow.
            colour, bg, black, main = classify_disk(img, px, py, b["diameter"] * 0.4)
            ok = colour >= 0.5 and bg <= 0.02 and black <= 0.02
            print("%s shown: %s bubble colours %.2f (mostly %s), background %.2f, black %.2f" % (
                "ok  " if ok else "FAIL", where, colour, main, bg, black))
        failures += not ok
    return 1 if failures else 0


WICKER = ppm.rgb(0xC88A3C)


def goal(path, state, rotation):
    img = ppm.Image.load(path)
    g = state.get("goal")
    if not g:
        print("FAIL state has no goal")
        return 1
    corners = [to_panel(state, rotation, x, y) for x, y in
               ((g["x"], g["y"]), (g["x"] + g["width"], g["y"] + g["height"]))]
    x0, x1 = sorted(c[0] for c in corners)
    y0, y1 = sorted(c[1] for c in corners)
    # The middle of the basket (its rim and tapered sides leave the corners to the background).
    total = background = warm = 0
    for y in range(int(y0 + (y1 - y0) * 0.3), int(y1 - (y1 - y0) * 0.3), 2):
        for x in range(int(x0 + (x1 - x0) * 0.3), int(x1 - (x1 - x0) * 0.3), 2):
            p = img.pixel(x, y)
            total += 1
            background += ppm.close(p, BACKGROUND, 10)
            # Wicker over the dark background: red above green above blue.
            warm += p[0] > p[1] > p[2] and p[0] - p[2] > 30
    total = max(total, 1)
    ok = warm / total >= 0.5 and background / total <= 0.1
    print("%s goal at panel %.0f,%.0f-%.0f,%.0f: wicker %.2f, background %.2f" % (
        "ok  " if ok else "FAIL", x0, y0, x1, y1, warm / total, background / total))
    return 0 if ok else 1


def ids(text):
    return {int(i) for i in text.split(",") if i != ""}


def main(argv):
    if len(argv) < 3 or argv[1] not in ("expect", "pick-drag", "drag", "check", "goal"):
        print(__doc__, file=sys.stderr)
        return 2
    cmd = argv[1]
    if cmd == "expect":
        expect(load_state(argv[2]), int(argv[3]))
    elif cmd == "goal":
        return goal(argv[2], load_state(argv[3]), int(argv[4]))
    elif cmd == "pick-drag":
        pick_drag(load_state(argv[2]), int(argv[3]))
    elif cmd == "drag":
        steps = int(argv[argv.index("--steps") + 1]) if "--steps" in argv else 150
        drag(load_state(argv[2]), int(argv[3]), int(argv[4]), steps)
    else:
        popped = ids(argv[argv.index("--popped") + 1]) if "--popped" in argv else set()
        return check(argv[2], load_state(argv[3]), int(argv[4]), popped)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
