#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Entry values at the return against gdb (tests/patchsite/retprobe.sh).

usage: check_retargs.py REPLAY GDBLOG EVENT...

REPLAY is `patchsite replay` of return probes t:EVENT, each line the
kernel's `t:EVENT: (caller+0x1c/0x80 <- FUNC) a=1 arg2=3 b="x"`, the unnamed
$retval named argN as the kernel names it; GDBLOG holds gdb's
`@@ t:EVENT a=1 b="x" = 3`
lines (retargs_gdb.py: info args at the entry, finish at the return).  Every
EVENT must have the same calls, fields and values in the same order on both
sides, and at least one.
"""
import re
import sys

FIELD = re.compile(r'(\w+)=("(?:[^"\\]|\\.)*"|[^ ,()]+)')


def ours(path):
    got = {}
    for line in open(path, errors="replace"):
        m = re.search(r" (t:\w+): \([^ ()]+ <- [\w.]+\) (.*)$", line.rstrip("\n"))
        if m:
            fields = FIELD.findall(m.group(2))
            ret = [v for k, v in fields if re.match(r"arg\d+$", k)]
            entry = [(k, v) for k, v in fields if not re.match(r"arg\d+$", k)]
            got.setdefault(m.group(1), []).append((entry, ret[0] if ret else None))
    return got


def theirs(path):
    got = {}
    for line in open(path, errors="replace"):
        m = re.match(r"@@ (t:\w+) (.*) = (\S+)$", line.rstrip("\n"))
        if m:
            got.setdefault(m.group(1), []).append((FIELD.findall(m.group(2)), m.group(3)))
    return got


def main():
    rp, gp, events = sys.argv[1], sys.argv[2], sys.argv[3:]
    a, b = ours(rp), theirs(gp)
    bad = total = 0
    for ev in events:
        x, y = a.get(ev, []), b.get(ev, [])
        if not y:
            print("%s: gdb saw no return (the oracle failed)" % ev)
            bad += 1
            continue
        for i, (p, q) in enumerate(zip(x, y)):
            if p != q:
                print("%s call %d: ours %s\n    gdb  %s" % (ev, i, p, q))
                bad += 1
                break
        if len(x) != len(y):
            print("%s: %d returns, gdb %d" % (ev, len(x), len(y)))
            bad += 1
        total += len(y)
    if bad:
        sys.exit(1)
    print("%d returns of %d functions: entry values and return values equal gdb's"
          % (total, len(events)))


main()
