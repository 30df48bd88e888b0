#!/usr/bin/env python3
"""QMP client and VM supervisor for the Tests/vm harness (standard library only).

    qmp.py run --log FILE --qmp SOCK --ack SOCK --outdir DIR [--timeout S] [--quiet] -- QEMU-ARGV...
        Starts QEMU, follows its serial log and answers the guest's markers:
          VM-READY ...           /init has loaded the modules (timing is logged)
          VM-SCREENDUMP NAME     QMP screendump to DIR/NAME.ppm, then "VM-ACK NAME ok|fail"
                                 is written to the guest's second serial port (ttyS1)
          VM-TEST-END rc=N       the scenario finished; QEMU is expected to power off
        Exit status: N from VM-TEST-END, 124 on timeout (QEMU killed), 125 when QEMU
        ended without VM-TEST-END or the harness failed.
    qmp.py screendump SOCK FILE        one screendump of a running QEMU
    qmp.py cmd SOCK COMMAND [JSON-ARGS] any QMP command; prints the reply
"""

import json
import os
import re
import signal
import socket
import subprocess
import sys
import time

NAME = r"[A-Za-z0-9_.-]+"
RE_DUMP = re.compile(r"VM-SCREENDUMP (%s)" % NAME)
RE_END = re.compile(r"VM-TEST-END rc=(\d+)")
RE_READY = re.compile(r"VM-READY\b")


def log(msg):
    print("[vm] %s" % msg, file=sys.stderr, flush=True)


def connect_unix(path, timeout):
    """Connects to a unix socket that QEMU is about to create."""
    deadline = time.monotonic() + timeout
    while True:
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            s.connect(path)
            return s
        except OSError:
            s.close()
            if time.monotonic() > deadline:
                raise
            time.sleep(0.05)


class QMP:
    def __init__(self, path, timeout=10.0):
        self.sock = connect_unix(path, timeout)
        self.sock.settimeout(30.0)
        self.buf = b""
        greeting = self._read()
        if "QMP" not in greeting:
            raise RuntimeError("unexpected QMP greeting: %r" % greeting)
        self.command("qmp_capabilities")

    def _read(self):
        while b"\n" not in self.buf:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise ConnectionError("QMP connection closed")
            self.buf += chunk
        line, self.buf = self.buf.split(b"\n", 1)
        return json.loads(line)

    def command(self, name, **arguments):
        msg = {"execute": name}
        if arguments:
            msg["arguments"] = arguments
        self.sock.sendall(json.dumps(msg).encode() + b"\n")
        while True:
            reply = self._read()
            if "event" in reply:  # asynchronous events may come first
                continue
            if "error" in reply:
                raise RuntimeError("QMP %s: %s" % (name, reply["error"].get("desc", reply["error"])))
            return reply.get("return")

    def screendump(self, filename):
        self.command("screendump", filename=os.path.abspath(filename))

    def close(self):
        self.sock.close()


def stop(proc):
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(3)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def run(opts, qemu_argv):
    outdir = opts["outdir"]
    os.makedirs(outdir, exist_ok=True)
    for stale in (opts["log"], opts["qmp"], opts["ack"]):
        if os.path.exists(stale):
            os.unlink(stale)
    start = time.monotonic()
    proc = subprocess.Popen(qemu_argv, stdin=subprocess.DEVNULL, start_new_session=True)
    elapsed = lambda: time.monotonic() - start
    qmp = ack = None
    rc, pending, logf = None, b"", None
    try:
        qmp = QMP(opts["qmp"], timeout=15.0)
        ack = connect_unix(opts["ack"], 15.0)
        deadline = start + opts["timeout"]
        while True:
            if logf is None and os.path.exists(opts["log"]):
                logf = open(opts["log"], "rb")
            chunk = logf.read() if logf else b""
            if chunk:
                pending += chunk
                *lines, pending = pending.split(b"\n")
                for raw in lines:
                    line = raw.decode("utf-8", "replace").rstrip("\r")
                    if not opts["quiet"]:
                        print("guest| " + line, file=sys.stderr, flush=True)
                    if RE_READY.search(line):
                        log("guest ready after %.1f s" % elapsed())
                    m = RE_DUMP.search(line)
                    if m:
                        name = m.group(1)
                        path = os.path.join(outdir, name + ".ppm")
                        try:
                            qmp.screendump(path)
                            ok = os.path.getsize(path) > 0
                        except (RuntimeError, OSError) as e:
                            log("screendump %s failed: %s" % (name, e))
                            ok = False
                        ack.sendall(("VM-ACK %s %s\n" % (name, "ok" if ok else "fail")).encode())
                        log("screendump %s -> %s (%.1f s)" % (name, path if ok else "FAILED", elapsed()))
                    m = RE_END.search(line)
                    if m and rc is None:
                        rc = int(m.group(1))
                        log("guest finished rc=%d after %.1f s" % (rc, elapsed()))
            if proc.poll() is not None:
                if chunk:  # read what was written just before QEMU exited
                    continue
                break
            if rc is not None and not chunk:
                # poweroff -f follows VM-TEST-END; give QEMU a moment, then stop it.
                try:
                    proc.wait(10)
                except subprocess.TimeoutExpired:
                    log("QEMU still running 10 s after VM-TEST-END; stopping it")
                    stop(proc)
                continue
            if time.monotonic() > deadline:
                log("TIMEOUT after %d s; killing QEMU" % opts["timeout"])
                stop(proc)
                return 124
            if not chunk:
                time.sleep(0.05)
    except Exception as e:  # harness trouble: never leave QEMU behind
        log("harness error: %s" % e)
        stop(proc)
        return 125
    finally:
        for s in (qmp, ack):
            if s is not None:
                s.close()
        if logf:
            logf.close()
        stop(proc)
        for path, remove in ((opts["qmp"], os.unlink), (opts["ack"], os.unlink),
                             (os.path.dirname(opts["ack"]), os.rmdir)):  # rmdir: only if empty
            try:
                remove(path)
            except OSError:
                pass
    log("QEMU exited (status %s) after %.1f s" % (proc.returncode, elapsed()))
    if rc is None:
        log("no VM-TEST-END marker in %s" % opts["log"])
        return 125
    return rc


def main(argv):
    if len(argv) >= 2 and argv[1] == "run":
        opts = {"timeout": 120, "quiet": False}
        args = argv[2:]
        while args and args[0] != "--":
            key = args.pop(0)
            if key == "--quiet":
                opts["quiet"] = True
            elif key in ("--log", "--qmp", "--ack", "--outdir", "--timeout") and args:
                value = args.pop(0)
                opts[key[2:]] = int(value) if key == "--timeout" else value
            else:
                raise SystemExit("qmp.py run: bad argument %s" % key)
        missing = [k for k in ("log", "qmp", "ack", "outdir") if k not in opts]
        if missing or not args:
            raise SystemExit("qmp.py run: need --%s and -- QEMU-ARGV" % " --".join(missing or ["..."]))
        signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
        return run(opts, args[1:])
    if len(argv) == 4 and argv[1] == "screendump":
        q = QMP(argv[2])
        q.screendump(argv[3])
        q.close()
        return 0
    if len(argv) in (4, 5) and argv[1] == "cmd":
        q = QMP(argv[2])
        print(json.dumps(q.command(argv[3], **(json.loads(argv[4]) if len(argv) == 5 else {}))))
        q.close()
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
