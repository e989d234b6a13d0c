#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""The scheduler switches a follower (patchsite pipe, record --live) showed
while a process recorded, against the finished trace directory
(tests/patchsite/sched.sh).

usage: check_pipe_sched.py PROCDIR FOLLOWED.txt REPLAY.txt

Both texts are function_graph text (times checked where funcgraph-abstime
shows them).  Oracles:
 - the sched.T files, parsed here from patchsite-data(5) (not by
   patchsite's reader): each thread's switch lines in FOLLOWED are its
   records, each once, in order, with the record's kind and time (to the
   microsecond shown; 1 us for the rounding of the clock mapping);
 - replay of the finished directory: each thread's calls and returns are
   the same lines in the same order;
 - where the times are shown: each switch stands among its thread's lines by
   time: no line before it later, none after it earlier, than TOL_US.  That
   is the precision of the mapping between the event counter and the
   switches' CLOCK_MONOTONIC (replay's own, with the rate of the whole run,
   differs from a follower's by about a microsecond; a sched-in a
   microsecond before the call that follows it may be placed after it), not
   a time the program takes; a switch shown late, after lines it preceded,
   stands tens of milliseconds off (the writer drains every 100 ms).
"""
import os
import re
import struct
import sys
from collections import defaultdict

TOL_US = 50
WHAT = {1: "sched-out", 2: "sched-out (preempted)", 3: "sched-in"}


def records(procdir):
    out = {}
    for name in os.listdir(procdir):
        if not name.startswith("sched."):
            continue
        data = open(os.path.join(procdir, name), "rb").read()
        tid, records = struct.unpack_from("<I", data, 20)[0], struct.unpack_from("<Q", data, 40)[0]
        if data[:8] != b"PSSCHD1\0" or len(data) != 256 + 16 * records:
            raise SystemExit(f"{name}: not a whole switch file ({len(data)} bytes, {records} records)")
        out[str(tid)] = [struct.unpack_from("<QIi", data, 256 + 16 * k)[:2] for k in range(records)]
    return out


def lines(path):
    """Per thread: (time in us or None, text) of each graph line."""
    d = defaultdict(list)
    for line in open(path):
        f = line.split("|")
        task = [re.match(r"\s*\d+\)\s+\S*-(\d+)\s*$", x) for x in f[:2]]
        k = 0 if task[0] else 1 if len(task) > 1 and task[1] else None
        if k is None or len(f) < k + 3:
            continue
        t = None
        if k == 1 and re.match(r"\s*\d+\.\d{6}\s*$", f[0]):
            sec, us = f[0].split(".")
            t = int(sec) * 1000000 + int(us)
        # An exit whose entry this text does not hold (a follower gone on from its position).
        text = re.sub(r"^} /\* .* \*/$", "}", f[k + 2].strip())
        d[task[k].group(1)].append((t, text))
    return d


def leaves(calls):
    """'f() {' closed at once is 'f();': a switch within the clock mapping's precision
    of a leaf's entry or return may be inside it in one reader and beside it in the
    other (placed() checks where each switch stands)."""
    out = []
    for x in calls:
        if x == "}" and out and out[-1].endswith("() {"):
            out[-1] = out[-1][:-2] + ";"
        else:
            out.append(x)
    return out


def placed(tid, seq):
    """The farthest a switch stands from its place by time (us); exits when past TOL_US."""
    if any(t is None for t, _ in seq):
        return 0
    n = len(seq)
    before, after = [0] * n, [0] * n
    hi, lo = None, None
    for i, (t, x) in enumerate(seq):
        before[i] = hi
        if not x.startswith("/* sched-"):
            hi = t if hi is None else max(hi, t)
    for i in range(n - 1, -1, -1):
        t, x = seq[i]
        after[i] = lo
        if not x.startswith("/* sched-"):
            lo = t if lo is None else min(lo, t)
    worst = 0
    for i, (t, x) in enumerate(seq):
        if not x.startswith("/* sched-"):
            continue
        b = t if before[i] is None else before[i]
        a = t if after[i] is None else after[i]
        off = max(b - t, t - a, 0)
        if off > TOL_US:
            raise SystemExit(f"thread {tid}: '{x}' at {t} us shown after a line at {b} us "
                             f"or before one at {a} us")
        worst = max(worst, off)
    return worst


def main():
    recs, got, want = records(sys.argv[1]), lines(sys.argv[2]), lines(sys.argv[3])
    total = 0
    for tid, r in recs.items():
        sw = [(t, x) for t, x in got[tid] if x.startswith("/* sched-")]
        if len(sw) != len(r):
            raise SystemExit(f"thread {tid}: {len(sw)} switch lines shown, {len(r)} recorded")
        for k, ((t, x), (ns, what)) in enumerate(zip(sw, r)):
            if x != f"/* {WHAT[what]} */" or (t is not None and abs(t - ns // 1000) > 1):
                raise SystemExit(f"thread {tid}: switch {k} shown as '{x}' at {t} us, "
                                 f"recorded {WHAT[what]} at {ns} ns")
        total += len(r)
    worst = 0
    for tid in set(got) | set(want):
        a = leaves([x for _, x in got[tid] if not x.startswith("/* sched-")])
        b = leaves([x for _, x in want[tid] if not x.startswith("/* sched-")])
        if a != b:
            k = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
            raise SystemExit(f"thread {tid}: call line {k} of {len(a)} shown is "
                             f"'{a[k] if k < len(a) else '(none)'}', replay's of {len(b)} is "
                             f"'{b[k] if k < len(b) else '(none)'}'")
        worst = max(worst, placed(tid, got[tid]))
    print(f"{total} switches of {len(recs)} threads, each shown once with its kind and time, "
          f"among {sum(len(v) for v in got.values())} lines, the calls as replay has them, "
          f"each switch in its place by time (the farthest {worst} us)")


if __name__ == "__main__":
    main()
