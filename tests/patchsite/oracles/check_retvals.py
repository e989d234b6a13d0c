#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Return probes against gdb (tests/patchsite/retprobe.sh).

usage: check_retvals.py REPLAY GDBLOG EVENT...

REPLAY is `patchsite replay` of a run with return probes named t:EVENT,
each line the kernel's `t:EVENT: (caller+0x1c/0x80 <- FUNC) arg1=VALUE`
(an unnamed $retval is arg1).  GDBLOG holds `@@ t:EVENT VALUE`
lines that gdb's Python printed at each return (gdb.FinishBreakpoint's
return_value, converted by its DWARF type: integers and enums as numbers,
bool 0/1, floats with repr, strings as JSON); a call a longjmp or an
exception left never reaches gdb's finish breakpoint, so it has no line.
Every EVENT must have the same values in the same order on both sides, and
at least one.
"""
import json
import re
import sys


def ours(path):
    got = {}
    for line in open(path, errors="replace"):
        # replay's event line, or function_graph's comment line /* t:EV: (c <- f) arg1=3 */
        m = re.search(r" (t:\w+): \([^ ()]+ <- [\w.]+\) arg1=(.*?)( \*/)?$", line.rstrip("\n"))
        if m:
            got.setdefault(m.group(1), []).append(m.group(2))
    return got


def theirs(path):
    got = {}
    for line in open(path, errors="replace"):
        if line.startswith("@@ t:"):
            ev, val = line[3:].rstrip("\n").split(" ", 1)
            got.setdefault(ev, []).append(val)
    return got


def norm(v):
    """A value of either side as a number or a string."""
    v = v.strip()
    if v.startswith('"'):
        return json.loads(v) if v.endswith('"') and "\\" not in v[1:-1] else v[1:-1]
    if v.startswith("0x"):
        return int(v, 16)
    try:
        return int(v)
    except ValueError:
        return float(v)


def close(x, y):
    """Equal but for the float digits uftrace's %f (replay's call line) leaves out."""
    return len(x) == len(y) and all(
        a == b or (isinstance(a, float) and abs(a - b) <= 5e-7 * (1 + 1e-9)) for a, b in zip(x, y))


def main():
    rp, gp, events = sys.argv[1], sys.argv[2], sys.argv[3:]
    a, b = ours(rp), theirs(gp)
    bad = 0
    total = 0
    for ev in events:
        x = [norm(v) for v in a.get(ev, [])]
        y = [norm(v) for v in b.get(ev, [])]
        if not y:
            print("%s: gdb saw no return (the oracle failed)" % ev)
            bad += 1
        elif x != y and not close(x, y):
            print("%s: ours %s\n%s  gdb  %s" % (ev, x, " " * len(ev), y))
            bad += 1
        total += len(y)
    if bad:
        sys.exit(1)
    print("%d returns of %d functions equal gdb's finish values" % (total, len(events)))


main()
