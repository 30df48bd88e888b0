#!/usr/bin/env python3
"""Talks to the Home Assistant that ha-test.sh runs, over its REST API (standard library only:
it runs on the system's python3, not in Home Assistant's virtual environment).

usage: ha_client.py URL COMMAND [ARGS...]      (URL: http://127.0.0.1:PORT)

  up SECONDS            wait until Home Assistant's HTTP server answers: GET /api/ with the
                        token (200), or without one GET /api/onboarding (before onboarding)
  onboard               create the owner through onboarding (/api/onboarding/users), trade the
                        auth code for an access token (/auth/token) and print the token
  get PATH [--out FILE] [--png WxH]
                        GET PATH; print the body, or write it to FILE; with --png the body must
                        be a PNG of that size (checked by its signature and IHDR)
  call DOMAIN SERVICE [JSON]
                        POST /api/services/DOMAIN/SERVICE with JSON (an object) as the data
  template TEXT         POST /api/template: Home Assistant renders TEXT (Jinja) and this prints it
  wait SECONDS EXPR [--recorder FILE]
                        poll GET /api/states (5 times a second) until the Python expression EXPR
                        holds; then print what it looked at. On timeout, print it too, exit 1.

The token comes from the environment (HA_TOKEN). Every request has a 10 s time-out; an HTTP
error exits 1 with the status and the start of the body.

EXPR sees:
  s(ENTITY)           the entity's state ("on", "42", "unavailable"...), None when it is absent
  a(ENTITY, NAME)     one of its attributes, None when absent
  ids                 the entity ids Home Assistant has
  k(NODE)             the kiosk's latest state JSON (a dict): the last PREFIX/state line of the
                      recorder FILE (mosquitto_sub -F '%r %U %t %p' lines), None before one came
  follows(NODE)       True when Home Assistant's entities of kiosk NODE show what k(NODE) says
                      (screen, score, rounds today, high score, volume, the display light and its
                      brightness, touch test, touchscreen); a mismatch is printed on timeout
"""
import datetime
import json
import os
import struct
import sys
import time
import urllib.error
import urllib.parse
import urllib.request

TIMEOUT = 10


def request(base, method, path, body=None, form=None, token=None, raw=False):
    """One HTTP request; returns (status, body). Connection errors raise OSError."""
    headers = {}
    data = None
    if token:
        headers["Authorization"] = "Bearer " + token
    if body is not None:
        data = json.dumps(body).encode()
        headers["Content-Type"] = "application/json"
    elif form is not None:
        data = urllib.parse.urlencode(form).encode()
        headers["Content-Type"] = "application/x-www-form-urlencoded"
    req = urllib.request.Request(base + path, data=data, headers=headers, method=method)
    try:
        with urllib.request.urlopen(req, timeout=TIMEOUT) as resp:
            status, payload = resp.status, resp.read()
    except urllib.error.HTTPError as e:
        status, payload = e.code, e.read()
    return status, payload if raw else payload.decode("utf-8", "replace")


def ok_or_exit(status, payload, what):
    if status // 100 != 2:
        text = payload if isinstance(payload, str) else payload[:300].decode("utf-8", "replace")
        sys.exit("%s: HTTP %d: %s" % (what, status, text[:300]))


def token():
    t = os.environ.get("HA_TOKEN", "")
    if not t:
        sys.exit("ha_client.py: HA_TOKEN is not set")
    return t


# --- commands ------------------------------------------------------------------------------------

def cmd_up(base, seconds):
    t = os.environ.get("HA_TOKEN", "")
    # Without a token only the onboarding view answers 200; /api/ would answer 401 and Home
    # Assistant would log a warning about a bad login, which the test's log check would see.
    path = "/api/" if t else "/api/onboarding"
    deadline = time.monotonic() + float(seconds)
    last = "nothing"
    while time.monotonic() < deadline:
        try:
            status, payload = request(base, "GET", path, token=t)
            if status == 200:
                print("GET %s: %s" % (path, payload[:100]))
                return 0
            last = "HTTP %d" % status
        except OSError as e:
            last = str(e)
        time.sleep(0.1)
    sys.exit("GET %s: no answer within %s s (last: %s)" % (path, seconds, last))


def cmd_onboard(base):
    client_id = base + "/"  # Home Assistant wants a URL; its own address is accepted
    status, payload = request(base, "POST", "/api/onboarding/users", body={
        "client_id": client_id, "name": "Kiosk Test", "username": "kiosktest",
        "password": "kiosk-test-password", "language": "en"})
    ok_or_exit(status, payload, "POST /api/onboarding/users")
    code = json.loads(payload)["auth_code"]
    status, payload = request(base, "POST", "/auth/token", form={
        "grant_type": "authorization_code", "code": code, "client_id": client_id})
    ok_or_exit(status, payload, "POST /auth/token")
    print(json.loads(payload)["access_token"])
    return 0


def png_size(data):
    if not data.startswith(b"\x89PNG\r\n\x1a\n") or data[12:16] != b"IHDR":
        return None
    return struct.unpack(">II", data[16:24])


def cmd_get(base, path, args):
    status, payload = request(base, "GET", path, token=token(), raw=True)
    ok_or_exit(status, payload, "GET " + path)
    if "--png" in args:
        want = tuple(int(x) for x in args[args.index("--png") + 1].split("x"))
        size = png_size(payload)
        if size is None:
            sys.exit("GET %s: %d bytes, not a PNG: %r" % (path, len(payload), payload[:16]))
        print("PNG %dx%d, %d bytes" % (size + (len(payload),)))
        if size != want:
            sys.exit("wanted %dx%d" % want)
    if "--out" in args:
        with open(args[args.index("--out") + 1], "wb") as f:
            f.write(payload)
    elif "--png" not in args:
        sys.stdout.write(payload.decode("utf-8", "replace") + "\n")
    return 0


