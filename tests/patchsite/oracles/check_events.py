#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""A second reader of static trace events (events.sh): decodes every
PSD_EXT_EVENT record (and PSD_EXT_EVENT_PACKED) of a trace directory with nothing but the events file
(each event's format: field offsets, sizes, kinds) and the layout of the
thread files in patchsite-data(5), independently of patchsite's own reader,
and compares the values with what testdata/patchsite/drivers/evprog.c emitted in mode
record (its source is the oracle).

usage: check_events.py DIR        exit 0 when every record decodes as expected
"""
import glob
import os
import re
import struct
import sys

HDR_BYTES = 4096
CHUNK_WORDS = 4
EXT_EVENT = 5
EXT_EVENT_PACKED = 16   # the same without the flags word: fields at offset - 4


def formats(path):
    evs = {}
    for block in open(path).read().split("\n\n"):
        if not block.strip():
            continue
        ev = {"fields": []}
        for line in block.splitlines():
            if line.startswith("name: "):
                ev["name"] = line[6:]
            elif line.startswith("ID: "):
                ev["id"] = int(line[4:])
            m = re.match(r"\tfield:(.*) (\w+)(\[\d+\])?;\toffset:(\d+);\tsize:(\d+);\tkind:(\w+);", line)
            if m and int(m.group(4)) >= 8:
                ev["fields"].append((m.group(2), int(m.group(4)), int(m.group(5)), m.group(6)))
        evs[ev["id"]] = ev
    return evs


def records(path):
    data = open(path, "rb").read()
    chunk = struct.unpack_from("<Q", data, 40)[0]
    off = HDR_BYTES
    while off + chunk <= len(data) or off < len(data):
        words = struct.unpack_from("<%dQ" % (min(chunk, len(data) - off) // 8), data, off)
        i = CHUNK_WORDS
        while i < len(words):
            w = words[i]
            if w == 0 or w == 0xFFFFFFFFFFFFFFFF:
                break
            typ = w & 3
            if typ == 3:
                kind = (w >> 2) & 0xFF
                n = (w & 0xFFFFFFFF) >> 10
                if kind == 0:
                    i += 2
                    continue
                payload = struct.pack("<%dQ" % n, *words[i + 1:i + 1 + n])
                if kind == EXT_EVENT:
                    yield payload
                elif kind == EXT_EVENT_PACKED:
                    yield payload[:4] + bytes(4) + payload[4:]
                i += 1 + n
            elif typ == 2:
                i += 2
            else:
                i += 1
        off += chunk


def decode(ev, p):
    out = {}
    for name, off, size, kind in ev["fields"]:
        raw = p[off:off + size]
        if kind == "signed":
            out[name] = int.from_bytes(raw, "little", signed=True)
        elif kind == "unsigned" or kind == "pointer":
            out[name] = int.from_bytes(raw, "little")
        elif kind == "float":
            out[name] = struct.unpack("<d" if size == 8 else "<f", raw)[0]
        elif kind == "bytes":
            out[name] = raw.hex()
        elif kind == "string":
            loc = int.from_bytes(raw, "little")
            start, length, cut = loc & 0xFFFF, (loc >> 16) & 0x7FFF, loc >> 31
            out[name] = p[start:start + length].decode() + ("[cut]" if cut else "")
    return out


# What evprog record emits once the filter (len > 1024 && host == "a.b") keeps two sends.
EXPECTED = [
    ("netsim:send", {"len": 2000, "host": "a.b"}),
    ("netsim:send", {"len": 3000, "host": "a.b"}),
    ("netsim:poll", {"n": 7}),
    ("netsim:tick", {"i": -5, "thread": 3}),
    ("types:all", {"s8": -100, "s16": -30000, "s64": -1234567890123, "u32": 4000000000,
                   "ptr": 0x1234, "dbl": 2.5, "str": 'hello "world"', "raw": "deadbeef"}),
    ("types:all", {"s8": 127, "s16": 1, "s64": 1, "u32": 0, "ptr": 0, "dbl": -0.125,
                   "str": "x" * 256 + "[cut]", "raw": "deadbeef"}),
]


def main():
    procs = [d for d in glob.glob(os.path.join(sys.argv[1], "*")) if os.path.isdir(d)]
    if len(procs) != 1:
        print("expected one process directory, found %d" % len(procs))
        return 1
    evs = formats(os.path.join(procs[0], "events"))
    got = []
    for t in glob.glob(os.path.join(procs[0], "thread.*")):
        for p in records(t):
            eid = int.from_bytes(p[0:4], "little")
            got.append((evs[eid]["name"], decode(evs[eid], p)))
    if got != EXPECTED:
        print("decoded:")
        for g in got:
            print("  ", g)
        print("expected:")
        for e in EXPECTED:
            print("  ", e)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
