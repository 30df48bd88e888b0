#!/usr/bin/env python3
"""Waits for a line of a growing file that satisfies a Python expression (mqtt-test.sh's helper).

usage: match.py [--distinct-topics N] [--count N] FILE FROM SECONDS EXPR

Reads FILE (again and again, for up to SECONDS) from line FROM+1 on and evaluates EXPR for
each complete line. Exit 0 (printing the matching line) as soon as one line matches, or with
--count N once N lines did, or with --distinct-topics N once matching lines named N different
topics; exit 1 after SECONDS (printing the last lines it read).

EXPR sees:
  line   the line
  n      its number (1-based)
  r, ts, t, p   for the recorder's lines (mosquitto_sub -F '%r %U %t %p'): the retain flag
         ("0"/"1"), the time received (float seconds), the topic and the payload (else None)
  j      the payload (or, for lines that are no recorder lines, the line) as JSON, else None
  keys   j's keys in order, when j is an object (else None)
  field(name)   for a --status line: the value of `name=...` (an int when it is one), else None
"""
import json
import sys
import time


def field_of(line):
    def field(name):
        for word in line.split():
            if word.startswith(name + "="):
                value = word[len(name) + 1:]
                if value.endswith("s") and name == "t":
                    value = value[:-1]
                try:
                    return int(value)
                except ValueError:
                    return value
        return None
    return field


def parse(line):
    r = ts = t = p = None
    parts = line.split(" ", 3)
    if len(parts) >= 3 and parts[0] in ("0", "1"):
        try:
            ts = float(parts[1])
            r, t = parts[0], parts[2]
            p = parts[3] if len(parts) == 4 else ""
        except ValueError:
            pass
    text = p if t is not None else line
    j = keys = None
    try:
        j = json.loads(text)
        if isinstance(j, dict):
            # (the keys as sent, in order, duplicates too)
            keys = [k for k, _ in json.loads(text, object_pairs_hook=lambda pairs: pairs)]
    except ValueError:
        pass
    return dict(line=line, r=r, ts=ts, t=t, p=p, j=j, keys=keys, field=field_of(line))


def main(argv):
    count = 1
    distinct = 0
    while argv and argv[0].startswith("--"):
        if argv[0] == "--count":
            count = int(argv[1])
        elif argv[0] == "--distinct-topics":
            distinct = int(argv[1])
        else:
            sys.exit("match.py: unknown option " + argv[0])
        argv = argv[2:]
    path, start, limit, expr = argv[0], int(argv[1]), float(argv[2]), argv[3]
    code = compile(expr, "EXPR", "eval")
    deadline = time.monotonic() + limit
    last = []
    while True:
        try:
            with open(path, "rb") as f:
                data = f.read()
        except FileNotFoundError:
            data = b""
        lines = data.decode("utf-8", "replace").split("\n")[:-1]  # complete lines only
        hits, topics = [], set()
        for n, line in enumerate(lines[start:], start + 1):
            env = parse(line)
            env["n"] = n
            try:
                ok = bool(eval(code, {"__builtins__": __builtins__}, env))
            except Exception:
                ok = False
            if ok:
                hits.append(line)
                topics.add(env["t"])
                if (distinct and len(topics) >= distinct) or (not distinct and len(hits) >= count):
                    print(line[:300])
                    return 0
        last = lines[start:][-8:]
        if time.monotonic() >= deadline:
            print("no match for: %s (%d of %d found)" % (expr, len(topics) if distinct else len(hits),
                                                          distinct or count))
            if distinct:
                for topic in sorted(x for x in topics if x):
                    print("  got " + topic)
            print("last lines of %s after line %d:" % (path, start))
            for line in last:
                print("  " + line[:300])
            return 1
        time.sleep(0.1)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
