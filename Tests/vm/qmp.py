#!/usr/bin/env python3
"""QMP client and VM supervisor for the Tests/vm harness (standard library only).

    qmp.py run --log FILE --qmp SOCK --ack SOCK --outdir DIR [--timeout S] [--gpu-id ID]
               [--vnc-dir DIR] [--quiet] -- QEMU-ARGV...
        Starts QEMU, follows its serial log and answers the guest's markers:
          VM-READY ...           /init has loaded the modules (timing is logged)
          VM-SCREENDUMP NAME     QMP screendump to DIR/NAME.ppm, then "VM-ACK NAME ok|fail"
                                 is written to the guest's second serial port (ttyS1)
          VM-SCREENDUMP NAME HEAD  the same of output HEAD (0, 1, ...) of the display device
                                 --gpu-id ID (QMP screendump's "device" and "head"); without
                                 --gpu-id only head 0 can be dumped (HEAD > 0 is answered fail)
          VM-HEAD HEAD WxH|off   plugs output HEAD in as a WxH monitor, or unplugs it, as a
                                 display window would: a VNC SetDesktopSize on the VNC server
                                 DIR/vnc-HEAD (run-vm.sh --gpu virtio:N serves one per head);
                                 then "VM-ACK head-HEAD ok|fail" on ttyS1
          VM-TEST-END rc=N       the scenario finished; QEMU is expected to power off
        Exit status: N from VM-TEST-END, 124 on timeout (QEMU killed), 125 when QEMU
        ended without VM-TEST-END or the harness failed.
    qmp.py screendump SOCK FILE [DEVICE HEAD]  one screendump of a running QEMU (of one head)
    qmp.py cmd SOCK COMMAND [JSON-ARGS] any QMP command; prints the reply
    qmp.py head VNC-SOCK W H           the same SetDesktopSize by hand (0 0: unplug)
"""

import json
import os
import re
import signal
import socket
import struct
import subprocess
import sys
import time

NAME = r"[A-Za-z0-9_.-]+"
RE_DUMP = re.compile(r"VM-SCREENDUMP (%s)(?: ([0-9]+))?" % NAME)
RE_END = re.compile(r"VM-TEST-END rc=(\d+)")
RE_READY = re.compile(r"VM-READY\b")
RE_HEAD = re.compile(r"VM-HEAD ([0-9]+) (?:([0-9]+)x([0-9]+)|(off))")


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
        # A loaded machine can let an event (RESUME as the guest starts) arrive first.
        for _ in range(16):
            if "event" not in greeting:
                break
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

    def screendump(self, filename, device=None, head=None):
        """Saves a console as PPM. device (a -device id) and head pick one output of a card with
        several; without them QEMU dumps its first console."""
        args = {"filename": os.path.abspath(filename)}
        head = int(head or 0)
        if device is not None:
            args["device"] = device
            args["head"] = head
        elif head:
            raise RuntimeError("head %s asked for, but the display device has no id (--gpu-id)" % head)
        self.command("screendump", **args)

    def close(self):
        self.sock.close()


