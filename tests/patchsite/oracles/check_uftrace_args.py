#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""record -A/-R against uftrace -A/-R on the same program (the oracle):
   check_uftrace_args.py OURS UFTRACE FUNC...

OURS: `patchsite replay` of `record -A ... -R FUNC@retval`, UFTRACE: `uftrace
replay` of `uftrace record -A ... -R`: both "FUNC(V, ...);" and "FUNC() = R;", as
uftrace prints them (patchsite-replay(1)).  For each FUNC the values must be the
same, call by call, in uftrace's printing: %f for floats, /d as an int when
uftrace prints it in decimal (a wider value it prints in hex); a string uftrace
cannot read (uftrace "<0xADDR>") our (fault), one uftrace cut ("...") a prefix."""
import re
import sys


def theirs(path, funcs):
    out = {f: [] for f in funcs}
    for line in open(path, errors="replace"):
        m = re.search(r"\|\s+([\w.]+)\((.*)\)( = \S+)?;", line)
        if not m or m.group(1) not in out:
            continue
        if m.group(3):
            out[m.group(1)].append(["= " + m.group(3)[3:]])
        else:
            out[m.group(1)].append(re.findall(r'"[^"]*"|[^, ]+', m.group(2)))
    return out


def same(a, b):
    if a.startswith("= ") and b.startswith("= "):
        return same(a[2:], b[2:])
    if a.startswith("= ") or b.startswith("= "):
        return False
    if b.startswith('"'):
        if re.fullmatch(r'"<0x[0-9a-f]+>"', b):
            return a == '"(fault)"'
        if b.endswith('..."'):
            return a.startswith(b[:-4])
        return a == b
    if re.fullmatch(r"-?\d+\.\d{6}", b):
        return "%f" % float(a) == b
    x, y = int(a, 0), int(b, 0)
    if b.startswith("0x"):
        return (x - y) % 2**64 == 0
    # uftrace prints /d as an int in decimal (a wider value in hex): 32 bits compare
    return x == y or (x - y) % 2**32 == 0


def main():
    funcs = sys.argv[3:]
    a, b = theirs(sys.argv[1], funcs), theirs(sys.argv[2], funcs)
    bad = n = 0
    for f in funcs:
        if len(a[f]) != len(b[f]) or not a[f]:
            print("%s: %d calls here, %d in uftrace's" % (f, len(a[f]), len(b[f])))
            bad += 1
            continue
        for k, (x, y) in enumerate(zip(a[f], b[f])):
            n += len(y)
            if len(x) != len(y) or not all(same(p, q) for p, q in zip(x, y)):
                print("%s call %d: %s, uftrace: %s" % (f, k + 1, x, y))
                bad += 1
    print("%d values as uftrace's, %d differ" % (n - bad, bad))
    return 1 if bad else 0


sys.exit(main())
