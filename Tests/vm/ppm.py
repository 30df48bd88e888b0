#!/usr/bin/env python3
"""Pixel checks on QEMU screendumps (binary PPM, "P6"), standard library only.

Use it as a module from test scripts:

    sys.path.insert(0, "Tests/vm"); import ppm
    img = ppm.Image.load("out/final.ppm")
    img.pixel(10, 10)                  -> (255, 0, 0)
    img.fraction(0xFF0000, box=img.box("0%", "0%", "50%", "100%"))
    img.nonblack_fraction()
    img.classify()                     -> "graphics" | "console" | "blank"
    img.save_png("out/final.png")

or from the shell:

    ppm.py info  FILE                  size, non-black share, main colours, verdict
    ppm.py pixel FILE X Y              prints RRGGBB
    ppm.py png   FILE [OUT.png]        converts for a human to look at
    ppm.py check FILE [--at X,Y=RRGGBB]... [--region X0,Y0,X1,Y1=RRGGBB[@FRACTION]]...
                      [--min-nonblack F] [--max-nonblack F] [--expect graphics|console|blank]
                      [--tol N]
        Coordinates are pixels or percentages of the width/height ("50%").
        A region spans [X0,X1) x [Y0,Y1); FRACTION (default 0.99) is the share of its
        pixels that must match. Exits 0 when every check passes, 1 otherwise.
"""

import struct
import sys
import zlib

# The 16 colours of the VGA text palette, which both QEMU's VGA text mode and the
# kernel's framebuffer console (fbcon) draw with.
VGA_PALETTE = [
    0x000000, 0x0000AA, 0x00AA00, 0x00AAAA, 0xAA0000, 0xAA00AA, 0xAA5500, 0xAAAAAA,
    0x555555, 0x5555FF, 0x55FF55, 0x55FFFF, 0xFF5555, 0xFF55FF, 0xFFFF55, 0xFFFFFF,
]


def rgb(value):
    """0xRRGGBB or "RRGGBB"/"#RRGGBB" -> (r, g, b)."""
    if isinstance(value, str):
        value = int(value.lstrip("#"), 16)
    if isinstance(value, int):
        return ((value >> 16) & 0xFF, (value >> 8) & 0xFF, value & 0xFF)
    return tuple(value)


def hexrgb(colour):
    return "%02X%02X%02X" % tuple(colour)


def close(a, b, tol):
    return abs(a[0] - b[0]) <= tol and abs(a[1] - b[1]) <= tol and abs(a[2] - b[2]) <= tol


class Image:
    def __init__(self, width, height, data):
        self.width = width
        self.height = height
        self.data = data  # width * height * 3 bytes, RGB, rows top to bottom

    @classmethod
    def load(cls, path):
        with open(path, "rb") as f:
            raw = f.read()
        return cls.parse(raw)

    @classmethod
    def parse(cls, raw):
        # Header: "P6" <ws> width <ws> height <ws> maxval <one ws> data; '#' starts a comment.
        fields, pos = [], 0
        while len(fields) < 4:
            while pos < len(raw) and raw[pos:pos + 1].isspace():
                pos += 1
            if raw[pos:pos + 1] == b"#":
                while pos < len(raw) and raw[pos:pos + 1] not in (b"\n", b"\r"):
                    pos += 1
                continue
            start = pos
            while pos < len(raw) and not raw[pos:pos + 1].isspace() and raw[pos:pos + 1] != b"#":
                pos += 1
            if start == pos:
                raise ValueError("truncated PPM header")
            fields.append(raw[start:pos])
        if fields[0] != b"P6":
            raise ValueError("not a binary PPM (P6) file")
        width, height, maxval = (int(x) for x in fields[1:])
        pos += 1  # the single whitespace byte after maxval
        if maxval < 256:
            data = raw[pos:pos + width * height * 3]
            if maxval != 255:
                data = bytes(v * 255 // maxval for v in data)
        else:  # 16-bit samples, big endian
            count = width * height * 3
            samples = struct.unpack(">%dH" % count, raw[pos:pos + count * 2])
            data = bytes(v * 255 // maxval for v in samples)
        if len(data) != width * height * 3:
            raise ValueError("truncated PPM data")
        return cls(width, height, data)

    # --- coordinates -----------------------------------------------------------------

    def coord(self, value, horizontal):
        """Pixels (int or "12") or a percentage ("50%") of the width/height."""
        size = self.width if horizontal else self.height
        if isinstance(value, str) and value.endswith("%"):
            return min(size, int(float(value[:-1]) * size / 100.0))
        return int(value)

    def box(self, x0, y0, x1, y1):
        return (self.coord(x0, True), self.coord(y0, False), self.coord(x1, True), self.coord(y1, False))

    # --- pixels ----------------------------------------------------------------------

    def pixel(self, x, y):
        if not (0 <= x < self.width and 0 <= y < self.height):
            raise IndexError("pixel (%d,%d) outside %dx%d" % (x, y, self.width, self.height))
        i = (y * self.width + x) * 3
        return (self.data[i], self.data[i + 1], self.data[i + 2])

    def pixels(self, box=None, step=1):
        x0, y0, x1, y1 = box or (0, 0, self.width, self.height)
        for y in range(max(0, y0), min(self.height, y1), step):
            row = y * self.width * 3
            for x in range(max(0, x0), min(self.width, x1), step):
                i = row + x * 3
                yield (self.data[i], self.data[i + 1], self.data[i + 2])

    def fraction(self, colour, box=None, tol=8, step=1):
        """Share of the pixels in box (default: all) within tol of colour."""
        want = rgb(colour)
        total = hits = 0
        for p in self.pixels(box, step):
            total += 1
            hits += close(p, want, tol)
        return hits / total if total else 0.0

    def nonblack_fraction(self, threshold=24, box=None, step=1):
        """Share of pixels with any channel above threshold."""
        total = lit = 0
        for p in self.pixels(box, step):
            total += 1
            lit += max(p) > threshold
        return lit / total if total else 0.0

    def histogram(self, box=None, step=1):
        counts = {}
        for p in self.pixels(box, step):
            counts[p] = counts.get(p, 0) + 1
        return sorted(counts.items(), key=lambda kv: -kv[1])

    def classify(self):
        """'blank' (almost all black), 'console' (text in the 16 VGA colours on black,
        as QEMU's VGA text mode and the kernel's fbcon draw it) or 'graphics'."""
        hist = self.histogram(step=2)
        total = sum(n for _, n in hist)
        black = sum(n for c, n in hist if max(c) <= 24)
        if black >= 0.9999 * total:
            return "blank"
        palette = [rgb(c) for c in VGA_PALETTE]
        in_palette = sum(n for c, n in hist if any(close(c, p, 6) for p in palette))
        if black >= 0.5 * total and in_palette >= 0.999 * total:
            return "console"
        return "graphics"

    # --- PNG -------------------------------------------------------------------------

    def png_bytes(self):
        stride = self.width * 3
        rows = b"".join(b"\x00" + self.data[y * stride:(y + 1) * stride] for y in range(self.height))

        def chunk(kind, body):
            return (struct.pack(">I", len(body)) + kind + body
                    + struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF))

        header = struct.pack(">IIBBBBB", self.width, self.height, 8, 2, 0, 0, 0)  # 8-bit RGB
        return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header)
                + chunk(b"IDAT", zlib.compress(rows, 6)) + chunk(b"IEND", b""))

    def save_png(self, path):
        with open(path, "wb") as f:
            f.write(self.png_bytes())