def cmd_call(base, domain, service, data):
    path = "/api/services/%s/%s" % (domain, service)
    status, payload = request(base, "POST", path, body=json.loads(data) if data else {}, token=token())
    ok_or_exit(status, payload, "POST " + path)
    return 0


def cmd_template(base, text):
    status, payload = request(base, "POST", "/api/template", body={"template": text}, token=token())
    ok_or_exit(status, payload, "POST /api/template")
    print(payload)
    return 0


def latest_states(recorder):
    """The last PREFIX/state payload of each node in the recorder file."""
    found = {}
    try:
        with open(recorder, encoding="utf-8", errors="replace") as f:
            for line in f:
                parts = line.rstrip("\n").split(" ", 3)
                if len(parts) == 4 and parts[2].startswith("bubble-kiosk/") and parts[2].endswith("/state"):
                    try:
                        found[parts[2].split("/")[1]] = json.loads(parts[3])
                    except ValueError:
                        pass
    except FileNotFoundError:
        pass
    return found


def cmd_wait(base, seconds, expr, args):
    recorder = args[args.index("--recorder") + 1] if "--recorder" in args else None
    code = compile(expr, "EXPR", "eval")
    deadline = time.monotonic() + float(seconds)
    t = token()
    while True:
        looked, mismatches = {}, []
        try:
            status, payload = request(base, "GET", "/api/states", token=t)
            states = {s["entity_id"]: s for s in json.loads(payload)} if status == 200 else {}
            error = None if status == 200 else "HTTP %d" % status
        except (OSError, ValueError) as e:
            states, error = {}, str(e)
        kiosks = latest_states(recorder) if recorder else {}

        def s(eid):
            looked[eid] = states[eid]["state"] if eid in states else None
            return looked[eid]

        def a(eid, name):
            return states.get(eid, {}).get("attributes", {}).get(name)

        def k(node):
            return kiosks.get(node)

        def follows(node):
            want = kiosks.get(node)
            if want is None:
                mismatches.append("%s: no state from the kiosk yet" % node)
                return False
            e = node.replace("-", "_")
            pairs = [
                ("sensor.%s_screen" % e, want["screen"]),
                ("sensor.%s_score" % e, str(want["score"])),
                ("sensor.%s_rounds_today" % e, str(want["rounds_today"])),
                ("sensor.%s_high_score" % e, str(want["high_score"])),
                ("light.%s_display" % e, want["display"]),
                ("switch.%s_touch_test" % e, "on" if want["screen"] == "touch_test" else "off"),
                ("binary_sensor.%s_touchscreen" % e, "on" if want["touchscreens"] > 0 else "off"),
            ]
            bad = ["%s is %r, the kiosk says %r" % (eid, s(eid), v) for eid, v in pairs if s(eid) != v]
            vol = s("number.%s_volume" % e)
            try:
                vol_ok = float(vol) == want["volume"]
            except (TypeError, ValueError):
                vol_ok = False
            if not vol_ok:
                bad.append("number.%s_volume is %r, the kiosk says %r" % (e, vol, want["volume"]))
            # Home Assistant shows brightness only while the light is on
            if want["display"] == "on" and a("light.%s_display" % e, "brightness") != want["brightness"]:
                bad.append("light.%s_display brightness %r, the kiosk says %r"
                           % (e, a("light.%s_display" % e, "brightness"), want["brightness"]))
            mismatches.extend(bad)
            return not bad

        # (the names go in as globals: a generator expression in EXPR sees only those)
        env = {"__builtins__": __builtins__, "s": s, "a": a, "k": k, "follows": follows,
               "ids": set(states), "datetime": datetime, "json": json}
        try:
            ok = bool(eval(code, env))
            problem = None
        except Exception as e:  # an entity missing makes a comparison fail: keep polling
            ok, problem = False, "%s: %s" % (type(e).__name__, e)
        if ok or time.monotonic() >= deadline:
            for eid in sorted(looked):
                attrs = states.get(eid, {}).get("attributes", {})
                shown = {n: attrs[n] for n in ("brightness", "supported_color_modes", "state_class",
                                              "device_class") if n in attrs}
                print("  %s = %r%s" % (eid, looked[eid], " " + json.dumps(shown) if shown else ""))
            if ok:
                return 0
            print("not within %s s: %s" % (seconds, expr))
            for m in mismatches[-12:]:
                print("  " + m)
            if problem:
                print("  (the expression raised %s)" % problem)
            if error:
                print("  (GET /api/states: %s)" % error)
            return 1
        time.sleep(0.2)


def main(argv):
    if len(argv) < 2 or argv[0] in ("-h", "--help"):
        print(__doc__)
        return 0 if argv[:1] in (["-h"], ["--help"]) else 2
    base, command, args = argv[0].rstrip("/"), argv[1], argv[2:]
    if command == "up":
        return cmd_up(base, args[0])
    if command == "onboard":
        return cmd_onboard(base)
    if command == "get":
        return cmd_get(base, args[0], args[1:])
    if command == "call":
        return cmd_call(base, args[0], args[1], args[2] if len(args) > 2 else None)
    if command == "template":
        return cmd_template(base, args[0])
    if command == "wait":
        return cmd_wait(base, args[0], args[1], args[2:])
    sys.exit("ha_client.py: unknown command " + command)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
