#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""A browser's picture of dump --flamegraph's SVG, against the SVG's own frames.

usage: check_shot.py SVG PNG

PNG is a screenshot of SVG at 1:1 (the SVG's width and height are in pixels;
headless Chromium draws it at the window's top left).  Every frame (a <g> with
a <title> and a <rect>) at least 8 px wide must show its fill colour inside its
rectangle (3 px in from the right end, at mid-height: clear of the label,
which starts at the left, and of the rounded corners), and the margin left of
the frames the background's colour.  A blank page, the SVG shown as text, a
frame drawn in the wrong place or colour: each fails.  Prints how many frames
were looked at; exit 1 with the first frame that differs.

The PNG is read here (zlib and the PNG specification's five row filters), so
that no imaging library is needed: 8-bit RGB or RGBA, not interlaced.
"""
import re
import struct
import sys
import xml.etree.ElementTree as ET
import zlib

NS = "{http://www.w3.org/2000/svg}"
TOLERANCE = 12      # per channel: colour management and antialiasing


def die(msg):
    print("check_shot: " + msg)
    sys.exit(1)


def read_png(path):
    """(width, height, rows): rows[y][x] is an (r, g, b) tuple."""
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        die(f"{path}: not a PNG file")
    pos, idat, hdr = 8, b"", None
    while pos + 8 <= len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            hdr = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    if not hdr:
        die(f"{path}: no IHDR")
    w, h, depth, ctype, _, _, interlace = hdr
    if depth != 8 or ctype not in (2, 6) or interlace:
        die(f"{path}: {depth}-bit colour type {ctype} interlace {interlace}: expected 8-bit RGB(A)")
    bpp = 3 if ctype == 2 else 4
    raw = zlib.decompress(idat)
    stride = w * bpp
    prev = bytearray(stride)
    rows = []
    for y in range(h):
        f = raw[y * (stride + 1)]
        cur = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = cur[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if f == 1:
                cur[i] = (cur[i] + a) & 255
            elif f == 2:
                cur[i] = (cur[i] + b) & 255
            elif f == 3:
                cur[i] = (cur[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                cur[i] = (cur[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
            elif f != 0:
                die(f"{path}: row {y}: filter {f}")
        rows.append([tuple(cur[x * bpp:x * bpp + 3]) for x in range(w)])
        prev = cur
    return w, h, rows


def colour(text):
    m = re.fullmatch(r"rgb\((\d+),(\d+),(\d+)\)", text.replace(" ", ""))
    if m:
        return tuple(int(v) for v in m.groups())
    m = re.fullmatch(r"#([0-9a-fA-F]{6})", text)
    if m:
        return tuple(int(m.group(1)[i:i + 2], 16) for i in (0, 2, 4))
    die(f"fill '{text}': expected rgb(R,G,B) or #RRGGBB")


def near(a, b):
    return all(abs(x - y) <= TOLERANCE for x, y in zip(a, b))


def main():
    if len(sys.argv) != 3:
        die("usage: check_shot.py SVG PNG")
    svg = ET.parse(sys.argv[1]).getroot()
    w, h, px = read_png(sys.argv[2])
    sw, sh = int(svg.get("width")), int(svg.get("height"))
    if w < sw or h < sh:
        die(f"screenshot {w}x{h} smaller than the SVG's {sw}x{sh}")
    background = colour(svg.find(NS + "rect").get("fill"))
    frames, x0 = 0, sw
    for g in svg.iter(NS + "g"):
        rect, title = g.find(NS + "rect"), g.find(NS + "title")
        if rect is None or title is None:
            continue
        x, y = float(rect.get("x")), float(rect.get("y"))
        rw, rh = float(rect.get("width")), float(rect.get("height"))
        x0 = min(x0, x)
        if rw < 8:
            continue
        want = colour(rect.get("fill"))
        sx, sy = int(x + rw) - 3, int(y + rh / 2)
        got = px[sy][sx]
        if not near(got, want):
            die(f"frame '{title.text}' at ({sx},{sy}): the picture has rgb{got}, the SVG fills rgb{want}")
        frames += 1
    if not frames:
        die("no frame 8 px wide in the SVG")
    for sy in range(sh // 4, sh - sh // 4, 10):     # the margin left of every frame
        if x0 >= 3 and not near(px[sy][int(x0) - 3], background):
            die(f"margin at ({int(x0) - 3},{sy}): rgb{px[sy][int(x0) - 3]}, background rgb{background}")
    print(f"{frames} frames in their colour at their place, the margin in the background's")


main()