# --- command line --------------------------------------------------------------------

def _info(img):
    total = img.width * img.height
    print("size %dx%d" % (img.width, img.height))
    print("nonblack %.4f" % img.nonblack_fraction(step=2))
    for colour, n in img.histogram(step=2)[:6]:
        print("colour %s %.4f" % (hexrgb(colour), 4.0 * n / total))
    print("verdict %s" % img.classify())


def _check(img, args):
    tol, failures, i = 8, 0, 0

    def report(ok, text):
        nonlocal failures
        print("%s %s" % ("ok  " if ok else "FAIL", text))
        failures += not ok

    while i < len(args):
        opt = args[i]
        val = args[i + 1] if i + 1 < len(args) else None
        if val is None:
            raise SystemExit("ppm.py check: %s needs a value" % opt)
        i += 2
        if opt == "--tol":
            tol = int(val)
        elif opt == "--at":
            where, colour = val.split("=")
            xs, ys = where.split(",")
            x = min(img.coord(xs, True), img.width - 1)
            y = min(img.coord(ys, False), img.height - 1)
            got = img.pixel(x, y)
            report(close(got, rgb(colour), tol), "pixel (%d,%d) = %s, want %s" % (x, y, hexrgb(got), colour))
        elif opt == "--region":
            where, want = val.split("=")
            colour, _, need = want.partition("@")
            need = float(need) if need else 0.99
            box = img.box(*where.split(","))
            got = img.fraction(colour, box=box, tol=tol, step=2)
            report(got >= need, "region %s: %.4f of pixels are %s, want >= %.2f" % (box, got, colour, need))
        elif opt == "--min-nonblack":
            got = img.nonblack_fraction(step=2)
            report(got >= float(val), "non-black share %.4f >= %s" % (got, val))
        elif opt == "--max-nonblack":
            got = img.nonblack_fraction(step=2)
            report(got <= float(val), "non-black share %.4f <= %s" % (got, val))
        elif opt == "--expect":
            got = img.classify()
            report(got == val, "screen looks like %s, want %s" % (got, val))
        else:
            raise SystemExit("ppm.py check: unknown option %s" % opt)
    return 1 if failures else 0


def main(argv):
    if len(argv) < 3 or argv[1] not in ("info", "pixel", "png", "check"):
        print(__doc__, file=sys.stderr)
        return 2
    cmd, path = argv[1], argv[2]
    img = Image.load(path)
    if cmd == "info":
        _info(img)
    elif cmd == "pixel":
        print(hexrgb(img.pixel(img.coord(argv[3], True), img.coord(argv[4], False))))
    elif cmd == "png":
        out = argv[3] if len(argv) > 3 else path.rsplit(".", 1)[0] + ".png"
        img.save_png(out)
        print(out)
    else:
        return _check(img, argv[3:])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