def vnc_set_size(path, width, height, timeout=10.0):
    """Asks QEMU's VNC server at the unix socket path to resize its console to width x height
    (RFB SetDesktopSize, ExtendedDesktopSize extension). For a virtio-gpu head QEMU passes the
    size on as the monitor's (dpy_set_ui_info): the guest gets a display-change event and sees
    the connector connected with that preferred mode; 0x0 disconnects it. Raises on refusal."""
    sock = connect_unix(path, timeout)
    sock.settimeout(timeout)

    def read(n):
        data = b""
        while len(data) < n:
            chunk = sock.recv(n - len(data))
            if not chunk:
                raise ConnectionError("VNC connection closed")
            data += chunk
        return data
    try:
        if not read(12).startswith(b"RFB "):
            raise RuntimeError("not a VNC server: %s" % path)
        sock.sendall(b"RFB 003.008\n")
        types = read(read(1)[0])
        if 1 not in types:  # 1: no authentication
            raise RuntimeError("VNC server wants authentication (%s)" % list(types))
        sock.sendall(b"\x01")
        if struct.unpack(">I", read(4))[0] != 0:
            raise RuntimeError("VNC security handshake failed")
        sock.sendall(b"\x01")  # ClientInit: shared
        read(20)
        read(struct.unpack(">I", read(4))[0])  # ServerInit: size, pixel format, name
        sock.sendall(struct.pack(">BxHi", 2, 1, -308))  # SetEncodings: ExtendedDesktopSize
        sock.sendall(struct.pack(">BxHHBx", 251, width, height, 1)
                     + struct.pack(">IHHHHI", 0, 0, 0, width, height, 0))
        # The answer: a FramebufferUpdate whose ExtendedDesktopSize rectangle has x = 1 (the
        # client asked) and y = status (0 done, 4 passed on to the guest, 1-3 refused).
        while True:
            kind, count = struct.unpack(">BxH", read(4))
            if kind != 0:
                raise RuntimeError("unexpected VNC message %d" % kind)
            for _ in range(count):
                x, y, w, h, enc = struct.unpack(">HHHHi", read(12))
                if enc != -308:
                    raise RuntimeError("unexpected VNC rectangle encoding %d" % enc)
                read(16 * read(4)[0])  # the screens: a count and 3 bytes padding, 16 bytes each
                if x == 1:
                    if y not in (0, 4):
                        raise RuntimeError("QEMU refused the size %dx%d (status %d)" % (width, height, y))
                    return
    finally:
        sock.close()


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
                        name, head = m.group(1), m.group(2)
                        path = os.path.join(outdir, name + ".ppm")
                        try:
                            if os.path.exists(path):
                                os.unlink(path)
                            qmp.screendump(path, opts.get("gpu-id") if head is not None else None, head)
                            ok = os.path.getsize(path) > 0
                        except (RuntimeError, OSError) as e:
                            log("screendump %s failed: %s" % (name, e))
                            ok = False
                        ack.sendall(("VM-ACK %s %s\n" % (name, "ok" if ok else "fail")).encode())
                        log("screendump %s%s -> %s (%.1f s)" % (name, "" if head is None else " head " + head,
                                                                path if ok else "FAILED", elapsed()))
                    m = RE_HEAD.search(line)
                    if m:
                        head = m.group(1)
                        size = (0, 0) if m.group(4) else (int(m.group(2)), int(m.group(3)))
                        try:
                            if not opts.get("vnc-dir"):
                                raise RuntimeError("no VNC servers (run-vm.sh --gpu virtio:N)")
                            vnc_set_size(os.path.join(opts["vnc-dir"], "vnc-" + head), *size)
                            ok = True
                        except (RuntimeError, OSError) as e:
                            log("head %s: %s" % (head, e))
                            ok = False
                        ack.sendall(("VM-ACK head-%s %s\n" % (head, "ok" if ok else "fail")).encode())
                        log("head %s %s -> %s (%.1f s)" % (head, "%dx%d" % size if size[0] else "off",
                                                          "ok" if ok else "FAILED", elapsed()))
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
            elif key in ("--log", "--qmp", "--ack", "--outdir", "--timeout", "--gpu-id", "--vnc-dir") and args:
                value = args.pop(0)
                opts[key[2:]] = int(value) if key == "--timeout" else value
            else:
                raise SystemExit("qmp.py run: bad argument %s" % key)
        missing = [k for k in ("log", "qmp", "ack", "outdir") if k not in opts]
        if missing or not args:
            raise SystemExit("qmp.py run: need --%s and -- QEMU-ARGV" % " --".join(missing or ["..."]))
        signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
        return run(opts, args[1:])
    if len(argv) in (4, 6) and argv[1] == "screendump":
        q = QMP(argv[2])
        q.screendump(argv[3], *argv[4:6])
        q.close()
        return 0
    if len(argv) == 5 and argv[1] == "head":
        vnc_set_size(argv[2], int(argv[3]), int(argv[4]))
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
