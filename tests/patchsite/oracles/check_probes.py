#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Compare dynamic probes' values (patchsite replay) with gdb's at each
function's entry (the oracle): check_probes.py REPLAY GDBLOG.

REPLAY: the replay's event lines, "GRP:EVENT: func(name=value, ...)".
GDBLOG: for each hit "@@ EVENT" then gdb's `info args` lines ("a = 255
'\\377'") and the extra `printf "name=..."` lines the script asks for.
Each event's values must equal gdb's, hit by hit, in the type the probe
names (integers at its size, floats as float32, strings to the cap)."""
import re
import struct
import sys

CAP = 256
# event -> (field, gdb name, type)
SPEC = {
    "u8": [("a", "a", "u8")], "x8": [("a", "a", "x8")], "s8": [("a", "a", "s8")],
    "u16": [("a", "a", "u16")], "x16": [("a", "a", "x16")], "s16": [("a", "a", "s16")],
    "u32": [("a", "a", "u32")], "s32": [("a", "a", "s32")], "x32": [("a", "a", "x32")],
    "u64": [("a", "a", "u64")], "x64": [("a", "a", "x64")], "s64": [("a", "a", "s64")],
    "char": [("c", "c", "char")], "str": [("s", "s", "string")],
    "float": [("x", "x", "float")], "double": [("x", "x", "double")],
    "many": [("a1", "a1", "s64"), ("a6", "a6", "s64"), ("a7", "a7", "s64"),
             ("a8", "a8", "s64"), ("ret", "ret", "x64")],
    "send": [("port", "port", "s32"), ("host", "host", "string"), ("len", "len", "u32"),
             ("counter", "counter", "s64")],
}


def replay(path):
    out = {}
    pat = re.compile(r"\bt:(\w+): \w+\((.*)\)\s*$")
    for line in open(path, errors="replace"):
        m = pat.search(line)
        if not m:
            continue
        ev, body = m.group(1), m.group(2)
        vals, names = {}, [f for f, _, _ in SPEC[ev]]
        for i, name in enumerate(names):
            nxt = ", %s=" % names[i + 1] if i + 1 < len(names) else None
            assert body.startswith(name + "="), (ev, body)
            body = body[len(name) + 1:]
            end = body.find(nxt) if nxt else len(body)
            vals[name], body = body[:end], body[end + 2 if nxt else end:]
        out.setdefault(ev, []).append(vals)
    return out


def gdb(path):
    out, cur = {}, None
    for line in open(path, errors="replace"):
        line = line.rstrip("\n")
        if line.startswith("@@ "):
            cur = {}
            out.setdefault(line[3:], []).append(cur)
        elif cur is not None and " = " in line and re.match(r"^\w+ = ", line):
            k, v = line.split(" = ", 1)
            cur[k] = v
        elif cur is not None and re.match(r"^\w+=", line):
            k, v = line.split("=", 1)
            cur[k] = v
    return out


def to_int(v, size, signed):
    v &= (1 << (8 * size)) - 1
    if signed and v >> (8 * size - 1):
        v -= 1 << (8 * size)
    return v


def f32(x):
    return struct.unpack("f", struct.pack("f", x))[0]


def same(t, ours, theirs):
    if t == "string":
        if theirs.startswith("0x0") and re.fullmatch(r"0x0+", theirs.split()[0]):
            return ours == 'NULL'    # unquoted: a string "(null)" is quoted
        if "<error: Cannot access memory" in theirs:
            return ours == '"(fault)"'
        m = re.search(r'"(.*)"', theirs)
        if not m:
            return False
        s = m.group(1)
        if len(s) > CAP:
            return ours == '"' + s[:CAP] + '[cut]"'
        return ours == '"' + s + '"'
    if t == "char":
        n = int(theirs.split()[0])
        return ours == "'%s'" % chr(n & 0xff)
    if t in ("float", "double"):
        a, b = float(ours), float(theirs.split()[0])
        if t == "float":
            a, b = f32(a), f32(b)
        return a == b and str(a)[0] == str(b)[0]   # -0 and 0 differ in sign
    size = int(t[1:]) // 8
    n = int(theirs.split()[0], 0)
    want = to_int(n, size, t[0] == "s")
    got = int(ours, 16) if t[0] == "x" else int(ours)
    return got == want


def main():
    ours, theirs = replay(sys.argv[1]), gdb(sys.argv[2])
    bad = checked = unknown = 0
    for ev, fields in SPEC.items():
        a, b = ours.get(ev, []), theirs.get(ev, [])
        if len(a) != len(b) or not a:
            print("%s: %d hits recorded, %d seen by gdb" % (ev, len(a), len(b)))
            bad += 1
            continue
        for i, (x, y) in enumerate(zip(a, b)):
            for f, g, t in fields:
                if "<optimized out>" in y.get(g, ""):
                    unknown += 1   # gdb cannot say: nothing to compare
                    continue
                checked += 1
                if g not in y or not same(t, x[f], y[g]):
                    print("%s hit %d: %s=%s, gdb: %s" % (ev, i + 1, f, x[f], y.get(g)))
                    bad += 1
    print("%d values compared, %d differ, %d optimized out for gdb" % (checked, bad, unknown))
    return 1 if bad else 0


sys.exit(main())
